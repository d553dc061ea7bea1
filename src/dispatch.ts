/**
 * The conflict rules as pure functions. Each event type maps to one rule; the runner folds every
 * handler's validated result through it, hook by hook, in order, and stops when it says `done`.
 *
 * - series: results are ignored (`agent_start`, `turn_end`, …).
 * - bail: the last truthy result is kept; the first with the bail key `true` ends the emit
 *   (`tool_call` on `block`, `session_before_*` on `cancel`).
 * - last-wins: each truthy result replaces the previous one (`tool_result`, `session.compacting`).
 * - waterfall: each handler's `messages` become the next handler's input (`context`).
 * - first-message: the first result with a `message` is kept; every handler still runs (`before_agent_start`).
 */
import type { z } from "zod";
import type { PlanName } from "./protocol.js";
import { resultSchemas, type ResultEvent } from "./schemas.js";

export type RuleKind = "series" | "bail" | "last-wins" | "waterfall" | "first-message";

export interface ConflictRule {
  kind: RuleKind;
  /** How a worker runs one hook's handlers for this event (`worker/wire.mjs` `PLANS`). */
  plan: PlanName;
  /** The schema a result must pass before it is applied; none for series. */
  schema: z.ZodType | undefined;
  /** Apply one validated, truthy result to the accumulated value. */
  step(acc: unknown, result: Record<string, unknown>): { acc: unknown; done: boolean };
}

// bail: keep the result; stop at once when its key is set.
const bail = (key: "block" | "cancel"): ConflictRule["step"] => (_acc, result) => ({ acc: result, done: Boolean(result[key]) });
// last-wins: each truthy result replaces the previous one.
const lastWins: ConflictRule["step"] = (_acc, result) => ({ acc: result, done: false });
// waterfall: a result with truthy messages becomes the current value.
const waterfall: ConflictRule["step"] = (acc, result) => ({ acc: result.messages ? result.messages : acc, done: false });
// first-message: the first result with a message is kept, later ones ignored.
const firstMessage: ConflictRule["step"] = (acc, result) => ({ acc: acc === undefined && result.message ? result : acc, done: false });
// series: nothing is kept.
const series: ConflictRule["step"] = (acc) => ({ acc, done: false });

const schema = (event: ResultEvent) => resultSchemas[event] as z.ZodType;

const RULES: Record<ResultEvent, ConflictRule> = {
  tool_call: { kind: "bail", plan: "block", schema: schema("tool_call"), step: bail("block") },
  session_before_switch: { kind: "bail", plan: "cancel", schema: schema("session_before_switch"), step: bail("cancel") },
  session_before_branch: { kind: "bail", plan: "cancel", schema: schema("session_before_branch"), step: bail("cancel") },
  session_before_compact: { kind: "bail", plan: "cancel", schema: schema("session_before_compact"), step: bail("cancel") },
  session_before_tree: { kind: "bail", plan: "cancel", schema: schema("session_before_tree"), step: bail("cancel") },
  tool_result: { kind: "last-wins", plan: "each", schema: schema("tool_result"), step: lastWins },
  "session.compacting": { kind: "last-wins", plan: "each", schema: schema("session.compacting"), step: lastWins },
  context: { kind: "waterfall", plan: "chain", schema: schema("context"), step: waterfall },
  before_agent_start: { kind: "first-message", plan: "each", schema: schema("before_agent_start"), step: firstMessage },
};

const SERIES: ConflictRule = { kind: "series", plan: "series", schema: undefined, step: series };

/** The rule for an event type; unknown and result-less events are series. */
export function ruleFor(eventType: string): ConflictRule {
  return Object.hasOwn(RULES, eventType) ? RULES[eventType as ResultEvent] : SERIES;
}

/** The event a hook receives next: for a waterfall, the current messages replace the original ones. */
export function nextInput<E extends { type: string }>(rule: ConflictRule, event: E, acc: unknown): E {
  if (rule.kind !== "waterfall" || acc === undefined) return event;
  return { ...event, messages: acc };
}

/** What an emit returns once every handler ran (or one bailed). */
export function finish(rule: ConflictRule, acc: unknown, event: { messages?: unknown }): unknown {
  if (rule.kind === "waterfall") return acc ?? event.messages;
  if (rule.kind === "series") return undefined;
  return acc;
}
