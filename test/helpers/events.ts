/** A sample payload for every event of the contract, and one way to emit any of them. */
import type { HookRunner } from "../../src/runner.js";
import type { AgentMessage, HookEvent, HookEventOf, HookEventType } from "../../src/types.js";

/**
 * Every event type of the contract, once. Typed against the `HookEventType` union, so tsc fails
 * when the union gains a type this list lacks or the list names one the union does not have.
 */
const CONTRACT: Record<HookEventType, true> = {
  session_start: true, session_before_switch: true, session_switch: true, session_before_branch: true, session_branch: true,
  session_before_compact: true, "session.compacting": true, session_compact: true, session_shutdown: true,
  session_before_tree: true, session_tree: true, context: true, before_agent_start: true, agent_start: true, agent_end: true,
  turn_start: true, turn_end: true, auto_compaction_start: true, auto_compaction_end: true, auto_retry_start: true,
  auto_retry_end: true, ttsr_triggered: true, todo_reminder: true, tool_call: true, tool_result: true,
};
export const CONTRACT_EVENTS = Object.keys(CONTRACT) as HookEventType[];

export const MESSAGES: AgentMessage[] = [
  { role: "user", content: "hello", timestamp: 1 },
  { role: "custom", customType: "debug-only", content: "noise", timestamp: 2 },
];

const preparation = {
  firstKeptEntryId: "e1", messagesToSummarize: [], turnPrefixMessages: [], recentMessages: [], isSplitTurn: false,
  tokensBefore: 100, fileOps: {}, settings: {},
};
const compaction = { summary: "s", firstKeptEntryId: "e1", tokensBefore: 100 };

/** A fresh payload of `type` (AbortSignals are new each time). */
export function sample(type: string): HookEvent {
  const events: { [T in HookEventType]: HookEventOf<T> } = {
    session_start: { type: "session_start" },
    session_before_switch: { type: "session_before_switch", reason: "resume", targetSessionFile: "/s/next.jsonl" },
    session_switch: { type: "session_switch", reason: "new", previousSessionFile: undefined },
    session_before_branch: { type: "session_before_branch", entryId: "e7" },
    session_branch: { type: "session_branch", previousSessionFile: "/s/prev.jsonl" },
    session_before_compact: { type: "session_before_compact", preparation, branchEntries: [], signal: new AbortController().signal },
    "session.compacting": { type: "session.compacting", sessionId: "s1", messages: MESSAGES },
    session_compact: { type: "session_compact", compactionEntry: { type: "compaction", id: "c1", parentId: null, timestamp: "2026-01-01T00:00:00.000Z", ...compaction }, fromExtension: false },
    session_shutdown: { type: "session_shutdown" },
    session_before_tree: {
      type: "session_before_tree", signal: new AbortController().signal,
      preparation: { targetId: "t", oldLeafId: null, commonAncestorId: null, entriesToSummarize: [], userWantsSummary: true },
    },
    session_tree: { type: "session_tree", newLeafId: "n", oldLeafId: null },
    context: { type: "context", messages: MESSAGES },
    before_agent_start: { type: "before_agent_start", prompt: "do it" },
    agent_start: { type: "agent_start" },
    agent_end: { type: "agent_end", messages: MESSAGES },
    turn_start: { type: "turn_start", turnIndex: 0, timestamp: 1 },
    turn_end: { type: "turn_end", turnIndex: 0, message: MESSAGES[0]!, toolResults: [] },
    auto_compaction_start: { type: "auto_compaction_start", reason: "threshold", action: "context-full" },
    auto_compaction_end: { type: "auto_compaction_end", action: "context-full", result: compaction, aborted: false, willRetry: false },
    auto_retry_start: { type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 10, errorMessage: "overloaded" },
    auto_retry_end: { type: "auto_retry_end", success: true, attempt: 1 },
    ttsr_triggered: { type: "ttsr_triggered", rules: [{ name: "r", path: "/r.md", content: "c" }] },
    todo_reminder: { type: "todo_reminder", todos: [{ id: "1", content: "x", status: "pending" }], attempt: 1, maxAttempts: 2 },
    tool_call: { type: "tool_call", toolName: "bash", toolCallId: "call-1", input: { command: "ls" } },
    tool_result: {
      type: "tool_result", toolName: "read", toolCallId: "call-1", input: { path: "a" },
      content: [{ type: "text", text: "original" }], details: { lines: 1 }, isError: false,
    },
  };
  const event = (events as Record<string, HookEvent>)[type];
  if (!event) throw new Error(`no sample for ${type}`);
  return event;
}

/** Emit `event` through the runner method the contract names for its type. */
export function emitAny(runner: HookRunner, event: HookEvent): Promise<unknown> {
  switch (event.type) {
    case "tool_call": return runner.emitToolCall(event);
    case "context": return runner.emitContext(event.messages);
    case "before_agent_start": return runner.emitBeforeAgentStart(event.prompt, event.images);
    default: return runner.emit(event);
  }
}

/** A bash tool_call running `command`. */
export const toolCall = (command = "ls", toolCallId = "c1") =>
  ({ type: "tool_call" as const, toolName: "bash", toolCallId, input: { command } });
/** A turn_start at turn 0. */
export const turnStart = () => ({ type: "turn_start" as const, turnIndex: 0, timestamp: Date.now() });
