/**
 * Events from the command line: the known event types, turning JSON text into an event (with a
 * message naming what is wrong), and running one event through the runner method the contract
 * names for its type.
 */
import { HookFailure, describeThrown, type HookError } from "../contract/errors.js";
import type { HookRunner } from "../runner/runner.js";
import type { HookEvent } from "../contract/types.js";
import { EVENT_TYPES, isEventType, signalFields } from "../contract/events.js";
import { payloadProblem } from "./payloads.js";
import { levenshtein } from "../contract/edit-distance.js";

export { EVENT_TYPES, isEventType };

/** Why a piece of JSON is not an event. */
export class BadEvent extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BadEvent";
  }
}


/** Known event names close to `type`, closest first (at most three). */
export function closestEventTypes(type: string): string[] {
  const scored = EVENT_TYPES.map((t) => ({ t, d: levenshtein(type, t) }))
    .filter(({ t, d }) => d <= Math.max(2, Math.floor(t.length / 3)) || t.startsWith(type) || (type.length > 3 && t.includes(type)));
  return scored.sort((a, b) => a.d - b.d).slice(0, 3).map(({ t }) => t);
}

/** The message for an unknown event type, with the closest known names. */
export function unknownType(type: string): string {
  const close = closestEventTypes(type);
  const hint = close.length ? `did you mean ${close.join(", ")}?` : "not an event of the hook contract (hookbox emit --help lists them)";
  return `unknown event type "${type}": ${hint}`;
}

/**
 * Parse `text` as an event object. `type` (from `--event`) fills in a missing `type` field and
 * must agree with one that is there. Throws `BadEvent` naming the problem.
 */
export function parseEvent(text: string, type?: string): HookEvent {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new BadEvent(`not valid JSON: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new BadEvent(`an event must be a JSON object, got ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}`);
  }
  const event = value as Record<string, unknown>;
  if (type !== undefined && event.type !== undefined && event.type !== type) {
    throw new BadEvent(`the payload's type "${String(event.type)}" does not match --event ${type}`);
  }
  const actual = event.type ?? type;
  if (actual === undefined) throw new BadEvent(`the event has no "type" field`);
  if (typeof actual !== "string") throw new BadEvent(`"type" must be a string, got ${typeof actual}`);
  if (!isEventType(actual)) throw new BadEvent(unknownType(actual));
  const { type: _type, ...fields } = event;
  const problem = payloadProblem(actual, fields);
  if (problem !== undefined) throw new BadEvent(`not a ${actual} event: ${problem}`);
  const out: Record<string, unknown> = { ...event, type: actual };
  // Fields that hold an AbortSignal (`session_before_compact`'s `signal`) get a live one.
  for (const field of signalFields(actual)) out[field] = new AbortController().signal;
  return out as unknown as HookEvent;
}

/** What one event did. */
export interface Outcome {
  type: string;
  /** What the runner returned (for `context`, the resulting messages). */
  result: unknown;
  /** `tool_call` only: whether the tool call would be blocked, and why. */
  blocked?: boolean;
  reason?: string;
  /** `tool_call` only: the handler error that made `emitToolCall` reject (the wrapper blocks on it). */
  thrown?: HookError;
}

/** Run `event` through the method the contract names for its type. Never rejects. */
export async function runEvent(runner: HookRunner, event: HookEvent): Promise<Outcome> {
  switch (event.type) {
    case "tool_call": {
      try {
        const result = await runner.emitToolCall(event);
        return { type: event.type, result, blocked: Boolean(result?.block), ...(result?.block ? { reason: result.reason || "Tool execution was blocked by a hook" } : {}) };
      } catch (err) {
        const thrown: HookError = err instanceof HookFailure ? err.toHookError() : { hookPath: "?", event: event.type, error: describeThrown(err), code: "handler_threw" };
        return { type: event.type, result: undefined, blocked: true, reason: `a handler of ${thrown.hookPath} threw (the tool wrapper blocks): ${thrown.error}`, thrown };
      }
    }
    case "context":
      return { type: event.type, result: await runner.emitContext(event.messages ?? []) };
    case "before_agent_start":
      return { type: event.type, result: await runner.emitBeforeAgentStart(event.prompt, event.images) };
    default:
      return { type: event.type, result: await runner.emit(event) };
  }
}

/** An outcome as plain JSON (a stack kept only for `handler_threw`: it is the hook's own). */
export function outcomeJson(o: Outcome, errors: HookError[]): Record<string, unknown> {
  const out: Record<string, unknown> = { event: o.type, result: o.result ?? null };
  if (o.blocked !== undefined) out.blocked = o.blocked;
  if (o.reason !== undefined) out.reason = o.reason;
  out.errors = [...(o.thrown ? [o.thrown] : []), ...errors].map(({ stack, ...e }) => (e.code === "handler_threw" && stack ? { ...e, stack } : e));
  return out;
}
