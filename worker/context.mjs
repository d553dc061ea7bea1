// The HookContext a handler receives inside the worker. Members that are synchronous in the
// original stay synchronous here: they block this thread on a shared-buffer call the host
// answers. Members that are async go through ordinary bridge calls, which pause the deadline.
// A command called with a context its caller built reaches that context: its calls go through
// the `scoped` channel (see src/command-scope.ts).
/** @import { ContextSnapshot } from "../src/protocol.js" */
import { call, callSync, post } from "./channel.mjs";
import { plain } from "./edits.mjs";
import { runCustom } from "./custom.mjs";
import { METHOD, SESSION_METHODS } from "./wire.mjs";

/**
 * How a context reaches the host. Arguments are unwrapped first: a hook may pass parts of its
 * (tracked) event on.
 * @typedef {{ call: (m: string, a: unknown[]) => Promise<any>; post: (m: string, a: unknown[]) => void; callSync: (m: string, a: unknown[]) => any }} Channel
 */

/** @type {Channel} */
export const direct = Object.freeze({
  call: (m, a) => call(m, plain(a)),
  post: (m, a) => post(m, plain(a)),
  callSync: (m, a) => callSync(m, plain(a)),
});

/** @param {number} scope @returns {Channel} */
function scoped(scope) {
  return Object.freeze({
    call: (m, a) => call(METHOD.scopedCall, [scope, m, plain(a)]),
    post: (m, a) => post(METHOD.scopedPost, [scope, m, plain(a)]),
    callSync: (m, a) => callSync(METHOD.scopedSync, [scope, m, plain(a)]),
  });
}

/**
 * A method of a host object: synchronous when the host's method is, a promise when it returned
 * one (the host answers `{ p }` and the value comes by an async call, see src/bridge/deferred.ts).
 * A failure names the method.
 * @param {Channel} ch @param {string} label @param {string} m @param {unknown[]} a
 */
function hostMethod(ch, label, m, a) {
  /** @type {any} */
  let answer;
  try {
    answer = ch.callSync(m, a);
  } catch (err) {
    throw named(label, err);
  }
  if (answer && typeof answer === "object" && "p" in answer) return ch.call(METHOD.await, [answer.p]).catch((err) => { throw named(label, err); });
  return answer?.v;
}

/** @param {string} label @param {unknown} err */
function named(label, err) {
  if (!(err instanceof Error) || err.message.startsWith(label)) return err;
  err.message = `${label}: ${err.message}`;
  return err;
}

/** @param {Channel} ch */
function sessionManagerOf(ch) {
  /** @type {Record<string, Function>} */
  const out = {};
  for (const name of SESSION_METHODS) out[name] = (/** @type {unknown[]} */ ...args) => hostMethod(ch, `ctx.sessionManager.${name}()`, METHOD.session, [name, args]);
  return Object.freeze(out);
}

/** A model registry facade: any method name is forwarded to the host's registry (sync stays sync). @param {Channel} ch */
function modelRegistryOf(ch) {
  return new Proxy(Object.freeze({}), {
    get(_target, prop) {
      if (typeof prop !== "string" || prop === "then") return undefined;
      return (/** @type {unknown[]} */ ...args) => hostMethod(ch, `ctx.modelRegistry.${prop}()`, "modelRegistry", [prop, args]);
    },
  });
}

/** The theme: every style method runs on the host's theme, so strings match exactly. @param {Channel} ch */
export function themeOf(ch) {
  return new Proxy(Object.freeze({}), {
    get(_target, prop) {
      if (typeof prop !== "string" || prop === "then") return undefined;
      return (/** @type {unknown[]} */ ...args) => ch.callSync("theme", [prop, args]);
    },
  });
}

let nextSignal = 1;
/** @param {Channel} ch @param {AbortSignal | undefined} signal */
function signalId(ch, signal) {
  if (!signal) return undefined;
  const id = nextSignal++;
  signal.addEventListener("abort", () => ch.post("ui.abortEditor", [id]), { once: true });
  return id;
}

/** @param {Channel} ch */
function uiOf(ch) {
  const theme = themeOf(ch);
  return Object.freeze({
    select: (/** @type {string} */ title, /** @type {string[]} */ options) => ch.call("ui.select", [title, options]),
    confirm: (/** @type {string} */ title, /** @type {string} */ message) => ch.call("ui.confirm", [title, message]),
    input: (/** @type {string} */ title, /** @type {string | undefined} */ placeholder) => ch.call("ui.input", [title, placeholder]),
    editor: (/** @type {string} */ title, /** @type {string | undefined} */ prefill, /** @type {{ signal?: AbortSignal } | undefined} */ options) => {
      if (options?.signal?.aborted) return Promise.resolve(undefined);
      return ch.call("ui.editor", [title, prefill, signalId(ch, options?.signal)]);
    },
    notify: (/** @type {string} */ message, /** @type {string | undefined} */ type) => ch.post("ui.notify", [message, type]),
    setStatus: (/** @type {string} */ key, /** @type {string | undefined} */ text) => ch.post("ui.setStatus", [key, text]),
    setEditorText: (/** @type {string} */ text) => ch.post("ui.setEditorText", [text]),
    getEditorText: () => ch.callSync("ui.getEditorText", []),
    custom: (/** @type {unknown} */ factory, /** @type {unknown} */ options) => runCustom(ch, theme, factory, options),
    get theme() { return theme; },
  });
}

/** Everything a context reaches through one channel, built once per channel. */
function membersOf(/** @type {Channel} */ ch) {
  return {
    ui: uiOf(ch),
    sessionManager: sessionManagerOf(ch),
    modelRegistry: modelRegistryOf(ch),
    isIdle: () => ch.callSync("isIdle", []),
    abort: () => ch.post("abort", []),
    hasQueuedMessages: () => ch.callSync("hasQueuedMessages", []),
  };
}
const runnerMembers = membersOf(direct);

/** @param {ContextSnapshot} snap */
export function createContext(snap) {
  return contextOf(snap, runnerMembers);
}

/** @param {ContextSnapshot} snap @param {ReturnType<typeof membersOf>} m */
function contextOf(snap, m) {
  return {
    ui: m.ui,
    hasUI: snap.hasUI,
    cwd: snap.cwd,
    sessionManager: m.sessionManager,
    modelRegistry: m.modelRegistry,
    model: snap.model,
    isIdle: m.isIdle,
    abort: m.abort,
    hasQueuedMessages: m.hasQueuedMessages,
  };
}

/** A command handler's context: the event context plus the session controls. @param {ContextSnapshot} snap */
export function createCommandContext(snap) {
  const ch = snap.scope === undefined ? direct : scoped(snap.scope);
  return {
    ...contextOf(snap, ch === direct ? runnerMembers : membersOf(ch)),
    waitForIdle: () => ch.call("waitForIdle", []),
    /** @param {{ parentSession?: string; setup?: (sm: unknown) => Promise<void> }} [options] */
    newSession: async (options = {}) => {
      const { setup, ...rest } = options;
      if (typeof setup !== "function") return ch.call("newSession", [rest, false]);
      // The host calls back into this worker (entry.mjs "setup"); the session manager it gets
      // writes through the same channel as this context.
      pendingSetups.push(() => setup(createSetupSessionManager(ch)));
      return ch.call("newSession", [rest, true]);
    },
    branch: (/** @type {string} */ entryId) => ch.call("branch", [entryId]),
    navigateTree: (/** @type {string} */ targetId, /** @type {{ summarize?: boolean } | undefined} */ options) =>
      ch.call("navigateTree", [targetId, options ?? {}]),
  };
}

/** Setup callbacks waiting for the host to open the new session. @type {Array<(sm: unknown) => Promise<void>>} */
export const pendingSetups = [];

/** The writable session manager `setup` receives: each method call goes to the host, in order. @param {Channel} [ch] */
export function createSetupSessionManager(ch = direct) {
  return new Proxy(Object.freeze({}), {
    get(_target, prop) {
      if (typeof prop !== "string" || prop === "then") return undefined;
      return (/** @type {unknown[]} */ ...args) => ch.call("setup.call", [prop, args]);
    },
  });
}
