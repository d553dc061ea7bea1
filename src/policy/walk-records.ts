/**
 * What the link walk (./link-walk.ts) found, remembered across starts in `factsDir`, a folder of
 * the host's private transform cache:
 * - Which roots were too large (`large/`), each by its real path, device, inode and modification
 *   time: walking 100 000 entries to find the bound again cost ~100 ms at every start. Why a stale
 *   record is safe: a root it names is granted package by package, never wider than whole; and a
 *   package added to or removed from the root changes its modification time, so it is walked again.
 * - What a walk of a folder found (`walked/`): its links and entry count, with the inode,
 *   modification and change times of every folder under it. The next start checks each folder's
 *   times (an `lstat` each, a fifth of a `readdir` with its entries: pi's own `node_modules` of
 *   21 000 entries cost ~25 ms of the host's thread to walk, before any hook thread started) and
 *   walks again if one differs. Why that is sound: an entry (a link) added, removed or renamed in a
 *   folder changes that folder's modification and change times (a change time cannot be set back),
 *   and a link's target cannot change in place (it is replaced, which is an entry changed); the
 *   targets are resolved again at every start. Why a walk is kept only when every folder's
 *   modification time is older than `RACY_MS` before it began: a folder changed in the same clock
 *   tick as its read would keep the time recorded.
 */
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { realOrUndefined } from "./paths.js";
import { writeFileAtomicSync } from "../gates/atomic-write.js";
import type { GraphPath } from "./import-graph.js";

/** How much older than a walk every folder it read must be for the walk to be remembered (file systems stamp times per tick, up to 2 s). */
const RACY_MS = 3_000;
/** Bumped when a remembered walk's format changes: old records then miss. */
const WALKED_FORMAT = 1;

/** What one walk of a folder found: its links (as named, and where each leads), its entry count, and whether it stopped at the bound. */
export interface FolderWalk {
  at: number;
  entries: number;
  links: GraphPath[];
  over: boolean;
}

/** Each folder a walk read, relative to its root, with its inode, modification and change times. */
export type WalkedFolders = Array<[string, number, number, number]>;

/** What identifies a root's state: a package added or removed at its top changes its modification time. */
function rootState(dir: string): string | undefined {
  const st = statOrUndefined(dir);
  return st && JSON.stringify({ dir, dev: st.dev, ino: st.ino, mtimeMs: st.mtimeMs });
}

const recordOf = (factsDir: string, dir: string) => join(factsDir, `${createHash("sha256").update(dir).digest("hex").slice(0, 32)}.json`);

export function rememberedLarge(factsDir: string | undefined, dir: string): boolean {
  if (!factsDir) return false;
  try {
    return readFileSync(recordOf(factsDir, dir), "utf8") === rootState(dir);
  } catch {
    return false;
  }
}

/** Best effort: a record that cannot be written only means the root is walked to the bound again next start. */
export function rememberLarge(factsDir: string | undefined, dir: string): void {
  const state = factsDir && rootState(dir);
  if (!factsDir || !state) return;
  remember(factsDir, recordOf(factsDir, dir), state);
}

/** Writes one record of `factsDir`; bounded as the walks kept in memory are: past 256 records (most of them gone), start again. */
function remember(factsDir: string, file: string, data: string): void {
  try {
    mkdirSync(factsDir, { recursive: true, mode: 0o700 });
    const records = readdirSync(factsDir);
    if (records.length >= 256) for (const name of records) rmSync(join(factsDir, name), { force: true });
    writeFileAtomicSync(file, data);
  } catch { /* not remembered */ }
}

/** A remembered walk: the folder, its entry count, its links as named (relative), and each folder under it with its inode, modification and change times. */
interface WalkedRecord { format: number; root: string; entries: number; links: string[]; folders: WalkedFolders }

/** The remembered walk of `dir` when every folder it read is as it was then (its links' targets resolved now); else undefined. */
export function rememberedWalk(walkedDir: string | undefined, dir: string, at: number): FolderWalk | undefined {
  if (!walkedDir) return undefined;
  let record: WalkedRecord;
  try {
    record = JSON.parse(readFileSync(recordOf(walkedDir, dir), "utf8")) as WalkedRecord;
  } catch {
    return undefined;
  }
  if (record?.format !== WALKED_FORMAT || record.root !== dir || !Array.isArray(record.folders) || !Array.isArray(record.links)) return undefined;
  const prefix = dir.endsWith("/") ? dir : `${dir}/`;
  for (const [rel, ino, mtimeMs, ctimeMs] of record.folders) {
    const st = lstatSync(rel === "" ? dir : prefix + rel, { throwIfNoEntry: false });
    if (!st?.isDirectory() || st.ino !== ino || st.mtimeMs !== mtimeMs || st.ctimeMs !== ctimeMs) return undefined;
  }
  const links: GraphPath[] = [];
  for (const rel of record.links) {
    const path = prefix + rel;
    const link = linkAt(path);
    if (!link) return undefined;
    links.push(link);
  }
  return { at, entries: record.entries, links, over: false };
}

/** Keeps a walk of `dir` for the next start, unless a folder it read changed too recently to tell a later change by its times. */
export function rememberWalk(walkedDir: string | undefined, dir: string, walk: FolderWalk, folders: WalkedFolders, began: number): void {
  if (!walkedDir || walk.over || folders.some(([, , mtimeMs]) => mtimeMs > began - RACY_MS)) return;
  const prefix = dir.endsWith("/") ? dir : `${dir}/`;
  const record: WalkedRecord = { format: WALKED_FORMAT, root: dir, entries: walk.entries, links: walk.links.map((l) => l.lexical.slice(prefix.length)), folders };
  remember(walkedDir, recordOf(walkedDir, dir), JSON.stringify(record));
}

/** The link at `path`, as named and where it leads; undefined when it is no longer a link. */
function linkAt(path: string): GraphPath | undefined {
  try {
    return { lexical: path, real: realOrUndefined(path) ?? resolve(dirname(path), readlinkSync(path)) };
  } catch {
    return undefined;
  }
}


function statOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
