/**
 * Events from the command line: the known event types, turning JSON text into an event (with a
 * message naming what is wrong), running one event through the runner method the contract names
 * for its type, and what that run changed in the event (its applied edits) or refused.
 */
import { HookFailure, describeThrown, type HookError, type HookErrorCode } from "../contract/errors.js";
import type { HookRunner } from "../runner/runner.js";
import type { HookEvent, HookEventType } from "../contract/types.js";
import { EVENT_TYPES, isEventType, signalFields, type AgentNotification } from "../contract/events.js";
import { AGENTS, agentEvents, anyAgentEvents, isAgentEvent, type AgentName } from "./agent.js";
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


/** Known event names (`known`: default the hook contract's) close to `type`, closest first (at most three). */
export function closestEventTypes(type: string, known: readonly string[] = EVENT_TYPES): string[] {
  const scored = known.map((t) => ({ t, d: levenshtein(type, t) }))
    .filter(({ t, d }) => d <= Math.max(2, Math.floor(t.length / 3)) || t.startsWith(type) || (type.length > 3 && t.includes(type)));
  return scored.sort((a, b) => a.d - b.d).slice(0, 3).map(({ t }) => t);
}

const AGENT_WORDS: Record<AgentName, string> = { hooks: "the hook contract", pi: "pi", omp: "oh-my-pi" };

/** The message for an event type `agent` (undefined: any agent) does not send, with the closest names or the agent that has it. */
export function unknownType(type: string, agent?: AgentName): string {
  const other = agent === undefined ? undefined : (Object.keys(AGENTS) as AgentName[]).find((a) => a !== agent && isAgentEvent(a, type));
  if (agent !== undefined && other !== undefined) return `"${type}" is not an event of ${AGENT_WORDS[agent]}: it is ${AGENT_WORDS[other]}'s (pass --agent ${other})`;
  const close = closestEventTypes(type, agent === undefined ? anyAgentEvents() : agentEvents(agent));
  const hint = close.length ? `did you mean ${close.join(", ")}?` : `not an event of ${agent === undefined ? "any agent" : AGENT_WORDS[agent]} (hookbox emit --help lists them)`;
  return `unknown event type "${type}": ${hint}`;
}

/**
 * Parse `text` as an event object of `agent` (undefined: of any agent). `type` (from `--event`)
 * fills in a missing `type` field and must agree with one that is there. Throws `BadEvent` naming the problem.
 */
export function parseEvent(text: string, type?: string, agent?: AgentName): HookEvent {
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
  if (!isAgentEvent(agent, actual)) throw new BadEvent(unknownType(actual, agent));
  const { type: _type, ...fields } = event;
  const problem = payloadProblem(actual as HookEventType | AgentNotification, fields);
  if (problem !== undefined) throw new BadEvent(`not a ${actual} event: ${problem}`);
  const out: Record<string, unknown> = { ...event, type: actual };
  // Fields that hold an AbortSignal (`session_before_compact`'s `signal`) get a live one.
  for (const field of isEventType(actual) ? signalFields(actual) : []) out[field] = new AbortController().signal;
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
  /** Every change the run left in the host's event (hooks' in-place edits the host applied), at most `MAX_EDITS`. */
  edits: Edit[];
  /** Changes past `MAX_EDITS`, counted and not listed. */
  moreEdits: number;
}

/**
 * One applied edit: the field's path (`input.command`, `content[0].text`) and its value before and
 * after; `before` is absent for a field the edit added, `after` for one it removed. A string over
 * `EDIT_VALUE_CHARS` characters is cut, ending in `…`; any other value whose JSON is longer is
 * given as that JSON text, cut the same way.
 */
export interface Edit { path: string; before?: unknown; after?: unknown }

/** Why bounds: an edit can be a whole context of messages; the diff is for reading, the result carries the rest. */
export const MAX_EDITS = 50;
export const EDIT_VALUE_CHARS = 200;

/**
 * Codes that mean a hook could not be run (it did not load, threw, hung, died or is skipped).
 * Every other code is the host refusing something a hook returned, edited or asked for, so a
 * refusal code added to the contract is shown as refused with no change here.
 */
const NOT_REFUSALS: ReadonlySet<HookErrorCode> = new Set<HookErrorCode>(
  ["load_failed", "handler_threw", "timeout", "unresponsive", "crashed", "out_of_memory", "disabled", "restarting"],
);
/** Whether `e` reports something the host refused (not applied, not run, not sent). */
export const isRefusal = (e: Pick<HookError, "code">): boolean => !NOT_REFUSALS.has(e.code);

/** The event as JSON data (its AbortSignals left out: they are the host's, never edited), to compare after the run. */
function snapshot(event: HookEvent): unknown {
  return JSON.parse(JSON.stringify(event, (_k, v: unknown) => (v instanceof AbortSignal ? undefined : v)) ?? "null");
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const bounded = (value: unknown): unknown => {
  if (typeof value === "string") return value.length > EDIT_VALUE_CHARS ? `${value.slice(0, EDIT_VALUE_CHARS - 1)}…` : value;
  const text = JSON.stringify(value);
  return text.length > EDIT_VALUE_CHARS ? `${text.slice(0, EDIT_VALUE_CHARS - 1)}…` : value;
};

/** What differs between two JSON values, leaf by leaf (arrays index by index), in document order. */
export function diff(before: unknown, after: unknown): { edits: Edit[]; more: number } {
  const edits: Edit[] = [];
  let more = 0;
  const add = (edit: Edit) => {
    if (edits.length < MAX_EDITS) edits.push(edit);
    else more++;
  };
  const walk = (a: unknown, b: unknown, path: string): void => {
    const container = (v: unknown) => v !== null && typeof v === "object";
    if (container(a) && container(b) && Array.isArray(a) === Array.isArray(b)) {
      const x = a as Record<string, unknown>;
      const y = b as Record<string, unknown>;
      const keys = Array.isArray(a) ? Array.from({ length: Math.max(a.length, (b as unknown[]).length) }, (_, i) => String(i))
        : [...new Set([...Object.keys(x), ...Object.keys(y)])];
      for (const k of keys) {
        const sub = Array.isArray(a) ? `${path}[${k}]` : IDENTIFIER.test(k) ? (path ? `${path}.${k}` : k) : `${path}[${JSON.stringify(k)}]`;
        const inA = Object.hasOwn(x, k);
        const inB = Object.hasOwn(y, k);
        if (inA && inB) walk(x[k], y[k], sub);
        else if (inA) add({ path: sub, before: bounded(x[k]) });
        else add({ path: sub, after: bounded(y[k]) });
      }
      return;
    }
    if (JSON.stringify(a) !== JSON.stringify(b)) add({ path: path || "(the event)", before: bounded(a), after: bounded(b) });
  };
  walk(before, after, "");
  return { edits, more };
}

/** Run `event` through the method the contract names for its type, with the edits it left in the event. Never rejects. */
export async function runEvent(runner: HookRunner, event: HookEvent): Promise<Outcome> {
  const before = snapshot(event);
  const ran = await run(runner, event);
  const { edits, more } = diff(before, snapshot(event));
  return { ...ran, edits, moreEdits: more };
}

async function run(runner: HookRunner, event: HookEvent): Promise<Omit<Outcome, "edits" | "moreEdits">> {
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

/**
 * An outcome as plain JSON (a stack kept only for `handler_threw`: it is the hook's own): `edits`
 * (with `moreEdits` when some were not listed), and `refused`, the errors that are refusals (they
 * are in `errors` too).
 */
export function outcomeJson(o: Outcome, errors: HookError[]): Record<string, unknown> {
  const out: Record<string, unknown> = { event: o.type, result: o.result ?? null };
  if (o.blocked !== undefined) out.blocked = o.blocked;
  if (o.reason !== undefined) out.reason = o.reason;
  out.edits = o.edits;
  if (o.moreEdits > 0) out.moreEdits = o.moreEdits;
  const all = [...(o.thrown ? [o.thrown] : []), ...errors].map(({ stack, ...e }) => (e.code === "handler_threw" && stack ? { ...e, stack } : e));
  out.refused = all.filter(isRefusal);
  out.errors = all;
  return out;
}
