// pi's ExtensionAPI (pi 0.73.1), member by member and event by event: what `hookbox/extension`
// carries across the isolation boundary today, and what it refuses (with why). One table, read by
// the worker (a refused member throws when an isolated module calls it), by the adapter
// (src/extension/refusals.ts: a module that registered a refused event, or a renderer outside worker
// isolation, does not load) and by a test that checks it against the agent's own `ExtensionAPI`
// type, so a new member cannot slip through unclassified.

/**
 * Members an isolated module may use: they cross (`on` only for a carried event). The agent's
 * getters and setters (`sendUserMessage` … `setThinkingLevel`) reach the agent's own `pi` through
 * src/bridge/agent-gate.ts: getters answer data, setters run as `policy.agent` allows.
 */
export const CARRIED_MEMBERS = Object.freeze([
  "on", "sendMessage", "appendEntry", "exec", "sendUserMessage", "setSessionName", "getSessionName", "setLabel", "getActiveTools",
  "getAllTools", "setActiveTools", "getCommands", "setModel", "getThinkingLevel", "setThinkingLevel", "registerMessageRenderer",
  // As data on the agent's pi; what they run (execute, handler, completions) runs isolated (src/extension/registrations.ts).
  "registerTool", "registerCommand", "registerFlag", "getFlag", "registerShortcut",
  // A bus shared by the modules of one isolate(), data only, through the host (worker/bus.mjs); never the agent's own bus.
  "events",
]);

/**
 * What each member a module reaches does to the agent (worker/effects.mjs; `policy.effects` grants
 * up to one class): a member above the hook's grant is refused on the host as `effect_refused`,
 * naming it (src/bridge/host-bridge.ts, src/bridge/agent-gate.ts, src/extension/adapter.ts).
 * Keys are `pi` members, `ctx.<member>` and `ctx.ui.<member>` for the context's, and
 * `registerTool:built-in` for a tool named like one of the agent's own (it would replace it),
 * `registerTool:prompt` for a tool with a `promptSnippet` or `promptGuidelines` (system prompt text).
 * `exec` changes nothing of the agent: what it may run is its own axis, `policy.exec`.
 * @type {Readonly<Record<string, "observe" | "restrict" | "substitute">>}
 */
export const MEMBER_EFFECTS = Object.freeze({
  on: "observe", exec: "observe", getSessionName: "observe", getActiveTools: "observe", getAllTools: "observe", getCommands: "observe",
  getThinkingLevel: "observe", getFlag: "observe", registerMessageRenderer: "observe",
  // What the user or the model chooses to run; what it runs runs isolated, under the hook's own policy.
  registerTool: "observe", registerCommand: "observe", registerFlag: "observe", registerShortcut: "observe",
  // Data between the modules of one isolate(): nothing of the agent's.
  events: "observe",
  logger: "observe", typebox: "observe",
  // The context: reads of the agent, and its UI, where the user answers and reads (an editor text
  // the hook sets is the user's to read, change or send).
  "ctx.ui": "observe", "ctx.hasUI": "observe", "ctx.cwd": "observe", "ctx.sessionManager": "observe", "ctx.modelRegistry": "observe",
  "ctx.model": "observe", "ctx.isIdle": "observe", "ctx.hasPendingMessages": "observe", "ctx.getContextUsage": "observe",
  "ctx.getSystemPrompt": "observe", "ctx.signal": "observe",
  "ctx.ui.select": "observe", "ctx.ui.confirm": "observe", "ctx.ui.input": "observe", "ctx.ui.notify": "observe", "ctx.ui.setStatus": "observe",
  "ctx.ui.custom": "observe", "ctx.ui.setEditorText": "observe", "ctx.ui.getEditorText": "observe", "ctx.ui.editor": "observe", "ctx.ui.theme": "observe",
  "ctx.ui.setWidget": "observe", "ctx.ui.setTitle": "observe",
  // The working row and the hidden-thinking label: texts drawn on the agent's screen, as setStatus.
  "ctx.ui.setWorkingMessage": "observe", "ctx.ui.setWorkingIndicator": "observe", "ctx.ui.setWorkingVisible": "observe", "ctx.ui.setHiddenThinkingLabel": "observe",
  "ctx.ui.setHeader": "observe", "ctx.ui.setFooter": "observe", "ctx.ui.getAllThemes": "observe", "ctx.ui.setTheme": "observe",
  // A custom entry in the session: the module's own state, which the model never reads (pi keeps it
  // out of the context; `sendMessage` is the member whose message the model reads).
  appendEntry: "observe",
  // The agent does less: it stops (shutting down is saying no to going on: under policy.agent "read" too).
  "ctx.abort": "restrict", "ctx.shutdown": "restrict",
  // The agent reads or does something else: a message in its session or context, a turn it did not
  // ask for, another model, tool set or thinking level, a name or label, a compaction now.
  sendMessage: "substitute", sendUserMessage: "substitute", setSessionName: "substitute", setLabel: "substitute",
  setActiveTools: "substitute", setModel: "substitute", setThinkingLevel: "substitute", "ctx.compact": "substitute",
  "registerTool:built-in": "substitute",
  // A tool's own renderers draw its row; its prepareArguments shapes what its own execute is given.
  "registerTool:render": "observe", "registerTool:prepareArguments": "observe",
  // A tool's `promptSnippet` and `promptGuidelines`: text the agent adds to the model's system prompt.
  "registerTool:prompt": "substitute",
});

const NOT_YET = "not carried across the isolation boundary yet";

/**
 * Members refused at load, with why: they throw in the worker, naming the member and why.
 * (`registerMessageRenderer` crosses in worker isolation only: src/extension/refusals.ts refuses it in the
 * others, saying why.)
 * @type {Readonly<Record<string, string>>}
 */
export const REFUSED_MEMBERS = Object.freeze({
  registerProvider: "provider streams cannot cross yet: the provider would run in the agent with the agent's keys",
  unregisterProvider: "provider streams cannot cross yet: the provider would run in the agent with the agent's keys",
});

/**
 * oh-my-pi's ExtensionAPI members beyond pi's (oh-my-pi 18.2.3; test/extension.test.ts checks both
 * ways against its type). Carried: the ones hookbox's worker serves itself (`logger` posts to the
 * host's `onLog`; `typebox` is `@sinclair/typebox` when installed beside hookbox, worker/extras.mjs).
 */
export const OMP_CARRIED_MEMBERS = Object.freeze(["logger", "typebox"]);

const OMPTYPE = "oh-my-pi injects its own schema builders (@oh-my-pi/omptype module objects), which cannot cross the isolation boundary, "
  + "and hookbox ships no copy of them; write a tool's parameters as JSON Schema or with pi.typebox";
/**
 * oh-my-pi's members beyond pi's that are refused: like REFUSED_MEMBERS, using one throws in the
 * worker, naming the member and why (an object member throws at any property access or call).
 * @type {Readonly<Record<string, string>>}
 */
export const OMP_REFUSED_MEMBERS = Object.freeze({
  pi: "the agent's own package is not available to a sandboxed hook (its values hold the host's state and secrets); import what you need from a host module the embedder offers (the hostModules option)",
  arktype: OMPTYPE,
  zod: OMPTYPE,
  registerFileWriteFallback: `${NOT_YET}: oh-my-pi calls the handler inside its own file tools, process-wide, to write a file its own permissions denied`,
  registerFileDeleteFallback: `${NOT_YET}: oh-my-pi calls the handler inside its own file tools, process-wide, to delete a file its own permissions denied`,
  registerAssistantThinkingRenderer: "not carried yet: a thinking renderer builds a TUI component the agent draws synchronously in its own process (hookbox's component path serves message renderers only)",
  registerComposerShape: "a composer shape is a renderer contract for the agent's own editor, which its terminal calls synchronously: it cannot run isolated",
  getServiceTiers: `${NOT_YET}: hookbox's agent gate (src/bridge/agent-gate.ts) does not serve service tiers`,
  setServiceTier: `${NOT_YET}: hookbox's agent gate (src/bridge/agent-gate.ts) does not serve service tiers`,
});

/** oh-my-pi's `pi.setLabel(label)` at load (one argument: the extension's display label), which is not pi's `setLabel(entryId, label)`. */
export const OMP_LABEL_REFUSAL = `pi.setLabel(label) is refused by hookbox/extension: ${NOT_YET}: oh-my-pi's one-argument form at load names the extension in its lists, and the extension it lists is the isolate() that wraps the module (pi's setLabel(entryId, label) from a handler crosses)`;

/**
 * Every member whose use while a module loads fails its load, in every agent (the worker does not
 * know which agent it serves): each refused member, at any use (worker/api.mjs), and `setLabel`
 * called with one argument (oh-my-pi's form: worker/agent-members.mjs). By member: `"any"`, or the
 * number of arguments of the refused call. A reading of a module's source (src/extension/reading.ts)
 * is not certain of a module that may make one of these, so such a module loads before the agent's
 * start goes on, where its refusal is reported.
 * @type {Readonly<Record<string, "any" | number>>}
 */
export const REFUSED_AT_LOAD = Object.freeze({
  ...Object.fromEntries([...Object.keys(REFUSED_MEMBERS), ...Object.keys(OMP_REFUSED_MEMBERS)].map((member) => [member, "any"])),
  setLabel: 1,
});

/** Events whose result the agent uses and hookbox's runner combines (with its own rule and schema). */
export const RESULT_EVENTS = Object.freeze([
  "tool_call", "tool_result", "context", "before_agent_start", "session_before_switch", "session_before_compact", "session_before_tree",
  "session_before_fork", "input", "user_bash", "message_end", "before_provider_request", "resources_discover",
]);

/** Events the agent only notifies (it ignores what handlers return): carried as series. */
export const NOTIFY_EVENTS = Object.freeze([
  "session_start", "session_shutdown", "session_compact", "session_tree", "agent_start", "agent_end", "turn_start", "turn_end",
  "message_start", "message_update", "tool_execution_start", "tool_execution_update", "tool_execution_end", "model_select",
  "thinking_level_select", "after_provider_response",
]);

/**
 * Events refused at load: a module that subscribes to one does not load. None today: every event
 * of pi 0.73.1 is carried (a result a handler returns that cannot cross, such as `user_bash`'s
 * `operations`, is refused by its schema as `invalid_result`).
 * @type {Readonly<Record<string, string>>}
 */
export const REFUSED_EVENTS = Object.freeze({});

/**
 * The events of the oh-my-pi line (oh-my-pi, xcsh: the seed's agents) that pi 0.73.1 does not have:
 * the seed's hook events a legacy `HookAPI` module (an oh-my-pi or xcsh `--hook` file) subscribes
 * to, each with a rule in hookbox's runner. Carried only inside an agent of that line; in pi a
 * module that subscribes to one loads and that handler is never called, as pi never fires it (said
 * once, src/extension/refusals.ts `showUnfired`). Which line an agent is: `agentLine` in src/extension/carried.ts.
 */
export const OMP_RESULT_EVENTS = Object.freeze(["session_before_branch", "session.compacting"]);
export const OMP_NOTIFY_EVENTS = Object.freeze([
  "session_switch", "session_branch", "auto_compaction_start", "auto_compaction_end", "auto_retry_start", "auto_retry_end",
  "ttsr_triggered", "todo_reminder",
]);

const NO_RULE = `${NOT_YET}: hookbox's runner has no rule or schema for it`;
/**
 * oh-my-pi's events beyond pi's and beyond the seed's (oh-my-pi 18.2.3): refused by name in that
 * line (a module that subscribes to one does not load, saying why); in pi they are events the agent
 * does not have. test/e2e-omp.test.ts checks that every event of oh-my-pi's type is classified.
 * @type {Readonly<Record<string, string>>}
 */
export const OMP_REFUSED_EVENTS = Object.freeze({
  session_stop: `${NO_RULE} (its result can keep the agent's turn going)`,
  user_python: `${NO_RULE} (its result replaces the user's Python run)`,
  tool_approval_requested: NO_RULE,
  tool_approval_resolved: NO_RULE,
  goal_updated: NO_RULE,
  credential_disabled: `${NO_RULE} (its payload quotes the provider's error about the agent's credential verbatim)`,
  retry_fallback_applied: NO_RULE,
  retry_fallback_succeeded: NO_RULE,
  mcp_notification: NO_RULE,
});

/** pi's events the oh-my-pi line does not have: not mirrored there (a handler of one is never called, as in oh-my-pi; said once). */
export const PI_ONLY_EVENTS = Object.freeze(["session_before_fork", "model_select", "thinking_level_select"]);

/**
 * pi's `ExtensionContext` (a handler's `ctx`): what the module's `ctx` has. hookbox's own context
 * members, and pi's extras through src/bridge/agent-gate.ts. `signal` is there and always
 * undefined: the agent's AbortSignal does not cross (a module cannot abort with it).
 */
export const CARRIED_CONTEXT = Object.freeze([
  "ui", "hasUI", "cwd", "sessionManager", "modelRegistry", "model", "isIdle", "abort", "hasPendingMessages", "shutdown",
  "getContextUsage", "compact", "getSystemPrompt", "signal",
]);

/** pi's `ExtensionUIContext` (`ctx.ui`): what crosses, as data (prompts, texts, lines). */
export const CARRIED_UI = Object.freeze([
  "select", "confirm", "input", "notify", "setStatus", "setWidget", "setTitle", "custom", "setEditorText", "getEditorText", "editor", "theme",
  "setWorkingMessage", "setWorkingIndicator", "setWorkingVisible", "setHiddenThinkingLabel", "getAllThemes", "setTheme",
  // A component the module's worker renders, through the component path (worker isolation only; elsewhere it throws, saying why).
  "setHeader", "setFooter",
]);

const COMPONENT = "it takes a component or a function the agent's terminal would call synchronously, which cannot run isolated";
const NOT_YET_UI = `${NOT_YET}: it changes how the agent's terminal works`;
/** pi's `ctx.ui` members a module's `ctx.ui` refuses by name (calling one throws, naming it and why). @type {Readonly<Record<string, string>>} */
export const REFUSED_UI = Object.freeze({
  onTerminalInput: "it hands the module the user's raw keystrokes, and a listener the agent calls synchronously for each",
  setEditorComponent: COMPONENT,
  getEditorComponent: COMPONENT,
  addAutocompleteProvider: COMPONENT,
  pasteToEditor: NOT_YET_UI,
  getTheme: "it answers a Theme object, whose style methods the agent's terminal runs in its process; getAllThemes lists the themes as data, ctx.ui.theme styles with the agent's",
  getToolsExpanded: NOT_YET_UI,
  setToolsExpanded: NOT_YET_UI,
});

/**
 * The members of a tool definition (pi's `ToolDefinition`), what crosses with `pi.registerTool`:
 * the data, and `execute` (run isolated). `synchronous`: the functions the agent calls synchronously
 * in its own process (its TUI's renderers; argument preparation before validation), run in the
 * worker through the synchronous render path, bounded as message renderers (renderTimeoutMs, the
 * render budget and line bounds). Like message renderers they cross in worker isolation only:
 * elsewhere a module whose tool has one does not load, saying why (src/extension/adapter.ts).
 */
export const TOOL_MEMBERS = Object.freeze({
  carried: Object.freeze(["name", "label", "description", "promptSnippet", "promptGuidelines", "parameters", "executionMode", "execute", "renderShell"]),
  synchronous: Object.freeze(["renderCall", "renderResult", "prepareArguments"]),
  /** @type {Readonly<Record<string, string>>} */
  refused: Object.freeze({}),
});

/** @param {string} member */
export function refusedToolMemberMessage(member) {
  return `pi.registerTool's ${member} is refused by hookbox/extension: ${TOOL_MEMBERS.refused[member] ?? TOOL_RENDERER_NEEDS_WORKER}`;
}

/** Why a tool's synchronous members cross in worker isolation only. */
export const TOOL_RENDERER_NEEDS_WORKER = "the agent calls it synchronously in its own process, which only worker isolation answers (shared memory); "
  + "in process and sandbox isolation the tool would render by default and take the model's arguments unprepared";

/** @param {string} member */
/**
 * pi's `ExtensionCommandContext` members a module's command context refuses by name (calling one
 * rejects, naming it and why). @type {Readonly<Record<string, string>>}
 */
export const REFUSED_COMMAND_CONTEXT = Object.freeze({
  reload: "it reloads the agent's extensions, this isolated module and its worker among them, from inside the module's own command; the user's /reload does it",
});

/** @param {string} member */
export function refusedCommandContextMessage(member) {
  return `ctx.${member} is refused by hookbox/extension: ${REFUSED_COMMAND_CONTEXT[member]}`;
}

/** @param {string} member */
export function refusedUiMessage(member) {
  return `ctx.ui.${member} is refused by hookbox/extension: ${REFUSED_UI[member]}`;
}

/** @param {string} member */
export function refusedMemberMessage(member) {
  return `pi.${member} is refused by hookbox/extension: ${REFUSED_MEMBERS[member] ?? OMP_REFUSED_MEMBERS[member]}`;
}
