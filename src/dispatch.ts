/**
 * The conflict rules as pure functions, built from the event table (src/events.ts). Each event
 * type maps to one rule; the runner folds every handler's validated result through it, hook by
 * hook, in order, and stops when it says `done`.
 *
 * - series: results are ignored (`agent_start`, `turn_end`, …).
 * - bail: the last truthy result is kept; the first whose bail key is `true` ends the emit
 *   (`tool_call` on `block`, `session_before_*` on `cancel`).
 * - last-wins: each truthy result replaces the previous one (`tool_result`, `session.compacting`).
 * - waterfall: each handler's `messages` become the next handler's input (`context`).
 * - first-message: the first result with a `message` is kept; every handler still runs (`before_agent_start`).
 */
import type { z } from "zod";
import type { PlanName, RunPlan } from "./protocol.js";
import { EVENTS, EVENT_TYPES, type RuleKind } from "./events.js";
import { keySafe } from "./safe-keys.js";
import { bails } from "../worker/run.mjs";
import { PLANS } from "../worker/wire.mjs";

export type { RuleKind };

export interface ConflictRule {
  kind: RuleKind;
  /** The result field the rule reads: the bail key, the waterfall's field, the first-message key. */
  key?: string;
  /** How a worker runs one hook's handlers for this event (`worker/wire.mjs` `PLANS`). */
  plan: PlanName;
  /** The schema a result must pass before it is applied (the row's, behind the key gate); none for series. */
  schema: z.ZodType | undefined;
  /** Apply one validated, truthy result to the accumulated value. */
  step(acc: unknown, result: Record<string, unknown>): { acc: unknown; done: boolean };
}

type Step = ConflictRule["step"];
type Row = { rule: { kind: RuleKind; key?: string }; result?: z.ZodType };

const STEPS: Record<RuleKind, (key: string) => Step> = {
  // bail: keep the result; stop at once when its key is true (the worker's predicate, `bails`).
  bail: (key) => (_acc, result) => ({ acc: result, done: bails(result, key) }),
  // last-wins: each truthy result replaces the previous one.
  "last-wins": () => (_acc, result) => ({ acc: result, done: false }),
  // waterfall: a result with a truthy key becomes the current value.
  waterfall: (key) => (acc, result) => ({ acc: result[key] ? result[key] : acc, done: false }),
  // first-message: the first result with its key set is kept, later ones ignored.
  "first-message": (key) => (acc, result) => ({ acc: acc === undefined && result[key] ? result : acc, done: false }),
  // series: nothing is kept.
  series: () => (acc) => ({ acc, done: false }),
};

const planNames = Object.keys(PLANS) as PlanName[];
/** The worker's plan for a rule: the one that stops at its bail key, chains its field, or runs every handler. */
function planOf(kind: RuleKind, key: string | undefined): PlanName {
  const find = (match: (p: RunPlan) => boolean) => {
    const name = planNames.find((n) => match(PLANS[n] as RunPlan));
    if (!name) throw new Error(`no plan in worker/wire.mjs PLANS for a ${kind} on ${key}`);
    return name;
  };
  if (kind === "series") return "series";
  if (kind === "bail") return find((p) => p.stop === key && !p.stopOnError);
  if (kind === "waterfall") return find((p) => p.chain === key);
  return "each";
}

function build(row: Row): ConflictRule {
  const { kind, key } = row.rule;
  return {
    kind, key, plan: planOf(kind, key),
    schema: row.result && keySafe(row.result),
    step: STEPS[kind](key ?? ""),
  };
}

const RULES: ReadonlyMap<string, ConflictRule> = new Map(EVENT_TYPES.map((t) => [t, build(EVENTS[t] as Row)]));
const SERIES: ConflictRule = build({ rule: { kind: "series" } });

/** The rule for an event type; events outside the contract (an agent's own) are series. */
export function ruleFor(eventType: string): ConflictRule {
  return RULES.get(eventType) ?? SERIES;
}

/** The event a hook receives next: for a waterfall, the current value replaces the original one. */
export function nextInput<E extends { type: string }>(rule: ConflictRule, event: E, acc: unknown): E {
  if (rule.kind !== "waterfall" || acc === undefined) return event;
  return { ...event, [rule.key!]: acc };
}

/** What an emit returns once every handler ran (or one bailed). */
export function finish(rule: ConflictRule, acc: unknown, event: Record<string, unknown>): unknown {
  if (rule.kind === "waterfall") return acc ?? event[rule.key!];
  if (rule.kind === "series") return undefined;
  return acc;
}
