/**
 * What a confined hook's static imports reach, found on the host before its worker starts. The
 * permission model grants reads by path, and a hook that imports `../lib/words.ts` or a package
 * reads outside its own folder. Static imports only (a literal specifier in `import … from`,
 * `export … from`, `import()`, `require()`); tsconfig `paths` are not followed.
 *
 * This module only finds: each module file and package as the path the import names (`lexical`)
 * and the path it really is (`real`, after `realpath`). What may be granted is decided by the
 * gate in ./read-grants.ts: a specifier cannot be used to ask for a read of any other file, and a
 * symbolic link cannot widen what is granted.
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
import { ancestors, realOrUndefined } from "./paths.js";

const MODULE_EXT = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];
/** A file's static specifiers (`from "x"`, `import "x"`, `import("x")`, `require("x")`); global: read with `matchAll`, which copies it. */
export const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)["']([^"'\n]+)["']/g;
/** Bounds on the walk: a huge graph gets what was found so far (the rest is denied, with its path named). */
const MAX_FILES = 2_000;
const MAX_SOURCE_BYTES = 2 * 1024 * 1024;
/** Bound on the packages reached through dependencies. */
const MAX_PACKAGES = 2_000;

/** One path the graph reaches: as the import names it, and as it really is. */
export interface GraphPath {
  lexical: string;
  real: string;
}

export interface ImportGraph {
  /** Module files reached through relative or absolute specifiers (the entry excluded). */
  files: GraphPath[];
  /** Package folders named by bare specifiers, and (`dependencies`) the packages they depend on (by their `package.json`), transitively. */
  packages: Array<GraphPath & { specifier: string }>;
  /** The `package.json` paths a package-scope lookup from a reached file reads (a missing one has `real` = `lexical`). */
  manifests: GraphPath[];
}

/**
 * Module files, packages and scope manifests `entry` imports, directly or not. `dependencies`: also
 * the packages those packages depend on, which an approval pins and an approved module alone may read
 * (../approval/fingerprint.ts, ./read-grants.ts pinnedOnly). Why not always: a module that names an
 * agent's package reaches hundreds through it (pi's SDKs), read at every start of every module.
 */
export function importGraph(entry: string, dependencies = false): ImportGraph {
  const graph: ImportGraph = { files: [], packages: [], manifests: [] };
  const queue = [entry];
  const seen = new Set<string>();
  while (queue.length > 0 && seen.size < MAX_FILES) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readSource(file);
    if (source === undefined) continue;
    for (const [, specifier] of source.matchAll(SPECIFIER)) {
      if (!specifier || specifier.startsWith("node:")) continue;
      if (specifier.startsWith(".") || specifier.startsWith("/")) {
        const target = resolveLocal(dirname(file), specifier);
        if (!target) continue;
        graph.files.push(target);
        queue.push(target.real);
      } else {
        const pkg = packageFolder(dirname(file), packageName(specifier));
        if (pkg) graph.packages.push({ ...pkg, specifier });
      }
    }
  }
  // Why: a package loads the packages it depends on, found as Node finds them from where it really is. Each is
  // granted and pinned as a package the module names (src/approval/fingerprint.ts); an approved module reads no
  // other (./read-grants.ts pinnedOnly), so a dependency past the bound is not there to load rather than unpinned.
  const reached = new Set(graph.packages.map((p) => p.real));
  for (let i = 0; dependencies && i < graph.packages.length && reached.size < MAX_PACKAGES; i++) {
    const pkg = graph.packages[i]!;
    for (const name of dependencyNames(pkg.real)) {
      const dep = packageFolder(pkg.real, name);
      if (!dep || reached.has(dep.real)) continue;
      reached.add(dep.real);
      graph.packages.push({ ...dep, specifier: name });
    }
  }
  // Why: resolving a bare specifier looks up the importing file's package scope, reading every
  // `package.json` above it (a denied read there made jiti fall back to `require` conditions and
  // fail an import-only package with a misleading "No \"exports\" main defined").
  const manifests = new Set<string>();
  for (const file of seen) for (const manifest of scopeManifests(file)) manifests.add(manifest);
  for (const lexical of manifests) {
    // Why missing ones too: a denied read (rather than "not found") breaks the lookup; each folder above is real already.
    graph.manifests.push({ lexical, real: realOrUndefined(lexical) ?? lexical });
  }
  graph.files = graph.files.filter((f) => f.real !== entry);
  return graph;
}

/**
 * The names a package's `package.json` says it loads: its dependencies, optional and peer
 * dependencies (also ./link-walk.ts, which grants a large root's packages with what they load).
 */
export function dependencyNames(pkg: string): string[] {
  try {
    const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as Record<string, unknown>;
    const names = ["dependencies", "optionalDependencies", "peerDependencies"].flatMap((field) => {
      const deps = manifest[field];
      return deps && typeof deps === "object" ? Object.keys(deps) : [];
    });
    // A name is a folder below node_modules (a scope and a name, neither starting with "."), never a path out of it.
    return [...new Set(names)].filter((n) => /^(@[^/.][^/]*\/)?[^/@.][^/]*$/.test(n));
  } catch {
    return [];
  }
}

/** The `package.json` paths a package-scope lookup from `file` may read. */
function scopeManifests(file: string): string[] {
  return [...ancestors(dirname(file))].map((dir) => join(dir, "package.json"));
}

/** The module file a relative or absolute specifier names, as TypeScript and jiti resolve it. */
function resolveLocal(from: string, specifier: string): GraphPath | undefined {
  const base = resolve(from, specifier);
  const ext = extname(base);
  const stem = ext ? base.slice(0, -ext.length) : base;
  const tsTwin = { ".js": [".ts", ".tsx"], ".mjs": [".mts"], ".cjs": [".cts"], ".jsx": [".tsx"] }[ext] ?? [];
  const candidates = [
    ...(MODULE_EXT.includes(ext) ? [base] : []),
    ...tsTwin.map((e) => stem + e),
    ...MODULE_EXT.map((e) => base + e),
    ...MODULE_EXT.map((e) => join(base, `index${e}`)),
  ];
  for (const candidate of candidates) {
    try {
      if (statSync(candidate).isFile()) return { lexical: candidate, real: realpathSync(candidate) };
    } catch { /* next */ }
  }
  return undefined;
}

/** The package a bare specifier names: `@scope/name` or `name`, without a subpath. */
const packageName = (specifier: string) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");

/**
 * The folder of package `name` as Node finds it from `from`: `node_modules/<name>` in each folder
 * upwards, not in a folder that is itself `node_modules` (Node's own lookup paths skip those), the
 * first whose `package.json` is there (through links, a broken one skipped).
 */
export function packageFolder(from: string, name: string): GraphPath | undefined {
  for (const dir of ancestors(from)) {
    if (basename(dir) === "node_modules") continue;
    const lexical = join(dir, "node_modules", name);
    const real = realOrUndefined(join(lexical, "package.json")) && realOrUndefined(lexical);
    if (real) return { lexical, real };
  }
  return undefined;
}

/** An `import type …` / `export type …` statement, or an import whose every name is a type: erased, never loaded. */
const TYPE_ONLY = /\b(?:import|export)\s+type\s[^;"']*?\bfrom\s*["'][^"'\n]+["']|\bimport\s*\{([^}]*)\}\s*from\s*["'][^"'\n]+["']/g;

/**
 * The packages `entry` (and the module files it reaches) imports by value whose `package.json`
 * `engines` names Bun and not Node: code written for Bun only (oh-my-pi's own packages are its
 * TypeScript sources, which use `Bun`, `import.meta.dir` and native addons). A hook that runs on
 * Node (process and sandbox isolation, or any isolation on a Node host) cannot load them; the load
 * failure says so (src/isolation/load.ts). Type-only imports are left out (the transform erases
 * them), and so are packages a package imports in turn.
 */
export function bunOnlyImports(entry: string): string[] {
  const out = new Set<string>();
  for (const file of [entry, ...importGraph(entry).files.map((f) => f.real)]) {
    const source = readSource(file);
    if (source === undefined) continue;
    const values = source.replace(TYPE_ONLY, (statement, names: string | undefined) =>
      names === undefined || names.split(",").every((n) => n.trim() === "" || /^type\s/.test(n.trim())) ? "" : statement);
    for (const [, specifier] of values.matchAll(SPECIFIER)) {
      if (!specifier || specifier.startsWith("node:") || specifier.startsWith(".") || specifier.startsWith("/")) continue;
      const pkg = packageFolder(dirname(file), packageName(specifier));
      if (!pkg) continue;
      try {
        const engines = (JSON.parse(readFileSync(join(pkg.real, "package.json"), "utf8")) as { engines?: Record<string, unknown> }).engines;
        if (engines && "bun" in engines && !("node" in engines)) out.add(specifier);
      } catch { /* no readable manifest: not known to be for Bun only */ }
    }
  }
  return [...out];
}

/** A module file's source, or undefined when it cannot be read or is over MAX_SOURCE_BYTES (not followed). */
function readSource(file: string): string | undefined {
  try {
    return statSync(file).size > MAX_SOURCE_BYTES ? undefined : readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}
