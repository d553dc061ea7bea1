// The host side of the built package as a few ES module files, for `npm run build` (scripts/build.mjs,
// which test/support/pi-run.ts `builtHookbox` runs too): dist/host/, whose index.js, hooks.js,
// hooks-omp.js and extension.js are what package.json's exports name and cli.js is what
// bin/hookbox.mjs runs; the rest of dist/host/ is the chunks they share. Made from tsc's output in
// dist/src/ (which stays: its .d.ts files are the package's types, and the files hookbox starts
// by path, the opencode plugin among them, load from there).
//
// Why: Node's ES module loader costs per file. Importing hookbox/extension from dist/src/ loaded
// about 200 files (95 of them zod's) on the agent's main thread at every start, before any worker
// starts; the CLI pays the same at every hook invocation of Claude Code, Codex and Gemini.
// Why splitting over every entry at once: each module is in exactly one output file, so `hookbox`
// and `hookbox/extension` share one HookFailure class, one transform cache and one transform
// thread, as they did, and a module imported with import() is still loaded only when first used
// (its own chunk), as in dist/src/. What is inlined and what stays in node_modules: HOST_EXTERNAL;
// what is rewritten in hookbox's own modules (import.meta.url, zod's import): ownModules.
// docs/internals.md, "The built package", says the same for readers of the package.
//
//   node scripts/bundle-host.mjs <dist dir>        (default: dist; reads <dist>/src, writes <dist>/host)
import { build, transform } from "esbuild";
import { readFileSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The package's entries, by their name in dist/host/, from tsc's output. */
export const HOST_ENTRIES = { index: "index.js", hooks: "hooks.js", "hooks-omp": "hooks-omp.js", extension: "extension.js", cli: "cli/main.js" };

/**
 * Packages left to node_modules, loaded from there when first needed, as from dist/src/: jiti,
 * esbuild (a native program its package starts; src/isolation/agent-bundle.ts),
 * typebox and undici (heavy, loaded lazily), OpenTelemetry (optional), mvdan-sh (required by name
 * through createRequire), jsonc-parser (its main file is UMD, whose factory requires the package's
 * own files through a `require` esbuild cannot follow: inlined, that require throws at run time),
 * dotenv and yaml (CommonJS, in yaml's case its `node` export, requiring Node's built-ins by name,
 * which an ES module output cannot inline).
 */
export const HOST_EXTERNAL = ["jiti", "esbuild", "@sinclair/typebox", "undici", "@opentelemetry/*", "mvdan-sh", "jsonc-parser", "dotenv", "yaml"];

const ZOD_IMPORT = /^import \{ z \} from "zod";$/m;

/**
 * Two rewrites of hookbox's own modules as esbuild loads them.
 * import.meta.url: each module gets the URL of the file tsc wrote for it (esbuild would give every
 * module of a chunk the chunk's URL). esbuild's own define does the replacing, so text that merely
 * mentions import.meta.url (a message, a comment) is left alone.
 * zod: `import { z } from "zod"` becomes `import * as z from "zod"`, the same bindings (zod's
 * index re-exports every member of `z`). Why: esbuild keeps every member of a namespace that is
 * imported by name, so `{ z }` inlined all of zod (its 64 locales, JSON Schema conversion…), about
 * 12 ms of each import; through `* as z` only the members hookbox uses stay. Any other import of zod
 * fails the build, so that a new file cannot bring the whole of zod back unnoticed.
 * @param {string} dist @param {string} outDir
 * @returns {import("esbuild").Plugin}
 */
function ownModules(dist, outDir) {
  const own = resolve(dist) + sep;
  return {
    name: "hookbox-own-modules",
    setup(b) {
      b.onLoad({ filter: /\.m?js$/ }, async (args) => {
        if (!args.path.startsWith(own)) return undefined;
        let source = (await readFile(args.path, "utf8")).replace(ZOD_IMPORT, 'import * as z from "zod";');
        if (/\bfrom "zod[/"]/.test(source.replace('import * as z from "zod";', ""))) {
          throw new Error(`${relative(dirname(own), args.path)} imports zod in another form than \`import { z } from "zod"\` (scripts/bundle-host.mjs says why)`);
        }
        if (!source.includes("import.meta.url")) return { contents: source, loader: "js" };
        const rel = relative(outDir, args.path).split(sep).join("/");
        source = (await transform(source, { loader: "js", format: "esm", define: { "import.meta.url": "__hookboxFileUrl" }, sourcefile: args.path })).code;
        if (!source.includes("__hookboxFileUrl")) return { contents: source, loader: "js" }; // it was only mentioned
        return { contents: `const __hookboxFileUrl = new URL(${JSON.stringify(rel)}, import.meta.url).href;\n${source}`, loader: "js" };
      });
    },
  };
}

/** @param {string} dist The built package's dist/ folder (tsc's output in dist/src and dist/worker). */
export async function bundleHost(dist) {
  const root = dirname(resolve(dist));
  const outDir = resolve(dist, "host");
  await rm(outDir, { recursive: true, force: true }); // chunks are named by hash: a stale one would stay behind
  const result = await build({
    entryPoints: Object.fromEntries(Object.entries(HOST_ENTRIES).map(([name, file]) => [name, join(resolve(dist), "src", file)])),
    outdir: outDir,
    entryNames: "[name]",
    chunkNames: "chunk-[hash]",
    // The package root: the comment esbuild writes above each module names it as dist/src/… or
    // node_modules/… (test/extension-import.test.ts reads them).
    absWorkingDir: root,
    bundle: true, splitting: true, format: "esm", platform: "node", target: "node20",
    external: HOST_EXTERNAL,
    plugins: [ownModules(dist, outDir)],
    banner: { js: "// Generated by scripts/bundle-host.mjs from dist/src/: do not edit." },
    metafile: true,
    logLevel: "warning",
  });
  if (result.warnings.length > 0) throw new Error(`scripts/bundle-host.mjs: esbuild warned (${result.warnings.length}); see above`);
  // A require esbuild could not resolve stays a call to its __require, which throws in an ES module.
  const unresolved = Object.keys(result.metafile.outputs).filter((file) => /(?<!function )\b__require\b/.test(readFileSync(join(root, file), "utf8")));
  if (unresolved.length > 0) throw new Error(`scripts/bundle-host.mjs: ${unresolved.join(", ")} require a module at run time that esbuild did not inline; add its package to HOST_EXTERNAL`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await bundleHost(process.argv[2] ?? "dist");
