// pi's ExtensionAPI (pi 0.73.1), member by member and event by event: what `hookbox/extension`
// carries across the isolation boundary today, and what it refuses (with why). One table, read by
// the worker (a refused member throws when an isolated module calls it), by the adapter
// (src/extension.ts: a module that registered a refused event or a renderer does not load) and by a test that checks it against the agent's own `ExtensionAPI` type, so a new member
// cannot slip through unclassified.

/** Members an isolated module may use: they cross (`on` only for a carried event). */
export const CARRIED_MEMBERS = Object.freeze([
  "on", "sendMessage", "appendEntry", "exec",
  // As data on the agent's pi; what they run (execute, handler, completions) runs isolated (src/extension-registrations.ts).
  "registerTool", "registerCommand", "registerFlag", "getFlag", "registerShortcut",
]);

const NOT_YET = "not carried across the isolation boundary yet";

/**
 * Members refused at load, with why. Those also in hookbox's hook API (`registerMessageRenderer`)
 * are refused by the adapter after load; the others throw in the worker.
 * @type {Readonly<Record<string, string>>}
 */
export const REFUSED_MEMBERS = Object.freeze({
  registerMessageRenderer: `${NOT_YET}: a renderer returns the agent's TUI components`,
  sendUserMessage: `${NOT_YET}: it starts a turn of the agent`,
  setSessionName: `${NOT_YET}: it writes the agent's session`,
  getSessionName: `${NOT_YET}: it reads the agent's session outside an event`,
  setLabel: `${NOT_YET}: it writes the agent's session`,
  getActiveTools: `${NOT_YET}: it reads the agent's tools`,
  getAllTools: `${NOT_YET}: it reads the agent's tools`,
  setActiveTools: `${NOT_YET}: it changes the agent's tools`,
  getCommands: `${NOT_YET}: it reads the agent's commands`,
  setModel: `${NOT_YET}: it changes the agent's model`,
  getThinkingLevel: `${NOT_YET}: it reads the agent's state`,
  setThinkingLevel: `${NOT_YET}: it changes the agent's state`,
  registerProvider: "provider streams cannot cross yet: the provider would run in the agent with the agent's keys",
  unregisterProvider: "provider streams cannot cross yet: the provider would run in the agent with the agent's keys",
  events: `${NOT_YET}: the event bus is shared with the agent's in-process extensions`,
});

/** Events whose result the agent uses and hookbox's runner combines (with its own rule and schema). */
export const RESULT_EVENTS = Object.freeze([
  "tool_call", "tool_result", "context", "before_agent_start", "session_before_switch", "session_before_compact", "session_before_tree",
]);

/** Events the agent only notifies (it ignores what handlers return): carried as series. */
export const NOTIFY_EVENTS = Object.freeze([
  "session_start", "session_shutdown", "session_compact", "session_tree", "agent_start", "agent_end", "turn_start", "turn_end",
  "message_start", "message_update", "tool_execution_start", "tool_execution_update", "tool_execution_end", "model_select",
  "thinking_level_select", "after_provider_response",
]);

/**
 * The events of the oh-my-pi line (oh-my-pi, xcsh: the seed's agents) that pi 0.73.1 does not have:
 * the seed's hook events a legacy `HookAPI` module (an oh-my-pi or xcsh `--hook` file) subscribes
 * to, each with a rule in hookbox's runner. Carried only inside an agent of that line; in pi a
 * module that subscribes to one does not load ("the agent has no such event"), never silently
 * left uncalled. Which line an agent is: `agentLine` in src/extension.ts.
 */
export const OMP_RESULT_EVENTS = Object.freeze(["session_before_branch", "session.compacting"]);
export const OMP_NOTIFY_EVENTS = Object.freeze([
  "session_switch", "session_branch", "auto_compaction_start", "auto_compaction_end", "auto_retry_start", "auto_retry_end",
  "ttsr_triggered", "todo_reminder",
]);

/** pi's events the oh-my-pi line does not have: not mirrored there, so a module subscribing to one is refused, not left uncalled. */
export const PI_ONLY_EVENTS = Object.freeze(["session_before_fork", "model_select", "thinking_level_select"]);

const NO_RULE = "its result is used by the agent, and hookbox's runner has no rule for it yet (the result would be dropped)";

/** Events refused at load: a module that subscribes to one does not load. @type {Readonly<Record<string, string>>} */
export const REFUSED_EVENTS = Object.freeze({
  input: NO_RULE,
  user_bash: NO_RULE,
  message_end: NO_RULE,
  before_provider_request: NO_RULE,
  resources_discover: NO_RULE,
  session_before_fork: NO_RULE,
});

/**
 * The members of a tool definition (pi's `ToolDefinition`), what crosses with `pi.registerTool`:
 * the data, and `execute` (run isolated). The functions the agent calls synchronously in its own
 * process (its TUI rendering, argument preparation before validation) are refused: a module whose
 * tool has one does not load.
 */
export const TOOL_MEMBERS = Object.freeze({
  carried: Object.freeze(["name", "label", "description", "promptSnippet", "promptGuidelines", "parameters", "executionMode", "execute"]),
  /** @type {Readonly<Record<string, string>>} */
  refused: Object.freeze({
    renderCall: "not carried yet: a tool renderer builds a TUI component the agent draws synchronously in its own process (hookbox's component path serves message renderers only)",
    renderResult: "not carried yet: a tool renderer builds a TUI component the agent draws synchronously in its own process (hookbox's component path serves message renderers only)",
    renderShell: "it only frames the tool's own renderers, which cannot cross",
    prepareArguments: "the agent calls it synchronously, before validating the model's arguments, in its own process",
  }),
});

/** @param {string} member */
export function refusedToolMemberMessage(member) {
  return `pi.registerTool's ${member} is refused by hookbox/extension: ${TOOL_MEMBERS.refused[member]}`;
}

/** @param {string} member */
export function refusedMemberMessage(member) {
  return `pi.${member} is refused by hookbox/extension: ${REFUSED_MEMBERS[member]}`;
}
