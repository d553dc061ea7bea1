/**
 * What a confined hook must be able to read: its resolved module graph, found on the host before
 * its worker starts. The permission model grants reads by path, and a hook that imports
 * `../lib/words.ts` or a linked package reads outside its own folder. Static imports only (a
 * literal specifier in `import … from`, `export … from`, `import()`, `require()`); tsconfig
 * `paths` are not followed.
 *
 * Only module files (by extension) and package folders are granted: a specifier cannot be used to
 * ask for a read of any other file.
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, extname, join, parse, resolve } from "node:path";

const MODULE_EXT = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)["']([^"'\n]+)["']/g;
/** Bounds on the walk: a huge graph gets what was found so far (the rest is denied, with its path named). */
const MAX_FILES = 2_000;
const MAX_SOURCE_BYTES = 2 * 1024 * 1024;

/** Module files and package folders `entry` imports, directly or not, as absolute real paths. */
export function importGraphReads(entry: string): string[] {
  const grants = new Set<string>();
  const queue = [entry];
  const seen = new Set<string>();
  while (queue.length > 0 && seen.size < MAX_FILES) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    let source: string;
    try {
      if (statSync(file).size > MAX_SOURCE_BYTES) continue;
      source = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const [, specifier] of source.matchAll(SPECIFIER)) {
      if (!specifier || specifier.startsWith("node:")) continue;
      if (specifier.startsWith(".") || specifier.startsWith("/")) {
        const target = resolveLocal(dirname(file), specifier);
        if (!target) continue;
        grants.add(target);
        queue.push(target);
      } else {
        const pkg = packageDir(dirname(file), specifier);
        if (pkg) grants.add(pkg);
      }
    }
  }
  // Why: resolving a bare specifier looks up the importing file's package scope, reading every
  // `package.json` above it (a denied read there made jiti fall back to `require` conditions and
  // fail an import-only package with a misleading "No \"exports\" main defined").
  for (const file of seen) for (const manifest of scopeManifests(file)) grants.add(manifest);
  grants.delete(entry);
  return [...grants];
}

/** The `package.json` paths a package-scope lookup from `file` may read (they need not exist). */
function scopeManifests(file: string): string[] {
  const out: string[] = [];
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    out.push(join(dir, "package.json"));
    if (dir === parse(dir).root) return out;
  }
}

/** The module file a relative or absolute specifier names, as TypeScript and jiti resolve it. */
function resolveLocal(from: string, specifier: string): string | undefined {
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
      if (statSync(candidate).isFile()) return realpathSync(candidate);
    } catch { /* next */ }
  }
  return undefined;
}

/** The real folder of package `specifier` as Node would find it from `from` (`node_modules` upwards). */
function packageDir(from: string, specifier: string): string | undefined {
  const parts = specifier.split("/");
  const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (dir === parse(dir).root) return undefined;
  }
}
