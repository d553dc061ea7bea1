// `ctx.ui.custom(factory)` in a worker: the factory runs here, when the host's UI calls the stand-in
// factory (never before), and its component stays here; the host shows a stand-in whose
// `render(width)` is answered synchronously through the renderer path (bounded by renderTimeoutMs)
// and whose `handleInput` / `invalidate` are forwarded. `done(value)` resolves the hook's promise.
// See src/bridge/custom-ui.ts for the host's side. `setHeader` and `setFooter` below.
import { plain } from "./edits.mjs";
import { customComponents, customFactories, footerListeners } from "./render.mjs";
import { METHOD } from "./wire.mjs";
/** @import { CallMethod, PostMethod } from "./wire.mjs" */

let next = 1;

/**
 * The agent's arity: pi's (and oh-my-pi's) `custom()` factory takes `(tui, theme, keybindings, done)`,
 * hookbox's HookAPI `(tui, theme, done)`. Set when the module is an agent's extension (worker/api.mjs).
 */
let agentArity = false;
export function useAgentArity() { agentArity = true; }

/** What the module's factory gets as pi's `keybindings`: the agent's KeybindingsManager does not cross; any use throws, saying so. */
const KEYBINDINGS = new Proxy(Object.freeze({}), {
  get: (_t, prop) => {
    if (prop === "then" || typeof prop === "symbol") return undefined;
    throw new Error(`ctx.ui.custom's keybindings.${String(prop)} is refused by hookbox/extension: not carried across the isolation boundary yet (the agent's keybindings manager is an object of its own process)`);
  },
});

/**
 * Why a function in `custom()`'s options is refused (pi's `overlayOptions.visible(termWidth)`): the
 * agent's terminal calls it synchronously at each render, in its own process, and a function cannot
 * cross (a worker's channel cannot clone it; JSON would drop it, silently showing the overlay always).
 */
const FUNCTION_OPTION = "the agent's terminal calls it synchronously, in its own process, and a function cannot cross the isolation boundary";

/** The path of the first function in `value` (`options.…`), or undefined. @param {unknown} value @param {string} path @param {number} depth @returns {string | undefined} */
function functionIn(value, path, depth = 0) {
  if (typeof value === "function") return path;
  if (value === null || typeof value !== "object" || depth > 4) return undefined;
  for (const key of Object.keys(value)) {
    const found = functionIn(/** @type {any} */ (value)[key], `${path}.${key}`, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** @param {any} component @param {string} member */
function checked(component, member) {
  if (!component || typeof component.render !== "function") throw new TypeError(`${member}(factory): the factory must return a component with render(width)`);
  return component;
}

/**
 * The factory runs only when the host's UI calls the stand-in factory hookbox gives it (the `make`
 * render operation), as pi runs an extension's factory only when its UI does: pi's RPC UI never
 * does. A throw of the factory rejects the module's call with that throw, as in pi (the host's
 * stand-in factory throws; no render fault is reported).
 * @param {{ call: (m: CallMethod, a: unknown[]) => Promise<any>; post: (m: PostMethod, a: unknown[]) => void }} ch
 * @param {unknown} theme
 * @param {unknown} factory
 * @param {unknown} options
 */
export async function runCustom(ch, theme, factory, options) {
  if (typeof factory !== "function") throw new TypeError("ctx.ui.custom(factory): factory must be a function");
  const fn = functionIn(options, "options");
  if (fn) throw new TypeError(`ctx.ui.custom's ${fn.replace(/^options\./, "")} is refused by hookbox/extension: ${FUNCTION_OPTION}`);
  const key = `custom:${next++}`;
  let finished = false;
  let ended = false;
  /** The factory's own throw or rejection, which the module's call rejects with. @type {{ err: unknown } | undefined} */
  let failed;
  const tui = Object.freeze({
    requestRender: () => { if (!finished) ch.post(METHOD.customTui, [key, "requestRender"]); },
  });
  const done = (/** @type {unknown} */ value) => {
    if (finished) return;
    finished = true;
    ch.post(METHOD.customDone, [key, plain(value)]);
  };
  const keep = (/** @type {unknown} */ made) => {
    if (ended) { /** @type {any} */ (made)?.dispose?.(); return; }
    customComponents.set(key, checked(made, "ctx.ui.custom"));
  };
  customFactories.set(key, () => {
    customFactories.delete(key);
    try {
      const made = agentArity ? /** @type {Function} */ (factory)(tui, theme, KEYBINDINGS, done) : /** @type {Function} */ (factory)(tui, theme, done);
      if (typeof made?.then !== "function") { keep(made); return true; }
      Promise.resolve(made).then(keep).then(() => ch.post(METHOD.customReady, [key, true]), (err) => {
        failed = { err };
        ch.post(METHOD.customReady, [key, false]);
      });
      return "pending";
    } catch (err) {
      failed = { err };
      return "failed";
    }
  });
  try {
    return await ch.call(METHOD.custom, [key, options === undefined ? {} : plain(options)]);
  } catch (err) {
    throw failed ? failed.err : err;
  } finally {
    finished = true;
    ended = true;
    customFactories.delete(key);
    const component = customComponents.get(key);
    customComponents.delete(key);
    component?.dispose?.();
  }
}

/** The header and footer components this module set (`ctx.ui.setHeader`, `ctx.ui.setFooter`), by their keys. @type {{ setHeader?: string; setFooter?: string }} */
const slots = {};

/** @typedef {{ callSync: (m: import("./wire.mjs").SyncMethod, a: unknown[]) => any; post: (m: PostMethod, a: unknown[]) => void }} SlotChannel */

/**
 * `ctx.ui.setHeader(factory)`: the factory runs here, as pi's interactive mode runs it at the call,
 * and its component stays here; the host shows a stand-in for it (worker isolation; elsewhere the
 * host's answer throws, saying why). `undefined` restores the agent's own header.
 * @param {SlotChannel} ch @param {unknown} theme @param {unknown} factory
 */
export function setHeader(ch, theme, factory) {
  setSlot(ch, "setHeader", factory, (tui) => [tui, theme]);
}

/**
 * `ctx.ui.setFooter(factory)`: as `setHeader`; the factory's third argument is pi's footer data,
 * read from the agent's (a synchronous host call on `direct`, the runner's channel, which outlives a
 * command's context), and `onBranchChange` listeners the host calls through the render path.
 * @param {SlotChannel} ch @param {unknown} theme @param {unknown} factory @param {SlotChannel} direct
 */
export function setFooter(ch, theme, factory, direct) {
  setSlot(ch, "setFooter", factory, (tui, key) => [tui, theme, footerData(direct, key)]);
}

/**
 * @param {SlotChannel} ch
 * @param {"setHeader" | "setFooter"} member
 * @param {unknown} factory
 * @param {(tui: object, key: string) => unknown[]} args the factory's arguments
 */
function setSlot(ch, member, factory, args) {
  if (factory !== undefined && typeof factory !== "function") throw new TypeError(`ctx.ui.${member}(factory): factory must be a function or undefined`);
  const previous = slots[member];
  const method = member === "setHeader" ? METHOD.setHeader : METHOD.setFooter;
  if (factory === undefined) {
    ch.callSync(method, [null]);
  } else {
    const key = `custom:${next++}`;
    const tui = Object.freeze({ requestRender: () => { if (slots[member] === key) ch.post(METHOD.customTui, [key, "requestRender"]); } });
    const component = checked(/** @type {Function} */ (factory)(...args(tui, key)), `ctx.ui.${member}`);
    customComponents.set(key, component);
    try {
      ch.callSync(method, [key]);
    } catch (err) {
      drop(key);
      throw err;
    }
    slots[member] = key;
  }
  if (previous !== undefined) {
    drop(previous);
    if (factory === undefined) slots[member] = undefined;
  }
}

/** @param {string} key */
function drop(key) {
  const component = customComponents.get(key);
  customComponents.delete(key);
  footerListeners.delete(key);
  component?.dispose?.();
}

/**
 * pi's `ReadonlyFooterDataProvider` for the footer `key`: its getters ask the agent's (the one pi's
 * UI gave the footer's stand-in), the branch-change listeners stay here.
 * @param {SlotChannel} direct @param {string} key
 */
function footerData(direct, key) {
  const get = (/** @type {string} */ member) => direct.callSync(METHOD.footerData, [key, member]);
  return Object.freeze({
    getGitBranch: () => get("getGitBranch"),
    getExtensionStatuses: () => new Map(get("getExtensionStatuses")),
    getAvailableProviderCount: () => get("getAvailableProviderCount"),
    onBranchChange: (/** @type {unknown} */ listener) => {
      if (typeof listener !== "function") throw new TypeError("footerData.onBranchChange(callback): callback must be a function");
      let listeners = footerListeners.get(key);
      if (!listeners) footerListeners.set(key, (listeners = new Set()));
      const call = () => /** @type {Function} */ (listener)();
      listeners.add(call);
      return () => { listeners.delete(call); };
    },
  });
}
