/**
 * Where `isolate()`'s relative module paths resolve: the folder of the file that calls `isolate()`
 * (an agent loads `isolated.ts` from anywhere: `pi -e ../isolated.ts` from a subfolder must find
 * the guard beside it, not in the agent's working folder). The caller is found from the call stack
 * (V8's and Bun's structured call sites; jiti evaluates a module under its own file name); an
 * explicit `base` (`import.meta.url`, `__filename` or a folder) wins, and when neither names a
 * file (a REPL, an eval) the working folder is the fallback.
 */
import { statSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { resolvePath } from "../policy/paths.js";

/** The file of the function that called `callee`, or undefined when the stack names none. */
export function callerFile(callee: Function): string | undefined {
  const prepare = Error.prepareStackTrace;
  const limit = Error.stackTraceLimit;
  try {
    // Why a structured stack: parsing `err.stack` text breaks on paths with parentheses or colons.
    Error.prepareStackTrace = (_err, sites) => sites;
    Error.stackTraceLimit = 1;
    const holder: { stack?: unknown } = {};
    Error.captureStackTrace(holder, callee);
    const site = Array.isArray(holder.stack) ? (holder.stack[0] as NodeJS.CallSite | undefined) : undefined;
    return asFile(site?.getFileName?.() ?? undefined);
  } catch {
    return undefined;
  } finally {
    Error.prepareStackTrace = prepare;
    Error.stackTraceLimit = limit;
  }
}

/** A path or a file: URL as an absolute path; undefined for anything else (node:internal, data:, eval). */
function asFile(name: string | URL | undefined): string | undefined {
  if (name === undefined || name === "") return undefined;
  if (name instanceof URL || name.startsWith("file:")) {
    try { return fileURLToPath(name); } catch { return undefined; }
  }
  return name.startsWith("/") || /^[A-Za-z]:[\\/]/.test(name) ? name : undefined;
}

/**
 * The folder relative paths resolve against: `base` (a file: URL or path of a file, whose folder is
 * used, or a folder), else the folder of `caller`, else `cwd`. Throws a TypeError for a `base` that
 * is neither a path nor a file: URL.
 */
export function baseFolder(base: unknown, caller: string | undefined, cwd: string): string {
  if (base === undefined) return caller === undefined ? cwd : dirname(caller);
  const file = typeof base === "string" && !base.startsWith("file:") ? resolvePath(base, cwd) : asFile(base instanceof URL || typeof base === "string" ? base : undefined);
  if (file === undefined) throw new TypeError(`option "base" must be a path or a file: URL (import.meta.url), got ${typeof base === "string" ? JSON.stringify(base.slice(0, 80)) : typeof base}`);
  return isFolder(file) ? file : dirname(file);
}

function isFolder(path: string): boolean {
  try { return statSync(path).isDirectory(); } catch { return false; }
}

/** A module given to `isolate()`: a path (relative: against `folder`; `~`: home) or a file: URL. */
export function modulePath(given: string | URL, folder: string): string {
  return given instanceof URL ? fileURLToPath(given) : resolvePath(given, folder);
}
