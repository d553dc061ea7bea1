/**
 * Host modules: values of the agent a hook imports by name (`import { complete } from "@scope/ai"`),
 * offered by the embedder (`hostModules: { "@scope/ai": aiModule }`, per hook or for all) and, if
 * the hook's policy names them (`policy.hostModules`), reachable from its worker.
 *
 * Only the module's own exported functions are callable, by name, from a table built once here;
 * nothing else of the module (or of what it returns) is reachable: arguments arrive as plain data,
 * results must be plain data, classes are not offered, and no host object is ever exposed (the
 * rule in DESIGN.md). A function that returns a promise is answered later, as `ctx` methods are
 * (`src/bridge/deferred.ts`); a sync function stays sync for the hook.
 */
import { Deferred } from "./deferred.js";
import { Errors } from "../contract/errors.js";
import type { Policy } from "../policy/policy.js";
import type { HostModuleManifest } from "../contract/protocol.js";

const NAME = /^[A-Za-z_$][\w$]*$/;
const FORBIDDEN = new Set(["constructor", "__proto__", "prototype", "then"]);

function isClass(fn: Function): boolean {
  return /^class[\s{]/.test(Function.prototype.toString.call(fn));
}

/** The modules `policy` lets this hook import, among those offered. */
function allowed(modules: Record<string, object>, policy: Policy): Array<[string, object]> {
  const names = policy.hostModules;
  return Object.entries(modules).filter(([name]) => names === undefined || names === "*" || names.includes(name));
}

/** Offered modules `policy` does not let this hook import. */
export function refusedModules(modules: Record<string, object>, policy: Policy): string[] {
  const allowedNames = new Set(allowed(modules, policy).map(([name]) => name));
  return Object.keys(modules).filter((name) => !allowedNames.has(name));
}

const refusedText = (module: string) =>
  `the host module "${module}" is offered, but not to this hook: policy.hostModules does not list it (the untrusted preset lists none)`;

/** A load failure's message, with the reason when it names an offered module the policy refused. */
export function explainRefusedImport(message: string, modules: Record<string, object>, policy: Policy): string {
  const named = refusedModules(modules, policy).find((name) => message.includes(name));
  return named === undefined ? message : `${message} (${refusedText(named)})`;
}

/** Describe the offered modules for the worker: function names, and values that are plain data. */
export function hostModuleManifest(modules: Record<string, object>, policy: Policy): HostModuleManifest {
  const out: HostModuleManifest = {};
  for (const [name, mod] of allowed(modules, policy)) {
    const entry = { functions: [] as string[], values: {} as Record<string, unknown> };
    for (const key of Object.keys(mod)) {
      if (!NAME.test(key) || FORBIDDEN.has(key)) continue;
      const value = (mod as Record<string, unknown>)[key];
      if (typeof value === "function") {
        if (!isClass(value)) entry.functions.push(key);
        continue;
      }
      try {
        entry.values[key] = structuredClone(value);
      } catch { /* not plain data: not offered */ }
    }
    out[name] = entry;
  }
  return out;
}

/**
 * The functions of the offered modules this hook may call: `hostModule` (sync: `[module, export,
 * args]`, answered `{ v }` or `{ p }`) and `hostModule.await` (the value of a `{ p }`). Arguments
 * arrive checked against the bridge table.
 */
export class HostModules {
  readonly #hookPath: string;
  readonly #table = new Map<string, Map<string, Function>>();
  readonly #later = new Deferred();
  /** Offered modules this hook's policy does not list: a call names the policy field. */
  readonly #refused: Set<string>;

  constructor(hookPath: string, modules: Record<string, object>, policy: Policy) {
    this.#hookPath = hookPath;
    this.#refused = new Set(refusedModules(modules, policy));
    for (const [name, mod] of allowed(modules, policy)) {
      const fns = new Map<string, Function>();
      for (const fn of hostModuleManifest({ [name]: mod }, { ...policy, hostModules: "*" })[name]!.functions) {
        fns.set(fn, (mod as Record<string, Function>)[fn]!);
      }
      this.#table.set(name, fns);
    }
  }

  /** `hostModule`: call the function now; a promise is held for `take`. */
  call(args: unknown[]): unknown {
    const [module, name, rest] = args as [string, string, unknown[]];
    const fn = this.#table.get(module)?.get(name);
    if (!fn && this.#refused.has(module)) throw Errors.protocolViolation(this.#hookPath, refusedText(module));
    if (!fn) throw Errors.protocolViolation(this.#hookPath, `${module}.${name} is not a function the host offers to this hook`);
    return this.#later.wrap(`${module}.${name}`, fn.apply(undefined, rest));
  }

  /** `hostModule.await` `[id]`. */
  take(args: unknown[]): Promise<unknown> {
    return this.#later.take(args[0] as number);
  }
}
