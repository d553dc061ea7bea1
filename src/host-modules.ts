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
import { z } from "zod";
import { Deferred } from "./bridge/deferred.js";
import { Errors } from "./errors.js";
import type { Policy } from "./policy.js";
import type { BridgeHost } from "./sandbox/channel.js";
import { METHOD } from "../worker/wire.mjs";
import type { HostModuleManifest } from "./protocol.js";


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

const callArgs = z.tuple([z.string(), z.string().regex(NAME), z.array(z.unknown())]);

/**
 * `bridge`, plus the two methods host modules use: `hostModule` (sync: `[module, export, args]`,
 * answered `{ v }` or `{ p }`) and `hostModule.await` (the value of a `{ p }`).
 */
export function withHostModules(bridge: BridgeHost, hookPath: string, modules: Record<string, object>, policy: Policy): BridgeHost {
  const table = new Map<string, Map<string, Function>>();
  for (const [name, mod] of allowed(modules, policy)) {
    const fns = new Map<string, Function>();
    for (const fn of hostModuleManifest({ [name]: mod }, { ...policy, hostModules: "*" })[name]!.functions) {
      fns.set(fn, (mod as Record<string, Function>)[fn]!);
    }
    table.set(name, fns);
  }
  if (table.size === 0) return bridge;
  const later = new Deferred();
  return {
    call: (method, args) => {
      if (method !== METHOD.hostModuleAwait) return bridge.call(method, args);
      const id = z.tuple([z.number().int()]).safeParse(args);
      if (!id.success) return Promise.reject(Errors.protocolViolation(hookPath, "bad arguments to hostModule.await"));
      return later.take(id.data[0]);
    },
    post: (method, args) => bridge.post(method, args),
    sync: (method, args) => {
      if (method !== METHOD.hostModule) return bridge.sync(method, args);
      const parsed = callArgs.safeParse(args);
      if (!parsed.success) throw Errors.protocolViolation(hookPath, "bad arguments to a host module call");
      const [module, name, rest] = parsed.data;
      const fn = table.get(module)?.get(name);
      if (!fn) throw Errors.protocolViolation(hookPath, `${module}.${name} is not a function the host offers to this hook`);
      return later.wrap(`${module}.${name}`, fn.apply(undefined, rest));
    },
  };
}
