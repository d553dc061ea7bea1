/**
 * The link walk of ./read-grants.ts: what a hook is granted under Node's permission model (worker
 * and process modes) is walked for symbolic links, and no link may lead out of what it may read.
 *
 * A package root (a `node_modules` above the hook) is granted whole and walked whole while it
 * holds at most `MAX_ROOT_ENTRIES` entries. Past that (a large project's `node_modules` holds
 * hundreds of thousands) it is granted package by package instead: the packages the hook's import
 * graph names and, transitively, the dependencies their `package.json` files declare (as Node
 * resolves them from each package's real folder), each walked. A link found in anything walked that
 * leads elsewhere into such a root makes its target reachable through the grant, so the target is
 * granted and walked too; a link that leads out of every root and readable area fails the load as
 * before. So what is walked is exactly what is granted, and the walk costs what the hook can reach,
 * not what the project installed. The hook's own folder is always granted whole: past the bound it
 * fails the load, naming the folder.
 *
 * What the walks found is remembered across starts in `factsDir`, a folder of the host's private
 * transform cache (./walk-records.ts): which roots were too large, and what a walk of a folder
 * found, taken again while every folder it read is unchanged.
 */
import { lstatSync, readdirSync, readlinkSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { realOrUndefined } from "./paths.js";
import { inside } from "../gates/inside.js";
import { dependencyNames, packageFolder, type GraphPath } from "./import-graph.js";
import { rememberedLarge, rememberLarge, rememberedWalk, rememberWalk, type FolderWalk, type WalkedFolders } from "./walk-records.js";

/** Entries walked under one folder (a root, or the packages a hook reaches under a large one) before it stops. */
export const MAX_ROOT_ENTRIES = 100_000;

/**
 * How long what a walk found under one folder (its links and where they lead, its entry count) is
 * trusted. Why a cache: `loadHooks` starts its hooks together, and hooks share roots: those of one
 * folder all of them, those of different folders every `node_modules` above both (a project's
 * `.pi/extensions` and a package's examples under the same install). Why per folder and not per
 * set of roots: a module in a second folder walks only its own folder again. Why facts and not
 * verdicts: each hook's readable areas differ (`policy.fsRead`), so every link found is judged
 * again for each hook. Why it is safe for this long: a confined hook cannot create a link (see
 * ./read-grants.ts), a trusted one can read everything anyway, and hookbox itself creates none;
 * what another process links in later is found by the next walk.
 */
const WALK_CACHE_MS = 2_000;

const walked = new Map<string, FolderWalk>();

/**
 * The areas (joined) each walk's links were all found to lead into. Why: the modules of one start
 * share their roots (every example of one folder, every module under one `node_modules`), so each
 * judged the same links against the same areas again (20 modules: 2 800 path comparisons on the
 * host's thread before any hook thread started). A verdict is a function of the walk's links and
 * the areas only, and lives as long as the walk it judged.
 */
const judged = new WeakMap<FolderWalk, Set<string>>();

/** A read the gate refuses: the loader reports it as `load_failed` with this message. */
export class ReadRefusal extends Error {
  override name = "ReadRefusal";
}

/** What the walk lets the hook read: roots granted whole, and folders and files granted one by one under the large ones. */
export interface WalkedReads {
  whole: GraphPath[];
  /** Real folders (with a trailing `/`, so a folder named `chart.js` is not granted as a file) and files under a large root. */
  reached: string[];
}

/**
 * Walk what `roots` grant, judging each link with `leaves` (which throws) when it leads out of the
 * roots and the readable areas. `own`: the hook's folder, never granted package by package.
 * `packages`: the packages its import graph names, where the grant of a large root starts.
 */
export function walkGrants(hookPath: string, own: string, roots: GraphPath[], packages: GraphPath[], readable: string[],
  leaves: (path: GraphPath, what: string) => Error, factsDir?: string): WalkedReads {
  const now = Date.now();
  const largeDir = factsDir && join(factsDir, "large");
  const walkedDir = factsDir && join(factsDir, "walked");
  const large = new Set(roots.filter((r) => r.lexical !== own && basename(r.lexical) === "node_modules" && rememberedLarge(largeDir, r.real)).map((r) => r.real));
  let whole = roots.filter((r) => !large.has(r.real));
  let units: FolderWalk[];
  for (;;) {
    const outer = outermost(whole.map((r) => r.real));
    units = outer.map((dir) => walkOf(dir, now, MAX_ROOT_ENTRIES, walkedDir));
    const over = outer.filter((_, i) => units[i]!.over);
    if (over.length === 0) break;
    for (const dir of over) {
      const root = whole.find((r) => r.real === dir)!;
      if (root.lexical === own || basename(root.lexical) !== "node_modules") throw ownFolderTooLarge(hookPath, root.lexical);
      large.add(dir);
      rememberLarge(largeDir, dir);
    }
    whole = roots.filter((r) => !large.has(r.real));
  }
  const wholeReal = whole.map((r) => r.real);
  const covered = (p: string, more: string[]) => [...wholeReal, ...more].some((a) => inside(a, p));
  const inLarge = (p: string) => [...large].some((r) => inside(r, p));
  const links = units.flatMap((u) => u.links);
  const reached: string[] = [];
  if (large.size > 0) {
    const folders: string[] = [];
    const largeNamed = roots.filter((r) => large.has(r.real)).flatMap((r) => [r.lexical, r.real]);
    const queue = closure(packages).flatMap((p) => {
      const named = largeNamed.some((r) => inside(r, p.lexical));
      // A dependency named in a large root whose folder lies outside every root: the walk of the whole root refused its link, and so does this.
      if (named && !covered(p.real, [...readable, ...large])) throw leaves(p, `the package ${p.lexical}, a dependency of what the hook imports,`);
      // The path resolution reads it by (a link to a folder walked anyway, as in a pnpm layout, included).
      if (named) reached.push(`${p.lexical}/`);
      return inLarge(p.real) && !covered(p.real, readable) ? [p.real] : [];
    });
    let entries = 0;
    const reach = (link: GraphPath) => {
      if (!inLarge(link.real) || covered(link.real, [...readable, ...folders])) return;
      const st = statOrUndefined(link.real);
      if (st?.isDirectory()) queue.push(link.real);
      // A file is granted alone; a dangling link leads inside the large root (readable as it was), nothing to grant.
      else if (st) reached.push(link.real);
    };
    for (const link of links) reach(link);
    while (queue.length > 0) {
      const dir = queue.shift()!;
      if (covered(dir, folders)) continue;
      const walk = walkOf(dir, now, MAX_ROOT_ENTRIES - entries, walkedDir);
      entries += walk.entries;
      if (walk.over || entries > MAX_ROOT_ENTRIES) throw reachTooLarge(hookPath, [...large].find((r) => inside(r, dir))!);
      folders.push(dir);
      reached.push(`${dir}/`);
      links.push(...walk.links);
      for (const link of walk.links) reach(link);
    }
  }
  // Judged as before: a link is fine while it leads into a root (a large one's targets were reached above) or a readable area.
  const areas = [...wholeReal, ...readable, ...large];
  const areasKey = areas.join("\0");
  const judge = (link: GraphPath) => {
    if (!areas.some((a) => inside(a, link.real))) throw leaves(link, "a file in the hook's package roots");
  };
  for (const unit of units) {
    const passed = judged.get(unit);
    if (passed?.has(areasKey)) continue;
    unit.links.forEach(judge);
    if (passed) passed.add(areasKey);
    else judged.set(unit, new Set([areasKey]));
  }
  links.slice(units.reduce((n, u) => n + u.links.length, 0)).forEach(judge);
  return { whole, reached };
}

/** The folders of `dirs` that lie in none of the others. */
function outermost(dirs: string[]): string[] {
  const unique = [...new Set(dirs)];
  return unique.filter((d) => !unique.some((o) => o !== d && inside(o, d)));
}

/** The packages `start` names and every package they depend on (their `package.json`'s dependencies, optional and peer ones), as Node resolves each from the depending package's real folder. */
function closure(start: GraphPath[]): GraphPath[] {
  const out: GraphPath[] = [];
  const seen = new Set<string>();
  const queue = [...start];
  while (queue.length > 0) {
    const pkg = queue.shift()!;
    if (seen.has(pkg.real)) continue;
    seen.add(pkg.real);
    out.push(pkg);
    for (const name of dependencyNames(pkg.real)) {
      const dep = packageFolder(pkg.real, name);
      if (dep) queue.push(dep);
    }
  }
  return out;
}

/**
 * The walk of `dir`, fresh, trusted from the last `WALK_CACHE_MS`, or remembered from a previous
 * start (`walkedDir`) and unchanged since; `bound`: entries past which it stops.
 */
function walkOf(dir: string, now: number, bound: number, walkedDir?: string): FolderWalk {
  const fresh = walked.get(dir);
  if (fresh && fresh.at > now - WALK_CACHE_MS && (!fresh.over || fresh.entries > bound)) return fresh;
  const remembered = rememberedWalk(walkedDir, dir, now);
  let walk: FolderWalk;
  if (remembered && remembered.entries <= bound) walk = remembered;
  else {
    const folders: WalkedFolders | undefined = walkedDir ? [] : undefined;
    walk = walkFolder(dir, now, bound, folders);
    if (folders) rememberWalk(walkedDir, dir, walk, folders, now);
  }
  if (walked.size >= 256) walked.clear();
  walked.set(dir, walk);
  return walk;
}

/**
 * The links under `root` and its entry count; stops counting past `bound`. `folders`: filled with
 * each folder read (relative to `root`) and its inode, modification and change times, taken before
 * its read, so a change during the walk shows at the next start.
 */
function walkFolder(root: string, at: number, bound: number, folders?: WalkedFolders): FolderWalk {
  const links: GraphPath[] = [];
  const stack = [root];
  const rootPrefix = root.endsWith("/") ? root : `${root}/`;
  let entries = 0;
  while (stack.length > 0 && entries <= bound) {
    const dir = stack.pop()!;
    if (folders) {
      const st = lstatSync(dir, { throwIfNoEntry: false });
      if (!st?.isDirectory()) continue;
      folders.push([dir === root ? "" : dir.slice(rootPrefix.length), st.ino, st.mtimeMs, st.ctimeMs]);
    }
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
  return { at, entries, links, over: entries > bound };
}

function statOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function ownFolderTooLarge(hookPath: string, folder: string): ReadRefusal {
  return new ReadRefusal(`the module ${hookPath} lies in ${folder}, which holds more than ${MAX_ROOT_ENTRIES} entries: too many to check for symbolic links ` +
    `leading out of it (Node's permission model follows them, and a module's own folder is granted whole): move the module into a folder of its own, or run it with isolation "sandbox"`);
}

function reachTooLarge(hookPath: string, root: string): ReadRefusal {
  return new ReadRefusal(`the packages the module ${hookPath} reaches in ${root} (those its imports name and their dependencies) hold more than ${MAX_ROOT_ENTRIES} entries: ` +
    `too many to check for symbolic links leading out of them (Node's permission model follows them): import fewer packages, or run it with isolation "sandbox"`);
}

