// `pi.events` of an isolated agent module (hookbox/extension): an event bus shared by the modules
// of one `isolate()` call, data only. `emit` delivers to this module's own listeners at once, as
// pi's bus does, and posts the data to the host, which hands it to the other modules of the same
// isolate (src/runner/runner.ts); their listeners run in their own workers. A listener's throw is
// logged, as pi's bus logs it, and never reaches the emitter.
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

export const events = Object.freeze({
  /** @param {string} channel @param {unknown} [data] */
  emit(channel, data) {
    const name = String(channel);
    const copy = plain(data);
    deliver(name, data);
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
});
