/**
 * The host's cache of transformed TypeScript. Hooks never see this folder: a worker's jiti sends
 * the source it wants transformed (the `transform` sync call), the host answers from here or from
 * its transform thread. Entries are content-addressed (sha256 of the source, the filename, the
 * options and jiti's version), carry the sha256 of their code, are written atomically and are
 * bounded in total size (least recently used first out).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { unlink } from "node:fs/promises";
import { join } from "node:path";
import type { z } from "zod";
import { jitiDir, transformInThread } from "./transformer.js";
import { writeFileAtomic } from "../gates/atomic-write.js";
import { boundFolder, markUsed, privateDir } from "../gates/private-dir.js";
import { DEFAULTS } from "../../worker/wire.mjs";
import type { transformArgsSchema } from "../bridge/methods.js";

/** Default bound of the cache folder's total size. */

/** One `transform` request, as the bridge table's row checks it. */
export type TransformRequest = z.infer<typeof transformArgsSchema>[0];

/** Bumped when the entry format changes: old entries then miss and age out. */
const FORMAT = "hookbox-transform-1";
const JITI_VERSION = (JSON.parse(readFileSync(join(jitiDir, "package.json"), "utf8")) as { version: string }).version;
const ENTRY = /^[0-9a-f]{64}\.js$/;
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** One cache folder, shared by every hook of this host that names it. */
export class TransformCache {
  readonly dir: string | false;
  readonly maxBytes: number;
  /** Bytes in the folder as this host knows it; `undefined` until the first scan. */
  #bytes: number | undefined;
  #evicting: Promise<void> | undefined;
  readonly #inFlight = new Map<string, Promise<string>>();

  constructor(dir: string | false, maxBytes = DEFAULTS.transformBytes) {
    this.maxBytes = maxBytes;
    this.dir = dir && privateDir(dir) ? dir : false;
  }

  /** The entry name of a request: everything that shapes the output is in the hash. */
  static key(request: TransformRequest): string {
    return sha256(JSON.stringify([FORMAT, JITI_VERSION, request]));
  }

  /** The transformed code of `request`: from the cache when a sound entry is there, else from the transform thread. */
  transform(request: TransformRequest, onBusy?: (ms: number) => void): Promise<string> {
    const key = TransformCache.key(request);
    // Hooks loaded together from one file share one transform (its thread time is charged to the first asker).
    let job = this.#inFlight.get(key);
    if (!job) {
      job = this.#transform(key, request, onBusy).finally(() => this.#inFlight.delete(key));
      this.#inFlight.set(key, job);
    }
    return job;
  }

  async #transform(key: string, request: TransformRequest, onBusy?: (ms: number) => void): Promise<string> {
    const cached = await this.get(key);
    if (cached !== undefined) return cached;
    const code = await transformInThread(request, onBusy);
    await this.put(key, code);
    return code;
  }

  /** A cached entry whose code still matches its hash; a corrupt or truncated one is removed. */
  async get(key: string): Promise<string | undefined> {
    if (!this.dir) return undefined;
    const file = join(this.dir, `${key}.js`);
    let text: string;
    try {
      // Why synchronous: the asker is a worker blocked on this answer, and an asynchronous read is
      // four turns of this thread's event loop (open, stat, read, close), each a wait for a core
      // while twenty workers boot; an entry is a few kilobytes, read in well under a millisecond.
      text = readFileSync(file, "utf8");
    } catch {
      return undefined;
    }
    const newline = text.indexOf("\n");
    const header = text.slice(0, newline);
    const code = text.slice(newline + 1);
    if (newline < 0 || header !== `// ${FORMAT} ${sha256(code)}`) {
      await unlink(file).catch(() => {});
      return undefined;
    }
    markUsed(file);
    return code;
  }

  /** Write an entry atomically (src/gates/atomic-write.ts), then keep the folder under its bound. */
  async put(key: string, code: string): Promise<void> {
    if (!this.dir) return;
    const body = `// ${FORMAT} ${sha256(code)}\n${code}`;
    const size = Buffer.byteLength(body);
    if (size > this.maxBytes) return;
    try {
      await writeFileAtomic(join(this.dir, `${key}.js`), body);
    } catch {
      return;
    }
    if (this.#bytes !== undefined) this.#bytes += size;
    if (this.#bytes === undefined || this.#bytes > this.maxBytes) await this.evict();
  }

  /** Remove the least recently used entries until the folder is within `maxBytes`. */
  evict(): Promise<void> {
    this.#evicting ??= this.#evict().finally(() => { this.#evicting = undefined; });
    return this.#evicting;
  }

  async #evict(): Promise<void> {
    if (!this.dir) return;
    this.#bytes = await boundFolder(this.dir, ENTRY, this.maxBytes);
  }
}

const caches = new Map<string, TransformCache>();
/** The cache for a folder: one per folder and bound in this host, so eviction sees every writer. */
export function transformCacheFor(dir: string | false, maxBytes = DEFAULTS.transformBytes): TransformCache {
  const id = `${dir}\0${maxBytes}`;
  let cache = caches.get(id);
  if (!cache) caches.set(id, (cache = new TransformCache(dir, maxBytes)));
  return cache;
}

/** The `transform` sync call, its arguments already checked against the table's row (src/bridge/methods.ts). */
export function transformCall(cache: TransformCache, [request]: [TransformRequest], onBusy?: (ms: number) => void): Promise<{ code: string }> {
  return cache.transform(request, onBusy).then((code) => ({ code }));
}
