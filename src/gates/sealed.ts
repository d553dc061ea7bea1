/**
 * A record only the host writes, in its private cache folder, sealed against a cut or changed file:
 * a format line, the sha256 of the body, then the body. Read back, a record whose format or hash does
 * not match is none. Why a hash and not a schema: the folder is the host's own (one others can write
 * is not used, and no hook may reach it), so what it holds is what this format's writer wrote, or a
 * file cut or changed since, which the hash tells apart; V8 does not checksum a code cache in release
 * builds, and a schema over a 25 KB map cost the host's thread milliseconds at every start.
 */
import { createHash } from "node:crypto";

const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

/** `body` sealed under `format` (a line without a line end), as written to the file. */
export function seal(format: string, body: string | Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`${format}\n${sha256(body)}\n`), typeof body === "string" ? Buffer.from(body) : body]);
}

/** The body of a file's `data` sealed under `format`, or undefined when its format or hash does not match. */
export function unseal(format: string, data: Buffer): Buffer | undefined {
  const first = data.indexOf(10);
  const second = first < 0 ? -1 : data.indexOf(10, first + 1);
  if (second < 0 || data.subarray(0, first).toString() !== format) return undefined;
  const body = data.subarray(second + 1);
  return data.subarray(first + 1, second).toString() === sha256(body) ? body : undefined;
}
