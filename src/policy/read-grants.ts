/**
 * What a hook may read from its package roots and its import graph, so a symbolic link never
 * widens it. The roots (the hook's folder and every `node_modules` above it) are granted whole;
 * the graph is granted file by file after `realpath`, and a package folder is never granted
 * because it has a `package.json`: a package is readable when its real folder lies inside the
 * roots (or what is readable anyway: hookbox's runtime, `policy.fsRead`), and refused otherwise.
 *
 * Why the roots are walked for links: Node's permission model grants a folder as a path prefix
 * and the kernel follows a symbolic link under it wherever it points (measured on Node 20: a
 * `node_modules/pkg -> /elsewhere` link made `/elsewhere/secret.key` readable). So a link under a
 * root whose target leaves every readable area fails the load (`load_failed`, naming the link and
 * its target); the user grants the target explicitly with `policy.fsRead`. The sandbox needs no
 * walk (a link there leads to what is bound, nothing else), only the graph check. A confined hook
 * cannot plant a link after the walk: the permission model refuses `symlink` and `link`.
 */
import { lstatSync, readdirSync, readlinkSync } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import { ancestors, realOrUndefined } from "./paths.js";
import { importGraph, type GraphPath } from "./import-graph.js";

/** Entries walked under a hook's roots before the walk gives up (and the load fails, closed). */
export const MAX_ROOT_ENTRIES = 100_000;

/**
 * How long what a walk found under one root folder (its links and where they lead, its entry
 * count) is trusted. Why a cache: `loadHooks` starts its hooks together, and hooks share roots:
 * those of one folder all of them, those of different folders every `node_modules` above both (a
 * project's `.pi/extensions` and a package's examples under the same install). Why per root and
 * not per set of roots: a module in a second folder walks only its own folder again. Why facts and
 * not verdicts: each hook's readable areas differ (`policy.fsRead`), so every link found is judged
 * again for each hook. Why it is safe for this long: a confined hook cannot create a link (see
 * above), a trusted one can read everything anyway, and hookbox itself creates none; what another
 * process links in later is found by the next walk.
 */
const WALK_CACHE_MS = 2_000;

/** What one walk of a root found: its links (as named, and where each leads) and how many entries it holds. */
interface RootWalk {
  at: number;
  entries: number;
  links: GraphPath[];
}
const walked = new Map<string, RootWalk>();

/** A read the gate refuses: the loader reports it as `load_failed` with this message. */
export class ReadRefusal extends Error {
  override name = "ReadRefusal";
}

export interface ReadGrantOptions {
  /** Paths readable anyway (hookbox's runtime, `policy.fsRead`): a link into them opens nothing new. */
  readable: string[];
  /** Walk the roots for links that leave them (Node's permission model: worker and process modes). */
  walkRoots: boolean;
}

/** Folders a path may import from: its own folder and every `node_modules` above it. */
export function importRoots(resolvedPath: string): string[] {
  // Every folder above but the root itself.
  const above = [...ancestors(dirname(resolvedPath))].filter((dir) => dirname(dir) !== dir);
  return [dirname(resolvedPath), ...above.map((dir) => join(dir, "node_modules"))];
}

/**
 * The paths to grant (or bind) for the hook at `resolvedPath`: its existing roots as named, then
 * the real module files and scope manifests of its import graph. Throws `ReadRefusal` for a link
 * that leaves the readable areas.
 */
export function hookReads(resolvedPath: string, options: ReadGrantOptions): string[] {
  const roots = existingRoots(resolvedPath);
  const areas = [...roots.map((r) => r.real), ...options.readable.map((p) => realOrUndefined(resolve(p)) ?? resolve(p))];
  const within = (p: string) => areas.some((a) => inside(p, a));
  const graph = importGraph(resolvedPath);
  const grants = roots.map((r) => r.lexical);
  for (const file of graph.files) {
    if (file.real !== file.lexical && !within(file.real)) throw leaves(file, `the hook's import of ${file.lexical}`);
    grants.push(file.real);
  }
  for (const manifest of graph.manifests) {
    if (manifest.real !== manifest.lexical && !within(manifest.real)) throw leaves(manifest, `the package scope lookup of ${manifest.lexical}`);
    grants.push(manifest.lexical);
  }
  for (const pkg of graph.packages) {
    if (within(pkg.real)) continue;
    if (pkg.real !== pkg.lexical) throw leaves(pkg, `the hook's import "${pkg.specifier}"`);
    throw new ReadRefusal(`the hook's import "${pkg.specifier}" is the package ${pkg.real}, outside the hook's package roots (its folder and the node_modules folders above it); ` +
      `a package folder is never granted because it has a package.json: grant it explicitly with policy.fsRead (fsRead: [${JSON.stringify(pkg.real)}]) if the hook may read it`);
  }
  if (options.walkRoots) walkForLinks(roots.map((r) => r.real), within);
  return grants;
}

/**
 * The roots that exist, as named and as they are. A `node_modules` root that is itself a link is
 * followed only to a folder named `node_modules` (a shared or relocated install); anything else
 * (`hooks/node_modules -> ~`) is refused.
 */
function existingRoots(resolvedPath: string): GraphPath[] {
  const own = dirname(resolvedPath);
  const out: GraphPath[] = [];
  for (const lexical of importRoots(resolvedPath)) {
    const real = realOrUndefined(lexical);
    if (!real) continue;
    if (lexical !== own && real !== lexical && basename(real) !== "node_modules") throw leaves({ lexical, real }, "the hook's package root");
    out.push({ lexical, real });
  }
  return out;
}

/** Every link under `roots` must lead into an area `within` accepts; a dangling one is judged by where it would lead. */
function walkForLinks(roots: string[], within: (p: string) => boolean): void {
  const unique = [...new Set(roots)];
  const now = Date.now();
  const walks = unique.filter((r) => !unique.some((o) => o !== r && inside(r, o))).map((root) => {
    const fresh = walked.get(root);
    if (fresh && fresh.at > now - WALK_CACHE_MS) return fresh;
    const walk = walkRoot(root, now);
    if (walked.size >= 256) walked.clear();
    walked.set(root, walk);
    return walk;
  });
  if (walks.reduce((sum, w) => sum + w.entries, 0) > MAX_ROOT_ENTRIES) {
    throw new ReadRefusal(`the hook's package roots (its folder and the node_modules folders above it) hold more than ${MAX_ROOT_ENTRIES} entries, ` +
      `too many to check for symbolic links leading out of them (Node's permission model follows them): put the hook in a folder of its own, or run it with isolation "sandbox"`);
  }
  for (const walk of walks) {
    for (const link of walk.links) if (!within(link.real)) throw leaves(link, "a file in the hook's package roots");
  }
}

/** The links under `root` and its entry count; stops counting past `MAX_ROOT_ENTRIES` (the load then fails). */
function walkRoot(root: string, at: number): RootWalk {
  const links: GraphPath[] = [];
  const stack = [root];
  let entries = 0;
  while (stack.length > 0 && entries <= MAX_ROOT_ENTRIES) {
    const dir = stack.pop()!;
    let names;
    try {
      names = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    entries += names.length;
    // Why not join(): `dir` is a real absolute path and a name has no slash, so nothing needs normalizing (join was a fifth of the walk).
    const prefix = dir.endsWith("/") ? dir : `${dir}/`;
    for (const entry of names) {
      if (entry.isDirectory()) stack.push(prefix + entry.name);
      else if (entry.isSymbolicLink()) {
        const path = prefix + entry.name;
        links.push({ lexical: path, real: realOrUndefined(path) ?? resolve(dir, readlinkSync(path)) });
      }
    }
  }
  return { at, entries, links };
}

/** The refusal for `path`, naming the first link on it and where that link leads. */
function leaves(path: GraphPath, what: string): ReadRefusal {
  const link = firstLink(path.lexical) ?? path.lexical;
  const target = realOrUndefined(link) ?? path.real;
  return new ReadRefusal(`${what} goes through the symbolic link ${link} -> ${target}, which leads outside the hook's package roots ` +
    `(its folder and the node_modules folders above it); a link is never followed out of them: grant the target explicitly with policy.fsRead (fsRead: [${JSON.stringify(target)}]) if the hook may read it`);
}

function firstLink(path: string): string | undefined {
  const parts = path.split(sep);
  for (let i = 2; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join(sep);
    try {
      if (lstatSync(prefix).isSymbolicLink()) return prefix;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Whether `path` is `area` or below it. */
/** Whether `path` is `area` or lies under it (both real, absolute). */
export function inside(path: string, area: string): boolean {
  const a = area.replace(/\/+$/, "");
  return a === "" || path === a || path.startsWith(`${a}/`);
}

/** The real path of a path, or undefined when it does not exist (./paths.ts). */
export { realOrUndefined };
