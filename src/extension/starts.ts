/**
 * What each module of one `isolate()` registered at the agent's previous start, so the next start
 * can mirror it before the modules finish loading (src/extension/adapter.ts, `Mirror`): the agent's
 * first request then waits only for the modules that handle the events before it, and every tool
 * call waits for all of them. A record is keyed by everything that shapes what the modules register
 * as far as the host can see it (the agent's line, its working folder, the modules' paths and file
 * contents, the options); what it cannot see (a module's imports, its environment) is checked when
 * each module arrives: what a module registers differently is taken as far as the agent takes it
 * then, the rest named in one warning, and the record rewritten (src/extension/adapter.ts `#arrive`).
 *
 * Records live in a folder of the host's transform cache (`transformCacheDir`, the same private
 * folder: hooks never see it), one small JSON file per set of modules, written atomically, checked
 * with the manifest schema when read, bounded as the transform cache is (`boundFolder`: the least
 * recently read or written first out, past `START_RECORD_BYTES` in total). `transformCacheDir: false` keeps none.
 */
import { createHash, randomBytes } from "node:crypto";
import { readFile, rename, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { tmpdir } from "node:os";
import { z } from "zod";
import { manifestSchema, type Manifest } from "../contract/protocol.js";
import { boundFolder, markUsed, privateDir } from "../gates/private-dir.js";
import type { LoadOptions } from "../runner/loader.js";

/** Bumped when the record's format or what it means changes: old records then miss. */
const FORMAT = "hookbox-start-1";
const recordSchema = z.strictObject({ format: z.literal(FORMAT), manifests: z.array(manifestSchema).max(1000) });
/**
 * The bound of the records' folder, in bytes. A record is about 0.1-3 KB for ten modules, so this
 * keeps a few hundred sets of modules (every project and option set a user starts the agent with)
 * and still scans in a few milliseconds when a record is written.
 */
export const START_RECORD_BYTES = 512 * 1024;
const RECORD = /^[0-9a-f]{64}\.json$/;
const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

/** Where a set of modules' start record is, or undefined when the options keep no cache. */
export async function startRecordFile(paths: readonly string[], cwd: string, line: string, options: LoadOptions): Promise<string | undefined> {
  if (options.transformCacheDir === false) return undefined;
  const dir = join(options.transformCacheDir ?? join(tmpdir(), `hookbox-transforms-${process.getuid?.() ?? "user"}`), "starts");
  if (!privateDir(dir)) return undefined;
  let contents: string[];
  try {
    contents = await Promise.all(paths.map(async (p) => sha256(await readFile(p))));
  } catch {
    return undefined;
  }
  // JSON keeps the options' data (functions, such as onLog, shape no registration).
  return join(dir, `${sha256(JSON.stringify([FORMAT, line, cwd, paths, contents, options]))}.json`);
}

/** The modules' manifests, in order, as the previous start recorded them; undefined when there is no sound record. */
export async function readStart(file: string, count: number): Promise<Manifest[] | undefined> {
  try {
    const parsed = recordSchema.safeParse(JSON.parse(await readFile(file, "utf8")));
    if (!parsed.success || parsed.data.manifests.length !== count) return undefined;
    await markUsed(file);
    return parsed.data.manifests;
  } catch {
    return undefined;
  }
}

/** Record the modules' manifests (a start where every module loaded and crossed), then bound the folder; undefined removes the record. */
export async function writeStart(file: string, manifests: Manifest[] | undefined): Promise<void> {
  if (manifests === undefined) {
    await unlink(file).catch(() => {});
    return;
  }
  const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await writeFile(temp, JSON.stringify({ format: FORMAT, manifests }), { mode: 0o600, flag: "wx" });
    await rename(temp, file);
  } catch {
    await unlink(temp).catch(() => {});
    return;
  }
  await boundFolder(dirname(file), RECORD, START_RECORD_BYTES);
}

/** Whether a module registered what its record says (the same events, counts, tools, commands, flags, shortcuts, renderers). */
export function sameManifest(a: Manifest, b: Manifest): boolean {
  return isDeepStrictEqual(a, b);
}
