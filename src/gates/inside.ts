/**
 * Whether a path is a folder or lies under it: the one definition of every "is this path in that
 * folder" of hookbox (grants, pins, link walks, the paths a shell word names). Both are compared as
 * absolute paths normalized (`.` and `..` segments resolved, repeated and trailing slashes dropped):
 * `/p/a/../../etc` is not in `/p`, `/p/..x` is, and `/` holds every absolute path. Links are not
 * followed: a caller for whom they matter passes real paths.
 */
import { posix } from "node:path";

const normal = (path: string) => posix.normalize(path).replace(/\/+$/, "");

/** Whether `path` is `folder` or lies under it. */
export function inside(folder: string, path: string): boolean {
  const f = normal(folder);
  const p = normal(path);
  return f === "" || p === f || p.startsWith(`${f}/`);
}

/** Whether `path` lies under `folder`, the folder itself excluded. */
export function strictlyInside(folder: string, path: string): boolean {
  return inside(folder, path) && normal(path) !== normal(folder);
}
