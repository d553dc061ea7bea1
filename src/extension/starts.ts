/**
 * What each module of one `isolate()` registered at the agent's previous start, so the next start
 * can mirror it before the module finishes loading (src/extension/mirror.ts, `Mirror`): the agent's
 * first request then waits only for the modules that handle the events before it, and every tool
 * call waits for all of them. One record per module, keyed by everything that shapes what it
 * registers as far as the host can see it (the agent's line, its working folder, the module's path
 * and file contents, the options): after a module changed, only that module has no record, and
 * the start waits for it alone (the agent takes commands, flags and shortcuts only while the
 * factory runs). What the host cannot see (a module's imports, its environment) is checked when
 * each module arrives: what a module registers differently is taken as far as the agent takes it
 * then, the rest named in one warning, and the record rewritten (src/extension/mirror.ts `#arrive`).
 *
 * Records live in a folder of the host's transform cache (`transformCacheDir`, the same private
 * folder: hooks never see it), one small JSON file per module, written atomically, checked with
 * the manifest schema when read, bounded as the transform cache is (`boundFolder`: the least
 * recently read or written first out, past `START_RECORD_BYTES` in total). `transformCacheDir: false` keeps none.
 */
import { createHash } from "node:crypto";
import { readFile, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { manifestSchema, type Manifest } from "../contract/protocol.js";
import { writeFileAtomic } from "../gates/atomic-write.js";
import { boundFolder, defaultTransformCacheDir, markUsed, privateDir } from "../gates/private-dir.js";
import type { LoadOptions } from "../runner/loader.js";

/** Bumped when the record's format or what it means changes: old records then miss. */
const FORMAT = "hookbox-start-2";
const recordSchema = z.union([
  z.strictObject({ format: z.literal(FORMAT), manifest: manifestSchema }),
  // The module did not load (or was refused) at the previous start: the next one waits for it, so a failure that stays is reported at the agent's start.
  z.strictObject({ format: z.literal(FORMAT), unloaded: z.literal(true) }),
]);
/** What a start records of a module: what it registered, that it did not load, or nothing (its record removed). */
export type StartRecord = Manifest | typeof UNLOADED | undefined;
export const UNLOADED = "unloaded";
/**
 * The bound of the records' folder, in bytes. A record is about 0.1-1 KB per module, so this keeps
 * the modules of a few hundred sets (every project and option set a user starts the agent with)
 * and still scans in a few milliseconds when a record is written.
 */
export const START_RECORD_BYTES = 512 * 1024;
const RECORD = /^[0-9a-f]{64}\.json$/;
const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

/** Where each module's start record is (in `paths`' order), or undefined when the options keep no cache or a module cannot be read. */
export async function startRecordFiles(paths: readonly string[], cwd: string, line: string, options: LoadOptions): Promise<string[] | undefined> {
  if (options.transformCacheDir === false) return undefined;
  const dir = join(options.transformCacheDir ?? defaultTransformCacheDir(), "starts");
  if (!privateDir(dir)) return undefined;
  let contents: string[];
  try {
    contents = await Promise.all(paths.map(async (p) => sha256(await readFile(p))));
  } catch {
    return undefined;
  }
  // JSON keeps the options' data (functions, such as onLog, shape no registration).
  const shared = JSON.stringify([FORMAT, line, cwd, options]);
  return paths.map((p, i) => join(dir, `${sha256(JSON.stringify([shared, p, contents[i]]))}.json`));
}

/** What a module registered at the previous start, as recorded, or `UNLOADED` when it did not load then; undefined when there is no sound record. */
export async function readStart(file: string): Promise<StartRecord> {
  try {
    const parsed = recordSchema.safeParse(JSON.parse(await readFile(file, "utf8")));
    if (!parsed.success) return undefined;
    markUsed(file);
    return "manifest" in parsed.data ? parsed.data.manifest : UNLOADED;
  } catch {
    return undefined;
  }
}

/** Record what each module registered, or that it did not load (`UNLOADED`); undefined removes its record. Then bound the folder. */
export async function writeStarts(files: readonly string[], records: readonly StartRecord[]): Promise<void> {
  await Promise.all(files.map((file, i) => writeOne(file, records[i])));
  await boundFolder(dirname(files[0] ?? "."), RECORD, START_RECORD_BYTES);
}

/**
 * `writeStarts` once the modules loaded, for the record files a start named (`files`, from each
 * module's contents then) and `again` (the same names from the contents now): a module whose file
 * changed since its record was named is recorded under neither (its record removed), since what
 * loaded may be either version, and a record is only ever what the named contents did.
 */
export async function writeStartsAfterLoad(files: readonly string[], again: () => Promise<readonly string[] | undefined>, records: readonly StartRecord[]): Promise<void> {
  const now = await again();
  await writeStarts(files, records.map((record, i) => (now?.[i] === files[i] ? record : undefined)));
}

async function writeOne(file: string, record: StartRecord): Promise<void> {
  if (record === undefined) {
    await unlink(file).catch(() => {});
    return;
  }
  // A record that cannot be written is a miss at the next start.
  await writeFileAtomic(file, JSON.stringify(record === UNLOADED ? { format: FORMAT, unloaded: true } : { format: FORMAT, manifest: record })).catch(() => {});
}

/** Whether a module registered what its record says (the same events, counts, tools, commands, flags, shortcuts, renderers). */
export function sameManifest(a: Manifest, b: Manifest): boolean {
  return isDeepStrictEqual(a, b);
}
