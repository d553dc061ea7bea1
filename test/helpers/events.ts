/** A sample payload for every event of the contract, and one way to emit any of them. */
import type { HookRunner } from "../../src/runner/runner.js";
import type { AgentMessage, HookEvent, HookEventType } from "../../src/contract/types.js";
import { EVENT_TYPES, SAMPLE_MESSAGES, isEventType, sampleEvent } from "../../src/contract/events.js";

/** Every event type of the contract: the event table's (src/contract/events.ts). */
export const CONTRACT_EVENTS: HookEventType[] = [...EVENT_TYPES];

export const MESSAGES: AgentMessage[] = SAMPLE_MESSAGES as AgentMessage[];

/** A fresh payload of `type` (AbortSignals are new each time): its row's sample. */
export function sample(type: string): HookEvent {
  if (!isEventType(type)) throw new Error(`no sample for ${type}`);
  return sampleEvent(type);
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
