// `pi.events` of an isolated agent module (hookbox/extension): an event bus shared by the modules
// of one `isolate()` call, data only. `emit` delivers to this module's own listeners at once, as
// pi's bus does, and posts the data to the host, which hands it to the other modules of the same
// isolate (src/runner/runner.ts); their listeners run in their own workers. A listener's throw is
// logged, as pi's bus logs it, and never reaches the emitter. pi's bus is in-process, so a payload
// may hold functions (a process manager sends `{ kill }`): this module's listeners get it as is, and
// the other modules get a copy without what cannot leave this worker (`crossable`).
import { post } from "./channel.mjs";
import { plain } from "./edits.mjs";
import { METHOD } from "./wire.mjs";

/** @type {Map<string, Set<(data: unknown) => unknown>>} */
const listeners = new Map();

/** Run this module's listeners of `channel` (an emit here, or one the host delivered from another module). @param {string} channel @param {unknown} data */
export function deliver(channel, data) {
  for (const listener of [...(listeners.get(channel) ?? [])]) {
    /** @param {unknown} err */
    const logged = (err) => post(METHOD.log, ["error", `Event handler error (${channel}): ${err instanceof Error ? err.stack ?? err.message : String(err)}`]);
    try {
      const ran = /** @type {any} */ (listener(data));
      if (ran && typeof ran.then === "function") ran.then(undefined, logged);
    } catch (err) {
      logged(err);
    }
  }
}

/**
 * What of `value` can reach another module: the value without functions and symbols (an object
 * member of one is left out, an array element becomes undefined, as JSON does) and without a
 * reference to an object it is inside (a cycle), so the post never throws after the local
 * delivery, as pi's emit never does. The rest is what the wire carries (Map, Set, Date, typed arrays…).
 * @param {unknown} value @param {object[]} [above] @returns {unknown}
 */
export function crossable(value, above = []) {
  if (typeof value === "function" || typeof value === "symbol") return undefined;
  if (value === null || typeof value !== "object" || ArrayBuffer.isView(value) || value instanceof ArrayBuffer || value instanceof Date || value instanceof RegExp || value instanceof Error) return value;
  if (above.includes(value)) return undefined;
  above.push(value);
  try {
    if (Array.isArray(value)) return value.map((v) => crossable(v, above));
    if (value instanceof Map) return new Map([...value].filter(([k, v]) => droppable(k) && droppable(v)).map(([k, v]) => [crossable(k, above), crossable(v, above)]));
    if (value instanceof Set) return new Set([...value].filter(droppable).map((v) => crossable(v, above)));
    /** @type {Record<string, unknown>} */
    const out = {};
    for (const key of Object.keys(value)) {
      const child = /** @type {Record<string, unknown>} */ (value)[key];
      if (droppable(child) && !(typeof child === "object" && child !== null && above.includes(child))) out[key] = crossable(child, above);
    }
    return out;
  } finally {
    above.pop();
  }
}

/** Whether `v` is data that may cross (a function or a symbol is left out). @param {unknown} v */
const droppable = (v) => typeof v !== "function" && typeof v !== "symbol";

// Not frozen, as pi's `pi.events` is not: a module may wrap it (see worker/context.mjs `uiOf`).
export const events = {
  /** @param {string} channel @param {unknown} [data] */
  emit(channel, data) {
    const name = String(channel);
    deliver(name, data);
    const copy = crossable(plain(data));
    post(METHOD.busEmit, copy === undefined ? [name] : [name, copy]);
  },
  /** @param {string} channel @param {(data: unknown) => unknown} handler @returns {() => void} */
  on(channel, handler) {
    if (typeof handler !== "function") throw new TypeError("pi.events.on handler must be a function");
    const name = String(channel);
    let set = listeners.get(name);
    if (!set) listeners.set(name, (set = new Set()));
    const own = (/** @type {unknown} */ data) => handler(data);
    set.add(own);
    return () => { set.delete(own); };
  },
};
