/**
 * Names git or an agent takes up from whatever folder holds them, at any depth: a folder it runs
 * code from (`.git`, `.claude`, `.pi`, … NEVER_WRITABLE), a file it reads as the model's
 * instructions (CLAUDE.md, AGENTS.md, GEMINI.md…), a bare repository's HEAD. A folder hookbox
 * opens for writing (a `write:` grant) never gets one: what exists is bound read-only over itself
 * before the hook runs, what the hook made is removed after it ended, and the run fails
 * (src/claude/granted.ts; pi and oh-my-pi modules: src/isolation/bubblewrap/sandbox-spec.ts and
 * src/isolation/planted-guard.ts). `takenUp` is the one rule; `takenUpEntries` the one bounded
 * walk; `removePlanted` the one removal.
 */
import { lstatSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { join } from "node:path";

/** Folders and files git or an agent runs code from (a git hook or config, a settings file, an extension, an MCP server, direnv's script). */
export const NEVER_WRITABLE = [".git", ".claude", ".pi", ".omp", ".xcsh", ".codex", ".gemini", ".opencode", ".vscode", ".idea", ".husky", ".hookbox", ".envrc", ".mcp.json", ".direnv"];

/**
 * Files an agent reads as instructions from the folder of a file the model reads (Claude Code's
 * nested CLAUDE.md and CLAUDE.local.md; Codex's AGENTS.md and AGENTS.override.md; pi's, oh-my-pi's
 * and opencode's AGENTS.md; Gemini CLI's GEMINI.md), and HEAD: git takes a folder holding HEAD,
 * objects/ and refs/ for a bare repository and runs what its config names.
 */
export const AGENT_READS = ["CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENTS.override.md", "GEMINI.md", "HEAD"];

const TAKEN_UP = new Set([...NEVER_WRITABLE, ...AGENT_READS]);

/** The first part of `rel` (a relative path, `/`-separated) that git or an agent takes up, if any. */
export function takenUp(rel: string): string | undefined {
  return rel.split("/").find((part) => TAKEN_UP.has(part));
}

/** How many entries one walk of a granted folder reads before it gives up (the run fails: grant a smaller folder). */
export const WALK_BOUND = 20_000;

/** A granted folder holding more than the walk's bound. */
export class WalkTooLarge extends Error {
  override name = "WalkTooLarge";
  constructor(readonly folder: string, readonly bound: number) {
    super(`${folder} holds more than ${bound} entries, which hookbox reads before and after each run for names git or an agent takes up (.git, .claude, CLAUDE.md…); grant a smaller folder`);
  }
}

/**
 * Every entry below `folder` (relative, `/`-separated) whose name `takenUp` names, each with its
 * identity (device and inode; a link's target): the walk does not enter one, nor follow a link. Throws WalkTooLarge
 * once it has read more than `bound` entries.
 */
export function takenUpEntries(folder: string, bound = WALK_BOUND): Map<string, string> {
  const found = new Map<string, string>();
  const pending = [""];
  let read = 0;
  while (pending.length > 0) {
    const rel = pending.pop()!;
    let entries;
    try {
      entries = readdirSync(join(folder, rel), { withFileTypes: true });
    } catch {
      continue; // gone or unreadable: nothing of it is shown to an agent by hookbox either
    }
    for (const e of entries) {
      if (++read > bound) throw new WalkTooLarge(folder, bound);
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (TAKEN_UP.has(e.name)) {
        const st = lstatSync(join(folder, path), { throwIfNoEntry: false, bigint: true });
        // Why a link's target too: a link is not bound read-only (src/claude/granted.ts), so one replaced may reuse the inode.
        if (st) found.set(path, `${st.dev}:${st.ino}${st.isSymbolicLink() ? `>${linkText(join(folder, path))}` : ""}`);
      } else if (e.isDirectory()) pending.push(path);
    }
  }
  return found;
}

const linkText = (path: string) => { try { return readlinkSync(path); } catch { return ""; } };

/** What `after` holds that `before` did not: a new path, or a known one now another entry (replaced). */
export function plantedSince(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  const known = new Set(before.values());
  return [...after].filter(([path, id]) => before.get(path) !== id && !known.has(id)).map(([path]) => path).sort();
}

/** How a removal is made: `paths` (absolute, inside `folder`) removed, with whatever power the caller can confine it to. */
export type Remover = (folder: string, paths: readonly string[]) => void;

/** How many times what is still there after a removal is looked for and removed again (a link swapped in above it moved it). */
const REMOVE_ROUNDS = 3;

/**
 * Remove what `folder` holds under those names that `before` (its walk before the run) did not,
 * with `remove`; the paths it found (relative to `folder`) and those still there after every round
 * (`left`). Over the bound, walked whole (what the hook made must not stay) and `tooLarge` says so.
 * Why rounds: a hook running beside the removal (another of the project's, another run of this one)
 * can move a planted entry by swapping a link in above it; a confined `remove` then fails on it,
 * and the next walk finds it where it went.
 */
export function removePlanted(folder: string, before: ReadonlyMap<string, string>, remove: Remover): { removed: string[]; left: string[]; tooLarge?: WalkTooLarge } {
  let tooLarge: WalkTooLarge | undefined;
  const walk = () => {
    try {
      return takenUpEntries(folder);
    } catch (err) {
      if (!(err instanceof WalkTooLarge)) throw err;
      tooLarge ??= err;
      return takenUpEntries(folder, Infinity);
    }
  };
  const removed = plantedSince(before, walk());
  let left = removed;
  for (let round = 0; round < REMOVE_ROUNDS && left.length > 0; round++) {
    remove(folder, left.map((rel) => join(folder, rel)));
    left = plantedSince(before, walk());
  }
  return tooLarge ? { removed, left, tooLarge } : { removed, left };
}

/**
 * `removePlanted` over every granted folder of one run (`before`: each folder's walk before it), the
 * paths absolute; `tooLarge`, the first folder found over the walk's bound.
 */
export function removePlantedIn(before: ReadonlyMap<string, ReadonlyMap<string, string>>, remove: Remover): { removed: string[]; left: string[]; tooLarge?: WalkTooLarge } {
  const removed: string[] = [];
  const left: string[] = [];
  let tooLarge: WalkTooLarge | undefined;
  for (const [folder, known] of before) {
    const done = removePlanted(folder, known, remove);
    removed.push(...done.removed.map((rel) => join(folder, rel)));
    left.push(...done.left.map((rel) => join(folder, rel)));
    tooLarge ??= done.tooLarge;
  }
  return tooLarge ? { removed, left, tooLarge } : { removed, left };
}

/** What a sandbox binds read-only over itself of `folder`'s walk: each entry but a link (bwrap would bind what it points to; one replaced is new, and removed after). */
export function readOnlyEntries(folder: string, taken: ReadonlyMap<string, string>): string[] {
  return [...taken.keys()].map((rel) => join(folder, rel)).filter((path) => lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === false);
}

/**
 * The removal where no sandbox can be made (process or worker isolation without bubblewrap): each
 * path removed only while every folder above it, up to `folder`, is a folder and not a link. A link
 * swapped in between that check and the removal is not seen.
 */
export const removeUnconfined: Remover = (folder, paths) => {
  for (const path of paths) {
    const rel = path.slice(folder.length + 1).split("/");
    let at = folder;
    const plain = rel.slice(0, -1).every((part) => lstatSync((at = join(at, part)), { throwIfNoEntry: false })?.isDirectory() === true);
    if (plain) rmSync(path, { recursive: true, force: true });
  }
};
