// How a hook's TypeScript module is evaluated. jiti does it, but jiti's bundle costs every hook
// runtime about 2 MB of private memory once required (docs/performance.md), and a hook whose
// imports are all type imports (erased by the transform) never asks jiti for anything but the
// evaluation itself. So the top module is evaluated here exactly as jiti 2 evaluates it (its
// `eval_evalModule`: the same transform request, wrapper, `module` and interop), and jiti is
// required only when the module reaches for it: `require`, an `import` (the transform makes it
// `jitiImport`) or `import.meta.resolve` (`jitiESMResolve`). Those get jiti's own functions, from a
// jiti made then with the module as its parent, as jiti itself would have made it. An import of
// one of the agent's own packages by its exact name needs no jiti either (worker/agent-packages.mjs).
import { Module, createRequire } from "node:module";
import { nativeImport } from "./native-import.mjs";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { runInThisContext } from "node:vm";
import { deferredAgentPackage } from "./agent-packages.mjs";

const require = createRequire(import.meta.url);
/** What jiti itself transpiles always (its `eval_evalModule`'s test of the extension). */
const TS_FILE = /\.[cm]?tsx?$/;

/**
 * @param {string} filename an absolute path, as the host resolved it
 * @param {import("jiti").JitiOptions} options
 * @param {Record<string, import("../src/contract/protocol.js").AgentExports>} [agentExports] where the agent's packages define each name (worker/agent-packages.mjs)
 * @returns {Promise<unknown>} what `jiti.import(filename)` returns, as far as a factory is concerned
 */
export function importWithJiti(filename, options, agentExports) {
  // Under Bun jiti tries Bun's own import first (`tryNative`); an environment variable `JITI_*`
  // changes jiti's defaults (source maps, jsx, aliases…): jiti itself decides those cases.
  if (!TS_FILE.test(filename) || "Bun" in globalThis || Object.keys(process.env).some((k) => k.startsWith("JITI_"))) {
    return rootJiti(options).import(filename);
  }
  return evaluate(filename, options, agentExports);
}

/** @param {import("jiti").JitiOptions} options */
function rootJiti(options) {
  // Why require, not import(): Node's ES module loader takes a CommonJS package through its
  // translator, which measured 1-4 MB more private memory and 30-70 ms more per runtime for jiti's
  // 190 kB bundle (docs/performance.md); jiti's CommonJS entry is the same function.
  const { createJiti } = /** @type {typeof import("jiti")} */ (require("jiti"));
  return createJiti(import.meta.url, options);
}

/**
 * @param {string} filename @param {import("jiti").JitiOptions} options
 * @param {Record<string, import("../src/contract/protocol.js").AgentExports>} [agentExports]
 */
async function evaluate(filename, options, agentExports) {
  let code = readFileSync(filename, "utf8");
  // jiti's transform request for a top module with these options and no JITI_* variable.
  code = /** @type {{ code: string }} */ (/** @type {any} */ (options.transform)({ babel: {}, interopDefault: options.interopDefault, filename, source: code, ts: true, async: true, jsx: false })).code;
  if (code.startsWith("#!")) code = "// " + code;
  let wrapped;
  try {
    wrapped = runInThisContext(`(async function (exports, require, module, __filename, __dirname, jitiImport, jitiESMResolve) { ${code}\n});`, { filename, lineOffset: 0, displayErrors: false });
  } catch (err) {
    // jiti evaluates such code as an ES module through a data: URL: let it.
    if (err instanceof SyntaxError) return rootJiti(options).import(filename);
    throw err;
  }
  const mod = new Module(filename);
  mod.filename = filename;
  /** jiti's own cycle cache for this load: a module that imports this one gets its exports. */
  const parentCache = { [filename]: mod };
  /** @type {any} */
  let child;
  const jiti = () => (child ??= nestedJiti(filename, /** @type {any} */ (rootJiti(options)).options, mod, parentCache));
  const lazyRequire = Object.defineProperties(/** @param {string} id */ (id) => jiti()(id), Object.fromEntries(
    ["cache", "extensions", "main", "options", "resolve", "transform", "evalModule", "import", "esmResolve"]
      .map((key) => [key, { enumerable: true, get: () => jiti()[key] }]),
  ));
  mod.require = /** @type {any} */ (lazyRequire);
  mod.path = dirname(filename);
  mod.paths = /** @type {any} */ (Module)._nodeModulePaths(mod.path);
  await wrapped(mod.exports, mod.require, mod, filename, dirname(filename),
    /** @param {string} id @param {any} [opts] */ (id, opts) => {
      // jiti's order: an offered host module of that name comes first; then the agent's package, deferred.
      const deferred = opts === undefined && !(options.virtualModules && id in options.virtualModules) ? deferredAgentPackage(id, options.alias, agentExports) : undefined;
      return deferred ? Promise.resolve(deferred) : jiti().import(id, opts);
    },
    /** @param {string} id @param {any} [opts] */ (id, opts) => jiti().esmResolve(id, opts));
  const failed = mod.exports?.__JITI_ERROR__;
  if (failed) throw new Error(`${failed.code}: ${failed.message} \n ${`${failed.filename}:${failed.line}:${failed.column}`}`);
  mod.loaded = true;
  return interopDefault(mod.exports);
}

/**
 * The jiti a module's `require` and imports get: jiti's `eval_evalModule` makes it with the module
 * as its parent and the load's cache; its public `createJiti` cannot say so, its bundle's can.
 * @param {string} filename @param {object} resolvedOptions the root jiti's, defaults applied @param {Module} parentModule @param {Record<string, Module>} parentCache
 */
function nestedJiti(filename, resolvedOptions, parentModule, parentCache) {
  const createNested = require(join(dirname(require.resolve("jiti")), "..", "dist", "jiti.cjs"));
  return createNested(filename, resolvedOptions, {
    parentModule, parentCache, createRequire,
    nativeImport,
    onError: (/** @type {unknown} */ err) => { throw err; },
  }, true);
}

/**
 * What jiti's `interopDefault` gives for a module's exports, as far as `default` goes (jiti 2's
 * `jitiInteropDefault` returns a Proxy whose `default` is this; worker/factory.mjs reads only that).
 * @param {any} exports
 */
function interopDefault(exports) {
  if (exports === null || (typeof exports !== "object" && typeof exports !== "function")) return exports;
  const value = exports.default;
  if (value == null && exports instanceof Promise) return exports;
  if (value == null) return { default: exports };
  return { default: typeof value?.default === "function" && exports.__esModule ? value.default : value };
}
