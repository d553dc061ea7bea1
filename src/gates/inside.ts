/**
 * Whether a path is a folder or lies under it: the one definition of every "is this path in that
 * folder" of hookbox (grants, pins, link walks, sandbox binds and masks, the paths a shell word
 * names, a path shown from a folder). Both are compared normalized (`.` and `..` segments
 * resolved, repeated and trailing slashes dropped): `/p/a/../../etc` is not in `/p`, `/p/..x` is,
 * `/pa` is not, and `/` holds every absolute path. Two relative paths are compared as relative to
 * the same folder (`..` leaves it). Links are not followed: a caller for whom they matter passes
 * real paths (src/policy/paths.ts `insideResolved` does both sides).
 */
import { posix } from "node:path";

const normal = (path: string) => posix.normalize(path).replace(/(.)\/+$/, "$1");

/**
 * The part of `path` below `folder`, relative and normalized (`""` for the folder itself), or
 * undefined when `path` does not lie in `folder`. Where a folder shows under another name (a link,
 * a bind at its own name), `join(name, below(real, path))` is where `path` shows.
 */
export function below(folder: string, path: string): string | undefined {
  const f = normal(folder);
  const p = normal(path);
  if (p === f) return "";
  if (f === ".") return p === ".." || p.startsWith("../") || p.startsWith("/") ? undefined : p;
  const prefix = f === "/" ? "/" : `${f}/`;
  return p.startsWith(prefix) ? p.slice(prefix.length) : undefined;
}

/** Whether `path` is `folder` or lies under it. */
export function inside(folder: string, path: string): boolean {
  return below(folder, path) !== undefined;
}

/** Whether `path` lies under `folder`, the folder itself excluded. */
export function strictlyInside(folder: string, path: string): boolean {
  return Boolean(below(folder, path));
}
