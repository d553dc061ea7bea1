// The HookContext a handler receives inside the worker. Members that are synchronous in the
// original stay synchronous here: they block this thread on a shared-buffer call the host
// answers. Members that are async go through ordinary bridge calls, which pause the deadline.
// A command called with a context its caller built reaches that context: its calls go through
// the `scoped` channel (see src/bridge/command-scope.ts).
/** @import { ContextSnapshot } from "../src/contract/protocol.js" */
/** @import { Request } from "./channel.mjs" */
/** @import { CallMethod, PostMethod, SyncMethod } from "./wire.mjs" */
import { call, callSync, post, requestOf } from "./channel.mjs";
import { plain } from "./edits.mjs";
import { runCustom, setFooter, setHeader } from "./custom.mjs";
import { agentContext, agentUi } from "./agent-members.mjs";
import { refusedCommandContextMessage } from "./extension-members.mjs";
import { METHOD, SESSION_METHODS } from "./wire.mjs";

/**
 * How a context reaches the host. Arguments are unwrapped first: a hook may pass parts of its
 * (tracked) event on.
 * @typedef {{ call: (m: CallMethod, a: unknown[], rid?: number) => Promise<any>; post: (m: PostMethod, a: unknown[]) => void; callSync: (m: SyncMethod, a: unknown[]) => any }} Channel
 */

/** The runner's channel. @type {Channel} */
export const direct = Object.freeze({
  call: (m, a, rid) => call(m, plain(a), rid),
  post: (m, a) => post(m, plain(a)),
  callSync: (m, a) => callSync(m, plain(a)),
});

/**
 * A context's `call`: it names the request `req` the context was made for (see `requestOf`), so
 * the host pauses that request's deadline for a prompt and allows command-only methods in a
 * command's context only.
 * @param {Channel} ch @param {Request} req @returns {Channel["call"]}
 */
const asking = (ch, req) => (m, a) => ch.call(m, a, requestOf(req));

/** @param {number} scope @returns {Channel} */
function scoped(scope) {
  return Object.freeze({
    call: (m, a, rid) => call(METHOD.scopedCall, [scope, m, plain(a)], rid),
    post: (m, a) => post(METHOD.scopedPost, [scope, m, plain(a)]),
    callSync: (m, a) => callSync(METHOD.scopedSync, [scope, m, plain(a)]),
  });
}

/**
 * A method of a host object: synchronous when the host's method is, a promise when it returned
 * one (the host answers `{ p }` and the value comes by an async call, see src/bridge/deferred.ts).
 * A failure names the method.
 * @param {Channel} ch @param {string} label @param {SyncMethod} m @param {unknown[]} a
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

/**
 * Not frozen, as pi's session manager is not (a module may wrap it in a Proxy, see `uiOf`); one per
 * channel, like pi's one per session.
 * @param {Channel} ch
 */
function sessionManagerOf(ch) {
  /** @type {Record<string, Function>} */
  const out = {};
  for (const name of SESSION_METHODS) out[name] = (/** @type {unknown[]} */ ...args) => hostMethod(ch, `ctx.sessionManager.${name}()`, METHOD.session, [name, args]);
  return out;
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
      return (/** @type {unknown[]} */ ...args) => ch.callSync(METHOD.theme, [prop, args]);
    },
  });
}

let nextSignal = 1;
/** @param {Channel} ch @param {AbortSignal | undefined} signal */
function signalId(ch, signal) {
  if (!signal) return undefined;
  const id = nextSignal++;
  signal.addEventListener("abort", () => ch.post(METHOD.abortEditor, [id]), { once: true });
  return id;
}

/** @typedef {{ signal?: AbortSignal; timeout?: number } | undefined} DialogOptions */

/**
 * Ask with a dialog's options (pi's `timeout` and `signal`), sent only when the module gave one, so
 * the host's UI dismisses the dialog as it does in-process. A signal already aborted answers as a
 * dismissed dialog does (`dismissed`) without asking.
 * @param {Channel} ch @param {(m: any, a: unknown[]) => Promise<any>} ask @param {any} method @param {unknown[]} args
 * @param {DialogOptions} options @param {unknown} dismissed
 */
function dialog(ch, ask, method, args, options, dismissed) {
  if (options?.signal?.aborted) return Promise.resolve(dismissed);
  /** @type {{ timeout?: number; signal?: number }} */
  const spec = {};
  if (typeof options?.timeout === "number") spec.timeout = options.timeout;
  const id = signalId(ch, options?.signal);
  if (id !== undefined) spec.signal = id;
  // Trailing arguments the module left out stay out (a JSON frame would turn undefined into null).
  const sent = Object.keys(spec).length > 0 ? [...args, spec] : args.at(-1) === undefined ? args.slice(0, -1) : args;
  return ask(method, sent);
}

/**
 * A context's `ui`. Its prompts name the request `req` the context was made for (`asking`); the
 * rest is the channel's, shared. Plain closures:
 * destructured methods (`const { confirm } = ctx.ui`) work as in the original.
 * Not frozen, as pi's is not: a module that wraps `ctx.ui` in its own Proxy (an MCP adapter does)
 * must get its own values back from `get`, which a Proxy may not do over a frozen property. A fresh
 * object per context, whose members are closures over the channel: what a module changes in it
 * changes its own context only, never what the host does (every call is checked there).
 * @param {ReturnType<typeof membersOf>} m @param {Request} req
 */
function uiOf(m, req) {
  const { ch, shared } = m;
  const ask = asking(ch, req);
  return {
    select: (/** @type {string} */ title, /** @type {string[]} */ options, /** @type {DialogOptions} */ d) => dialog(ch, ask, METHOD.select, [title, options], d, undefined),
    confirm: (/** @type {string} */ title, /** @type {string} */ message, /** @type {DialogOptions} */ d) => dialog(ch, ask, METHOD.confirm, [title, message], d, false),
    input: (/** @type {string} */ title, /** @type {string | undefined} */ placeholder, /** @type {DialogOptions} */ d) => dialog(ch, ask, METHOD.input, [title, placeholder], d, undefined),
    editor: (/** @type {string} */ title, /** @type {string | undefined} */ prefill, /** @type {DialogOptions} */ d) => dialog(ch, ask, METHOD.editor, [title, prefill], d, undefined),
    notify: shared.notify,
    setStatus: shared.setStatus,
    setEditorText: shared.setEditorText,
    getEditorText: shared.getEditorText,
    custom: (/** @type {unknown} */ factory, /** @type {unknown} */ options) => runCustom({ call: ask, post: ch.post }, m.theme, factory, options),
    // pi's: setWidget and setTitle as data, what cannot cross refused by name (worker/agent-members.mjs).
    ...m.agentUi,
    setHeader: (/** @type {unknown} */ factory) => setHeader(ch, m.theme, factory),
    setFooter: (/** @type {unknown} */ factory) => setFooter(ch, m.theme, factory, direct),
    // Why a data property: a getter in an object literal costs about a microsecond, per context.
    theme: m.theme,
  };
}

/** What every context of one channel shares (nothing in it names a request), built once per channel. */
function membersOf(/** @type {Channel} */ ch) {
  return {
    ch,
    theme: themeOf(ch),
    /** The `ui` members that name no request. */
    shared: {
      // An argument left out stays out: a JSON frame (process and sandbox isolation) would send undefined as null.
      notify: (/** @type {string} */ message, /** @type {string | undefined} */ type) => ch.post(METHOD.notify, type === undefined ? [message] : [message, type]),
      setStatus: (/** @type {string} */ key, /** @type {string | undefined} */ text) => ch.post(METHOD.setStatus, text === undefined ? [key] : [key, text]),
      setEditorText: (/** @type {string} */ text) => ch.post(METHOD.setEditorText, [text]),
      getEditorText: () => ch.callSync(METHOD.getEditorText, []),
    },
    sessionManager: sessionManagerOf(ch),
    modelRegistry: modelRegistryOf(ch),
    isIdle: () => ch.callSync(METHOD.isIdle, []),
    abort: () => ch.post(METHOD.abort, []),
    hasQueuedMessages: () => ch.callSync(METHOD.hasQueuedMessages, []),
    agent: agentContext(ch),
    agentUi: agentUi(ch),
  };
}
const runnerMembers = membersOf(direct);

/** The theme a renderer gets (it runs outside any request). */
export const runnerTheme = runnerMembers.theme;

/** The context of the event request `req`. @param {ContextSnapshot} snap @param {Request} req */
export function createContext(snap, req) {
  return contextOf(snap, runnerMembers, req);
}

/** @param {ContextSnapshot} snap @param {ReturnType<typeof membersOf>} m @param {Request} req */
function contextOf(snap, m, req) {
  return {
    ui: uiOf(m, req),
    hasUI: snap.hasUI,
    cwd: snap.cwd,
    sessionManager: m.sessionManager,
    modelRegistry: m.modelRegistry,
    model: snap.model,
    isIdle: m.isIdle,
    abort: m.abort,
    hasQueuedMessages: m.hasQueuedMessages,
    // pi's context members (worker/agent-members.mjs); `signal` does not cross.
    hasPendingMessages: m.agent.hasPendingMessages,
    getContextUsage: m.agent.getContextUsage,
    getSystemPrompt: m.agent.getSystemPrompt,
    compact: m.agent.compact,
    shutdown: m.agent.shutdown,
    signal: undefined,
  };
}

/**
 * A command handler's context: the event context plus the session controls, which exist in a
 * command's context only (they name `req`, and the host checks that it is a command).
 * @param {ContextSnapshot} snap @param {Request} req
 */
export function createCommandContext(snap, req) {
  const members = snap.scope === undefined ? runnerMembers : membersOf(scoped(snap.scope));
  const ch = members.ch;
  const ask = asking(ch, req);
  return {
    ...contextOf(snap, members, req),
    waitForIdle: () => ask(METHOD.waitForIdle, []),
    /** @param {{ parentSession?: string; setup?: (sm: unknown) => Promise<void> }} [options] */
    newSession: async (options = {}) => {
      const { setup, ...rest } = options;
      // pi's withSession(replacementCtx) would run with the new session's context, which does not cross: refused by name, not dropped.
      for (const [key, value] of Object.entries(rest)) {
        if (typeof value === "function") throw new Error(`ctx.newSession({ ${key} }) is refused by hookbox/extension: a callback given the replacement session's context does not cross the isolation boundary yet`);
      }
      if (typeof setup !== "function") return ask(METHOD.newSession, [rest, false]);
      // The host calls back into this worker (entry.mjs "setup"); the session manager it gets
      // writes through the same channel as this context.
      pendingSetups.push(() => setup(createSetupSessionManager(ch)));
      return ask(METHOD.newSession, [rest, true]);
    },
    branch: (/** @type {string} */ entryId) => ask(METHOD.branch, [entryId]),
    navigateTree: (/** @type {string} */ targetId, /** @type {{ summarize?: boolean } | undefined} */ options) =>
      ask(METHOD.navigateTree, [targetId, options ?? {}]),
    // pi's, refused by name (worker/extension-members.mjs REFUSED_COMMAND_CONTEXT) rather than missing.
    reload: () => Promise.reject(new Error(refusedCommandContextMessage("reload"))),
  };
}

/** Setup callbacks waiting for the host to open the new session. @type {Array<(sm: unknown) => Promise<void>>} */
export const pendingSetups = [];

/** The writable session manager `setup` receives: each method call goes to the host, in order. @param {Channel} [ch] */
export function createSetupSessionManager(ch = direct) {
  return new Proxy(Object.freeze({}), {
    get(_target, prop) {
      if (typeof prop !== "string" || prop === "then") return undefined;
      return (/** @type {unknown[]} */ ...args) => ch.call(METHOD.setupCall, [prop, args]);
    },
  });
}
