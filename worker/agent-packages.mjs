// The agent's own packages (pi's `@mariozechner/pi-coding-agent`, `pi-ai`, `pi-tui`, `typebox`…,
// named by the host's alias table: src/discovery/agent-packages.ts) as a module's top file imports
// them, evaluated when the module first reads from one, not when it imports it. Why: in the agent's
// process these packages are loaded already, and an isolate cannot share them; evaluating
// `@mariozechner/pi-coding-agent` is about 1400 files through Node's module loader, most of a
// worker's start for a module that only calls it from a handler (docs/performance.md). The
// package is the same files, evaluated by Node's own loader (`require` of an ES module, Node
// 20.19+), in the same isolate, once; a read (a named import, `import * as`, `Object.keys`,
// `export *`) gives what jiti's `import` of it gives. What is deferred is when the package's own
// top-level code runs: on the module's first read of it, inside the factory or a handler.
//
// While the module loads (its top level and its factory), a read of a name the host's map places
// (src/discovery/agent-exports.ts: the entry is only re-exports) evaluates the file that defines
// it, and what that file imports, not the whole package: a factory that reads `truncateHead`
// evaluates pi's `truncate.js`, not its 1400 files. The value is the binding the whole package
// gives (that file is one module instance in the isolate, whoever evaluates it). What differs is
// which top levels have run: the package's other files have not, so a registry one of them fills
// at its top level (pi-ai's providers) is empty for the factory. Once the module is loaded, its
// first read of the package (any name, in a handler) evaluates the whole package first, so
// handlers see it as the agent's process has it.
//
// The agent's TypeBox may come as one file the host built (src/isolation/agent-bundle.ts): then a
// file of the package that the table names is read from that file's exports, evaluated once, in
// place of the package's own 700 files through Node's loader.
import { createRequire } from "node:module";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { runInThisContext } from "node:vm";
import { moduleFormat } from "./module-format.mjs";

const require = createRequire(import.meta.url);

/**
 * What jiti 2's `import` returns for an ES module's namespace (its `jitiInteropDefault` with
 * `interopDefault: true`, as worker/entry.mjs sets it): a view that answers `__esModule`, a
 * default's members, and the namespace's own names, each read once (`seen`: what it answered so far).
 * @param {any} ns @param {Map<string | symbol, unknown>} [seen]
 */
function jitiInterop(ns, seen = new Map()) {
  const def = ns.default;
  const none = def == null;
  const objectLike = typeof def === "object" || typeof def === "function";
  if (none && ns instanceof Promise) return ns;
  const delegates = objectLike && !(def instanceof Promise);
  return new Proxy(ns, {
    get(target, prop) {
      if (seen.has(prop)) return seen.get(prop);
      let value;
      if (prop === "__esModule") value = true;
      else if (prop === "default") value = none ? ns : typeof def?.default === "function" && ns.__esModule ? def.default : def;
      else if (prop in target) value = target[prop];
      else if (delegates) { value = def[prop]; if (typeof value === "function") value = value.bind(def); }
      seen.set(prop, value);
      return value;
    },
  });
}

/** Each package file evaluated so far: Node's namespace, and whether `require` added `__esModule` to it. @type {Map<string, { ns: any; facade: boolean }>} */
const evaluated = new Map();

/** The host's bundle for this module's load, if any. @type {import("../src/contract/protocol.js").AgentBundle | undefined} */
let bundle;
/** The bundle's exports once evaluated. @type {Record<string, any> | undefined} */
let bundleExports;

/** The load spec's bundle (src/isolation/agent-bundle.ts), for the module about to load. @param {import("../src/contract/protocol.js").AgentBundle | undefined} given */
export function useAgentBundle(given) {
  bundle = given;
}

/** Whether each bundled file is one the module could read (and so load) itself. @type {Map<string, boolean>} */
const readable = new Map();

/**
 * Whether `file` is served from the bundle: one of its entries, which the module could read itself
 * (its policy grants it; the sandbox binds it). Why: the bundle changes what a load costs, never
 * what the module may load; one that lacks the grant fails as it would without the bundle.
 * @param {string} file
 */
function bundled(file) {
  if (bundle === undefined || !Object.hasOwn(bundle.entries, file)) return false;
  let can = readable.get(file);
  if (can === undefined) {
    const permission = /** @type {{ permission?: { has(scope: string, path: string): boolean } }} */ (process).permission;
    can = (permission === undefined || permission.has("fs.read", file)) && existsSync(file);
    readable.set(file, can);
  }
  return can;
}

/**
 * What Node's `require` of `file` returns, from the bundle: its namespace's names, sorted, each a
 * value, with the `__esModule` Node adds beside a default export, closed as a namespace is.
 * @param {string} file
 */
function fromBundle(file) {
  const given = /** @type {import("../src/contract/protocol.js").AgentBundle} */ (bundle);
  if (!bundleExports) {
    // ES modules are strict: the bundle's code runs as the package's own files would.
    const wrapper = runInThisContext(`(function (exports, require, module, __filename, __dirname) {"use strict";${given.text}\n})`, { filename: given.name });
    const module = { exports: {} };
    wrapper.call(module.exports, module.exports, createRequire(given.name), module, given.name, dirname(given.name));
    bundleExports = /** @type {Record<string, any>} */ (module.exports);
  }
  const source = bundleExports[/** @type {string} */ (given.entries[file])];
  const ns = Object.create(null);
  const names = Object.keys(source);
  if (names.includes("default")) names.push("__esModule");
  for (const key of names.sort()) Object.defineProperty(ns, key, { value: key === "__esModule" ? true : source[key], writable: true, enumerable: true, configurable: false });
  Object.defineProperty(ns, Symbol.toStringTag, { value: "Module" });
  return Object.preventExtensions(ns);
}

/** @param {string} name the specifier, for the error @param {string} file */
function evaluateOnce(name, file) {
  let done = evaluated.get(file);
  if (done) return done;
  let ns;
  try {
    ns = bundled(file) ? fromBundle(file) : require(file);
  } catch (err) {
    // A package with top-level await cannot be evaluated synchronously: name what to do.
    if (/** @type {{ code?: unknown }} */ (err)?.code === "ERR_REQUIRE_ASYNC_MODULE") {
      throw new Error(`${name}: the agent's package uses top-level await, which hookbox cannot defer; import it from a file the module loads with import() instead`);
    }
    throw err;
  }
  // Node's `require` of an ES module with a default export returns its namespace with an
  // `__esModule` added (a facade; an ES module does not export that name itself): not a name of
  // the package's, so not one of the view's either.
  done = { ns, facade: "default" in ns && "__esModule" in ns };
  evaluated.set(file, done);
  return done;
}

/** Whether the module is still loading (its top level and factory): named reads may evaluate one file. */
let loading = true;

/** The module is loaded (its factory resolved): from now on a read evaluates the whole package first. */
export function agentPackagesLoaded() {
  loading = false;
}

/**
 * One import of `file`: a namespace that evaluates the package at its first read (once per
 * isolate), then answers as the view jiti's `import` makes for each import. While the module
 * loads, a name `exports` places is read from the file that defines it.
 * @param {string} name the specifier, for the error @param {string} file
 * @param {import("../src/contract/protocol.js").AgentExports | undefined} exports
 */
function deferred(name, file, exports) {
  /** @type {any} */
  let view;
  /** What this import answered so far, shared with the view: a name reads the same before and after. */
  const seen = new Map();
  const load = () => (view ??= jitiInterop(evaluateOnce(name, file).ns, seen));
  const own = (/** @type {string | symbol} */ prop) => !(prop === "__esModule" && evaluated.get(file)?.facade);
  const read = (/** @type {string | symbol} */ prop) => {
    const at = loading && !view && typeof prop === "string" && exports && Object.hasOwn(exports.names, prop) ? exports.names[prop] : undefined;
    if (!at || !exports) return load()[prop];
    if (!seen.has(prop)) seen.set(prop, evaluateOnce(name, /** @type {string} */ (exports.files[at[0]])).ns[at[1]]);
    return seen.get(prop);
  };
  return new Proxy(Object.create(null), {
    // What jiti's view answers without reading the namespace; `then`, which awaiting the import
    // reads, is none of the agent's packages' exports (a thenable namespace would not be awaited whole).
    get: (_, prop) => (prop === "__esModule" ? true : prop === "then" ? undefined : read(prop)),
    has: (_, prop) => prop in load() && own(prop),
    ownKeys: () => Reflect.ownKeys(load()).filter(own),
    getOwnPropertyDescriptor: (_, prop) => {
      const d = Reflect.getOwnPropertyDescriptor(load(), prop);
      return d && own(prop) ? { ...d, configurable: true } : undefined;
    },
    set: (_, prop, value) => Reflect.set(load(), prop, value),
    defineProperty: (_, prop, d) => Reflect.defineProperty(load(), prop, d),
    deleteProperty: (_, prop) => Reflect.deleteProperty(load(), prop),
  });
}

/** Whether each alias target is an ES module file. @type {Map<string, boolean>} */
const esm = new Map();

/**
 * A deferred import of `id` when the alias table names it exactly and it is an ES module Node
 * can evaluate synchronously; undefined otherwise (jiti imports it as before).
 * @param {string} id @param {Record<string, string> | undefined} alias
 * @param {Record<string, import("../src/contract/protocol.js").AgentExports> | undefined} [exports] the host's maps, by alias target
 * @returns {object | undefined}
 */
export function deferredAgentPackage(id, alias, exports) {
  const file = alias && Object.hasOwn(alias, id) ? alias[id] : undefined;
  if (!file) return undefined;
  // A bundled package is one file, read whole (the host's map places names in the package's own files).
  if (bundled(file)) return deferred(id, file, undefined);
  if (!process.features.require_module) return undefined;
  if (!esm.has(file)) esm.set(file, existsSync(file) && moduleFormat(file) === "module");
  return esm.get(file) ? deferred(id, file, exports && Object.hasOwn(exports, file) ? exports[file] : undefined) : undefined;
}
