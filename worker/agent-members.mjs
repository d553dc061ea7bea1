// pi's agent members as an isolated module sees them (hookbox/extension): `pi.sendUserMessage`,
// `pi.getSessionName`, `pi.setModel`…, `ctx.getContextUsage`, `ctx.compact`…, `ctx.ui.setWidget`,
// `ctx.ui.setTitle`. Each is a bridge call the host answers with the agent's own objects as its
// policy allows (src/bridge/agent-gate.ts). Getters and setters are synchronous, as in pi: the
// worker blocks on the host's answer, so a refusal throws at the call.
/** @import { CallMethod, SyncMethod } from "./wire.mjs" */
/** A context's way to the host (worker/context.mjs `Channel`, without importing it: context.mjs imports this). @typedef {{ call: (m: CallMethod, a: unknown[]) => Promise<any>; callSync: (m: SyncMethod, a: unknown[]) => any }} Channel */
import { OMP_LABEL_REFUSAL, REFUSED_AT_LOAD, REFUSED_UI, refusedUiMessage } from "./extension-members.mjs";
import { METHOD } from "./wire.mjs";

/** `pi`'s agent members. @param {Channel} ch @param {() => boolean} initialized */
export function agentApi(ch, initialized) {
  /** @param {string} member */
  const ready = (member) => {
    if (!initialized()) throw new Error(`pi.${member} is not available while the extension loads: call it from a handler`);
  };
  /** @param {string} member */
  const get = (member) => () => { ready(member); return ch.callSync(METHOD.agentGet, [member, []]); };
  /** @param {string} member */
  const set = (member) => (/** @type {unknown[]} */ ...args) => { ready(member); ch.callSync(METHOD.agentSet, [member, trimmed(args)]); };
  return {
    sendUserMessage: set("sendUserMessage"),
    setSessionName: set("setSessionName"),
    getSessionName: get("getSessionName"),
    setLabel: (/** @type {unknown[]} */ ...args) => {
      // oh-my-pi's setLabel(label) at load (the extension's display label) is not pi's setLabel(entryId, label).
      if (!initialized() && args.length === REFUSED_AT_LOAD.setLabel) throw new Error(OMP_LABEL_REFUSAL);
      set("setLabel")(...args);
    },
    getActiveTools: get("getActiveTools"),
    getAllTools: get("getAllTools"),
    setActiveTools: set("setActiveTools"),
    getCommands: get("getCommands"),
    getThinkingLevel: get("getThinkingLevel"),
    setThinkingLevel: set("setThinkingLevel"),
    /** The model crosses as its provider and id; the host looks it up in the agent's registry. @param {{ provider?: unknown; id?: unknown }} model */
    setModel(model) {
      ready("setModel");
      return ch.call(METHOD.agentSetModel, [String(model?.provider), String(model?.id)]);
    },
  };
}

/** pi's `ctx` members beyond hookbox's context, shared by every context of a channel. @param {Channel} ch */
export function agentContext(ch) {
  return {
    hasPendingMessages: () => ch.callSync(METHOD.agentGet, ["hasPendingMessages", []]),
    getContextUsage: () => ch.callSync(METHOD.agentGet, ["getContextUsage", []]),
    getSystemPrompt: () => ch.callSync(METHOD.agentGet, ["getSystemPrompt", []]),
    /**
     * Without callbacks a setter (a refusal throws at the call); with `onComplete` or `onError` the
     * host answers when the agent's compaction ends, and the callback runs here, as in pi.
     * @param {{ customInstructions?: string; onComplete?: (result: unknown) => void; onError?: (error: Error) => void }} [options]
     */
    compact: (options) => {
      const args = options?.customInstructions === undefined ? [] : [{ customInstructions: options.customInstructions }];
      if (typeof options?.onComplete !== "function" && typeof options?.onError !== "function") {
        ch.callSync(METHOD.agentSet, ["compact", args]);
        return;
      }
      ch.call(METHOD.agentCompact, args).then(
        (result) => options.onComplete?.(result),
        (err) => options.onError?.(err instanceof Error ? err : new Error(String(err))),
      );
    },
    shutdown: () => { ch.callSync(METHOD.agentSet, ["shutdown", []]); },
  };
}

/** pi's `ctx.ui` members beyond hookbox's UI: lines and a title as data; what cannot cross throws by name. @param {Channel} ch */
export function agentUi(ch) {
  /** @type {Record<string, Function>} */
  const ui = {
    /** @param {string} key @param {unknown} content @param {{ placement?: string }} [options] */
    setWidget(key, content, options) {
      if (typeof content === "function") throw new Error(`ctx.ui.setWidget with a component factory is refused by hookbox/extension: ${REFUSED_UI.setEditorComponent}; pass the lines (string[])`);
      ch.callSync(METHOD.agentSet, ["ui.setWidget", trimmed([key, content, options])]);
    },
    /** @param {string} title */
    setTitle(title) { ch.callSync(METHOD.agentSet, ["ui.setTitle", [title]]); },
    /** @param {string} [message] */
    setWorkingMessage(message) { ch.callSync(METHOD.agentSet, ["ui.setWorkingMessage", trimmed([message])]); },
    /** @param {{ frames?: string[]; intervalMs?: number }} [options] */
    setWorkingIndicator(options) { ch.callSync(METHOD.agentSet, ["ui.setWorkingIndicator", trimmed([options])]); },
    /**
     * By name, answered with pi's outcome (`{ success, error? }`); a Theme object (whose methods run
     * in the agent) is refused by name. @param {unknown} theme
     */
    setTheme(theme) {
      if (typeof theme !== "string") throw new Error(`ctx.ui.setTheme with a Theme object is refused by hookbox/extension: ${REFUSED_UI.getTheme}; pass the theme's name`);
      return ch.callSync(METHOD.agentSet, ["ui.setTheme", [theme]]);
    },
    /** pi's themes as data: `{ name, path }` each (what a theme picker lists). */
    getAllThemes() { return ch.callSync(METHOD.agentGet, ["ui.getAllThemes", []]); },
    /** @param {boolean} visible */
    setWorkingVisible(visible) { ch.callSync(METHOD.agentSet, ["ui.setWorkingVisible", [visible]]); },
    /** @param {string} [label] */
    setHiddenThinkingLabel(label) { ch.callSync(METHOD.agentSet, ["ui.setHiddenThinkingLabel", trimmed([label])]); },
  };
  for (const member of Object.keys(REFUSED_UI)) ui[member] = () => { throw new Error(refusedUiMessage(member)); };
  return ui;
}

/**
 * pi's theme module (its `theme`, which pi's own components read: `BorderedLoader`, `DynamicBorder`,
 * `keyHint`) reads the theme from this global, which pi's main sets before any extension runs. A
 * module that imports pi's package in its worker gets that module afresh, with the global unset
 * ("Theme not initialized"): the worker sets it to `theme`, the data theme whose every style method
 * runs on the agent's own theme (a synchronous host call: strings in, strings out), unless the
 * module set one itself.
 */
export const AGENT_THEME_KEY = Symbol.for("@mariozechner/pi-coding-agent:theme");
/** @param {unknown} theme */
export function installAgentTheme(theme) {
  const global = /** @type {Record<symbol, unknown>} */ (/** @type {unknown} */ (globalThis));
  global[AGENT_THEME_KEY] ??= theme;
}

/** `args` without trailing undefined ones (what the module left out stays left out). @param {unknown[]} args */
function trimmed(args) {
  let end = args.length;
  while (end > 0 && args[end - 1] === undefined) end--;
  return args.slice(0, end);
}
