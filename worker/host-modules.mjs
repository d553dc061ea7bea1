// Host modules as the hook imports them (`import { complete } from "@scope/ai"`): one object per
// module offered to this hook, whose functions run on the host (see src/bridge/host-modules.ts).
// A function the host answers at once stays synchronous; one that returns a promise returns a
// promise here. Arguments must be plain data; tracked event parts are unwrapped first.
import { call, callSync } from "./channel.mjs";
import { plain } from "./edits.mjs";
import { METHOD } from "./wire.mjs";

/** @param {string} label @param {unknown} err */
function named(label, err) {
  if (err instanceof Error && !err.message.startsWith(label)) {
    try { err.message = `${label}: ${err.message}`; } catch { /* frozen */ }
  }
  return err;
}

/**
 * @param {string} module @param {string} name @param {unknown[]} args
 */
function callHost(module, name, args) {
  const label = `${module}.${name}()`;
  /** @type {any} */
  let answer;
  try {
    answer = callSync(METHOD.hostModule, [module, name, plain(args)]);
  } catch (err) {
    throw named(label, err);
  }
  if (answer && typeof answer === "object" && "p" in answer) return call(METHOD.hostModuleAwait, [answer.p]).catch((err) => { throw named(label, err); });
  return answer?.v;
}

/**
 * The module objects for jiti's `virtualModules`.
 * @param {Record<string, { functions: string[]; values: Record<string, unknown> }>} manifest
 * @returns {Record<string, object>}
 */
export function hostModuleObjects(manifest) {
  /** @type {Record<string, object>} */
  const out = {};
  for (const [module, { functions, values }] of Object.entries(manifest)) {
    /** @type {Record<string, unknown>} */
    const mod = { ...values };
    for (const name of functions) {
      mod[name] = { [name]: (/** @type {unknown[]} */ ...args) => callHost(module, name, args) }[name];
    }
    out[module] = Object.freeze(mod);
  }
  return out;
}
