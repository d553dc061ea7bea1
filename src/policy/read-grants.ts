/**
 * What a hook may read from its package roots and its import graph, so a symbolic link never
 * widens it. The roots (the hook's folder and every `node_modules` above it) are granted whole
 * (a `node_modules` too large to walk: package by package, ./link-walk.ts); the graph is granted
 * file by file after `realpath`, and a package folder is never granted
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
import { lstatSync } from "node:fs";
import { basename, dirname, join, sep } from "node:path";
import { ancestors, realOrLexical, realOrUndefined, realThisTurn } from "./paths.js";
import { importGraph, type GraphPath } from "./import-graph.js";
import { inside } from "../gates/inside.js";
import { ReadRefusal, walkGrants } from "./link-walk.js";

export { MAX_ROOT_ENTRIES, ReadRefusal } from "./link-walk.js";

export interface ReadGrantOptions {
  /** Paths readable anyway (hookbox's runtime, `policy.fsRead`): a link into them opens nothing new. */
  readable: string[];
  /** Walk the roots for links that leave them (Node's permission model: worker and process modes). */
  walkRoots: boolean;
  /** Where what the walks found is remembered across starts: the roots too large to walk whole, and each walk's links with the times of the folders it read (a folder of the host's private cache; ./link-walk.ts). */
  factsDir?: string;
  /**
   * An approved module (a project's): only what its approval pins (src/approval/fingerprint.ts),
   * its own folder whole and each package its graph reaches whole, never the rest of the
   * `node_modules` folders above it. Why: a package there that no approval pinned (one it names
   * only when it runs, `import(name)`) would run whatever it holds now.
   */
  pinnedOnly?: boolean;
  /**
   * With `pinnedOnly`, for the sandbox: a package reached through a link (pnpm's
   * `node_modules/<name>` into its store) is returned by its real path alone, and the link is
   * pushed here to be made as a link (a bind at its name would be a folder, from which Node would
   * look for the package's own dependencies where they are not).
   */
  links?: Array<{ target: string; at: string }>;
}

/** Folders a path may import from: its own folder and every `node_modules` above it. */
export function importRoots(resolvedPath: string): string[] {
  // Every folder above but the root itself.
  const above = [...ancestors(dirname(resolvedPath))].filter((dir) => dirname(dir) !== dir);
  return [dirname(resolvedPath), ...above.map((dir) => join(dir, "node_modules"))];
}

/**
 * The paths to grant (or bind) for the hook at `resolvedPath`: its existing roots as named (a
 * root too large to walk: the packages the hook reaches in it, ./link-walk.ts), then the real
 * module files and scope manifests of its import graph. Throws `ReadRefusal` for a link that
 * leaves the readable areas.
 */
export function hookReads(resolvedPath: string, options: ReadGrantOptions): string[] {
  const roots = existingRoots(resolvedPath);
  const readable = options.readable.map(realOrLexical);
  const areas = [...roots.map((r) => r.real), ...readable];
  const within = (p: string) => areas.some((a) => inside(a, p));
  const graph = importGraph(resolvedPath, options.pinnedOnly === true);
  const grants: string[] = [];
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
  if (options.pinnedOnly) {
    const own = dirname(resolvedPath);
    const packages = graph.packages.filter((p) => !inside(own, p.lexical)).flatMap((p) => {
      if (p.lexical === p.real || !options.links) return [p.lexical, p.real];
      if (!options.links.some((l) => l.at === p.lexical)) options.links.push({ target: p.real, at: p.lexical });
      return [p.real];
    });
    return [...new Set([...roots.filter((r) => r.lexical === own).map((r) => r.lexical), ...packages, ...grants])];
  }
  if (!options.walkRoots) return [...roots.map((r) => r.lexical), ...grants];
  const walked = walkGrants(resolvedPath, dirname(resolvedPath), roots, graph.packages, readable, leaves, options.factsDir);
  return [...walked.whole.map((r) => r.lexical), ...walked.reached, ...grants];
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
    const real = realThisTurn(lexical);
    if (!real) continue;
    if (lexical !== own && real !== lexical && basename(real) !== "node_modules") throw leaves({ lexical, real }, "the hook's package root");
    out.push({ lexical, real });
  }
  return out;
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

/** The real path of a path, or undefined when it does not exist (./paths.ts). */
export { realOrUndefined };
