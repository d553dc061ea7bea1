/** Path resolution as the original's `resolvePath` / `expandPath` do it; real paths, and whether a path lies in a folder once links are followed; walks up a path that always ends; the folders of hookbox's own dependencies. */
import { existsSync, lstatSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve, win32 } from "node:path";
import { fileURLToPath } from "node:url";
import { inside } from "../gates/inside.js";

const INTERNAL_SCHEMES = /^(agent|artifact|skill|rule|local|mcp):\/\//;
const UNICODE_SPACES = /[\u00a0\u2000-\u200a\u202f\u205f\u3000]/g;

/** Strip a leading `@` only before `/`, `~`, a win32 absolute path or an internal URL scheme. */
function normalizeAtPrefix(p: string): string {
  if (!p.startsWith("@")) return p;
  const rest = p.slice(1);
  if (rest.startsWith("/") || rest.startsWith("~") || win32.isAbsolute(rest) || INTERNAL_SCHEMES.test(rest)) return rest;
  return p;
}

export function expandPath(filePath: string, home: string = homedir()): string {
  let p = normalizeAtPrefix(filePath).replace(UNICODE_SPACES, " ");
  if (p.startsWith("file://")) p = fileURLToPath(p);
  if (p === "~") return home;
  if (p.startsWith("~/") || p.startsWith("~\\")) return join(home, p.slice(2));
  if (p.startsWith("~")) return join(home, p.slice(1));
  return p;
}

/** Absolute as is, `~` expanded, relative against `cwd`. */
export function resolvePath(filePath: string, cwd: string, home?: string): string {
  const expanded = expandPath(filePath, home);
  return isAbsolute(expanded) ? expanded : resolve(cwd, expanded);
}

/**
 * `dir` and every folder above it, ending at the root. Why the stop is `dirname(d) === d`: that is
 * the root of an absolute path and `.` of a relative one, so no walk can loop (under Bun,
 * `require.resolve("undici")` is the bare built-in name, whose dirname is `.` for ever).
 */
export function* ancestors(dir: string): Generator<string> {
  for (let d = dir; ; d = dirname(d)) {
    yield d;
    if (dirname(d) === d) return;
  }
}

/** The worktree's root of `cwd`: the nearest folder up from it holding `.git` (a folder, or a worktree's file), else undefined. */
export function gitRoot(cwd: string): string | undefined {
  for (const d of ancestors(cwd)) if (existsSync(join(d, ".git"))) return d;
  return undefined;
}

const require = createRequire(import.meta.url);
/**
 * The folder of installed package `name` (as hookbox resolves it), or undefined. By its
 * `package.json` where the package exports it; else up from its entry file to
 * `node_modules/<name>`, only when that entry is a real absolute path (not a runtime's built-in).
 */
export function dependencyDir(name: string): string | undefined {
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch { /* not exported: by its entry file */ }
  let entry: string;
  try {
    entry = require.resolve(name);
  } catch {
    return undefined;
  }
  if (!isAbsolute(entry)) return undefined;
  for (const dir of ancestors(dirname(entry))) if (dir.endsWith(`/node_modules/${name}`)) return dir;
  return undefined;
}

/** `dependencyDir` for a dependency hookbox cannot run without: missing, it is a broken install, said at import. */
export function requiredDependencyDir(name: string): string {
  const dir = dependencyDir(name);
  if (!dir) throw new Error(`hookbox: its dependency "${name}" is not installed where it can be found (reinstall hookbox)`);
  return dir;
}

/**
 * The real path of `path`, or undefined when it does not exist. Why `lstat` first and the native
 * `realpath`: most paths asked about do not exist (the `node_modules` and `package.json` above a
 * module), and a throw per missing path, or an `lstat` per component in JavaScript, cost the
 * grants of every module a start loads more than the rest of them.
 */
export function realOrUndefined(path: string): string | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) === undefined ? undefined : realpathSync.native(path);
  } catch {
    return undefined;
  }
}

const thisTurn = new Map<string, string | undefined>();
/**
 * `realOrUndefined`, asked of the file system once per path in one turn of the event loop. Why:
 * the modules of one start compute their grants in one turn (src/isolation/launch.ts), and each
 * resolved the same folders again: hookbox's runtime folders, and the `node_modules` above every
 * module of one install (20 modules: about 600 `lstat` and `realpath` calls on the host's thread
 * before any hook thread started, for 80 distinct paths). Why only one turn: nothing of hookbox
 * runs between two of its answers, so a module is granted what the file system said while its
 * start was computed, as before; the next turn asks again.
 */
export function realThisTurn(path: string): string | undefined {
  if (thisTurn.has(path)) return thisTurn.get(path);
  if (thisTurn.size === 0) setImmediate(() => thisTurn.clear()).unref();
  const real = realOrUndefined(path);
  thisTurn.set(path, real);
  return real;
}

/**
 * The real path of `path` (relative to the working folder, links followed); when it does not
 * exist, the real path of its nearest folder that does, with the rest as written: a missing file
 * below a link out of a folder lies where the link leads (`/p/out/new`, `out` a link to `/etc`, is
 * `/etc/new`). Why a `..` below the missing part is taken lexically: nothing is there to follow.
 */
export function realOrLexical(path: string): string {
  const absolute = isAbsolute(path) ? path : `${process.cwd()}/${path}`;
  const real = realThisTurn(absolute);
  if (real !== undefined) return real;
  const rest: string[] = [];
  for (let d = resolve(absolute); ; d = dirname(d)) {
    const found = d === absolute ? undefined : realThisTurn(d);
    if (found !== undefined) return join(found, ...rest);
    if (dirname(d) === d) return resolve(absolute);
    rest.unshift(basename(d));
  }
}

/**
 * Whether `path` is `folder` or lies under it once links are followed on both sides: the check
 * for a path that could reach out of a folder through a link (`/p/link` to `/etc` is not in
 * `/p`), or into one under another name (a granted link to the temporary folder holds what the
 * temporary folder holds). Lexically: ../gates/inside.ts.
 */
export function insideResolved(folder: string, path: string): boolean {
  return inside(realOrLexical(folder), realOrLexical(path));
}
