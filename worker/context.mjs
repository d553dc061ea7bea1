// The HookContext a handler receives inside the worker. Members that are synchronous in the
// original stay synchronous here: they block this thread on a shared-buffer call the host
// answers. Members that are async go through ordinary bridge calls, which pause the deadline.
/** @import { ContextSnapshot } from "../src/protocol.js" */
import { call, callSync, post } from "./channel.mjs";

const SESSION_METHODS = [
  "getCwd", "getSessionDir", "getSessionId", "getSessionFile", "getSessionName", "getArtifactsDir",
  "allocateArtifactPath", "saveArtifact", "getArtifactPath", "getLeafId", "getLeafEntry", "getEntry",
  "getLabel", "getBranch", "getHeader", "getEntries", "getTree", "getUsageStatistics", "putBlob",
];

/**
 * A method of a host object: synchronous when the host's method is, a promise when it returned
 * one (the host answers `{ p }` and the value comes by an async call, see src/bridge/deferred.ts).
 * A failure names the method.
 * @param {string} label @param {string} m @param {unknown[]} a
 */
function hostMethod(label, m, a) {
  /** @type {any} */
  let answer;
  try {
    answer = callSync(m, a);
  } catch (err) {
    throw named(label, err);
  }
  if (answer && typeof answer === "object" && "p" in answer) return call("await", [answer.p]).catch((err) => { throw named(label, err); });
  return answer?.v;
}

/** @param {string} label @param {unknown} err */
function named(label, err) {
  if (!(err instanceof Error) || err.message.startsWith(label)) return err;
  err.message = `${label}: ${err.message}`;
  return err;
}

/** @param {string} prefix @param {string} label @param {readonly string[]} names */
function syncFacade(prefix, label, names) {
  /** @type {Record<string, Function>} */
  const out = {};
  for (const name of names) out[name] = (/** @type {unknown[]} */ ...args) => hostMethod(`${label}.${name}()`, `${prefix}.${name}`, args);
  return Object.freeze(out);
}

const sessionManager = syncFacade("session", "ctx.sessionManager", SESSION_METHODS);

/** A model registry facade: any method name is forwarded to the host's registry (sync stays sync). */
const modelRegistry = new Proxy(Object.freeze({}), {
  get(_target, prop) {
    if (typeof prop !== "string" || prop === "then") return undefined;
    return (/** @type {unknown[]} */ ...args) => hostMethod(`ctx.modelRegistry.${prop}()`, "modelRegistry", [prop, args]);
  },
});

/** The theme: every style method runs on the host's theme, so strings match exactly. */
const theme = new Proxy(Object.freeze({}), {
  get(_target, prop) {
    if (typeof prop !== "string" || prop === "then") return undefined;
    return (/** @type {unknown[]} */ ...args) => callSync("theme", [prop, args]);
  },
});

/** @param {AbortSignal | undefined} signal */
function signalId(signal) {
  return signal ? registerOutgoingSignal(signal) : undefined;
}

let nextSignal = 1;
/** @param {AbortSignal} signal */
function registerOutgoingSignal(signal) {
  const id = nextSignal++;
  signal.addEventListener("abort", () => post("ui.abortEditor", [id]), { once: true });
  return id;
}

const ui = Object.freeze({
  select: (/** @type {string} */ title, /** @type {string[]} */ options) => call("ui.select", [title, options]),
  confirm: (/** @type {string} */ title, /** @type {string} */ message) => call("ui.confirm", [title, message]),
  input: (/** @type {string} */ title, /** @type {string | undefined} */ placeholder) => call("ui.input", [title, placeholder]),
  editor: (/** @type {string} */ title, /** @type {string | undefined} */ prefill, /** @type {{ signal?: AbortSignal } | undefined} */ options) => {
    if (options?.signal?.aborted) return Promise.resolve(undefined);
    return call("ui.editor", [title, prefill, signalId(options?.signal)]);
  },
  notify: (/** @type {string} */ message, /** @type {string | undefined} */ type) => post("ui.notify", [message, type]),
  setStatus: (/** @type {string} */ key, /** @type {string | undefined} */ text) => post("ui.setStatus", [key, text]),
  setEditorText: (/** @type {string} */ text) => post("ui.setEditorText", [text]),
  getEditorText: () => callSync("ui.getEditorText", []),
  custom: () => Promise.reject(new Error(
    "ctx.ui.custom() is not available to sandboxed hooks: a custom component renders synchronously on the host and cannot run in a worker. Use select, input, editor or a message renderer.")),
  get theme() { return theme; },
});

/** @param {ContextSnapshot} snap */
export function createContext(snap) {
  return {
    ui,
    hasUI: snap.hasUI,
    cwd: snap.cwd,
    sessionManager,
    modelRegistry,
    model: snap.model,
    isIdle: () => callSync("isIdle", []),
    abort: () => post("abort", []),
    hasQueuedMessages: () => callSync("hasQueuedMessages", []),
  };
}

/** A command handler's context: the event context plus the session controls. @param {ContextSnapshot} snap */
export function createCommandContext(snap) {
  return {
    ...createContext(snap),
    waitForIdle: () => call("waitForIdle", []),
    /** @param {{ parentSession?: string; setup?: (sm: unknown) => Promise<void> }} [options] */
    newSession: async (options = {}) => {
      const { setup, ...rest } = options;
      if (typeof setup !== "function") return call("newSession", [rest, false]);
      // The host calls back into this worker with a session manager proxy (see entry.mjs "setup").
      pendingSetups.push(setup);
      return call("newSession", [rest, true]);
    },
    branch: (/** @type {string} */ entryId) => call("branch", [entryId]),
    navigateTree: (/** @type {string} */ targetId, /** @type {{ summarize?: boolean } | undefined} */ options) =>
      call("navigateTree", [targetId, options ?? {}]),
  };
}

/** Setup callbacks waiting for the host to open the new session. @type {Array<(sm: unknown) => Promise<void>>} */
export const pendingSetups = [];

/** The writable session manager `setup` receives: each method call goes to the host, in order. */
export function createSetupSessionManager() {
  return new Proxy(Object.freeze({}), {
    get(_target, prop) {
      if (typeof prop !== "string" || prop === "then") return undefined;
      return (/** @type {unknown[]} */ ...args) => call("setup.call", [prop, args]);
    },
  });
}
