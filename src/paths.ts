/** Path resolution as the original's `resolvePath` / `expandPath` do it. */
import { homedir } from "node:os";
import { isAbsolute, join, resolve, win32 } from "node:path";
import { fileURLToPath } from "node:url";

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
