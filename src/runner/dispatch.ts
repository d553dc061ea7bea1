/**
 * The conflict rules as pure functions, built from the event table (src/contract/events.ts). Each event
 * type maps to one rule; the runner folds every handler's validated result through it, hook by
 * hook, in order, and stops when it says `done`.
 *
 * - series: results are ignored (`agent_start`, `turn_end`, …).
 * - bail: the last truthy result is kept; the first whose bail key is `true` ends the emit
 *   (`tool_call` on `block`, `session_before_*` on `cancel`).
 * - last-wins: each truthy result replaces the previous one (`tool_result`, `session.compacting`).
 * - waterfall: each handler's `messages` become the next handler's input (`context`).
 * - first-message: the first result with a `message` is kept; every handler still runs
 *   (`before_agent_start`, whose `systemPrompt` is chained beside it, as pi does).
 * - every-message: every result's message is kept, in order, as a list under `messages`, the
 *   chained field beside it: pi's and oh-my-pi's own rule for `before_agent_start` (the row's
 *   `agentRule`), which `ruleFor` gives a runner inside that agent (hookbox/extension).
 *
 * pi's rules (pi 0.73.1 `dist/core/extensions/runner.js`), for the events whose results pi uses.
 * Each feeds a handler's result to the next handler, so the host runs such a hook's handlers one at
 * a time (`perHandler`), folding each validated result before the next handler is called:
 * - first: the first truthy result ends the emit (`user_bash`).
 * - chain: a result's field replaces the event's field for the next handler; the emit returns it
 *   when some handler changed it (`message_end`, whose replacement must keep the message's role).
 * - replace: the whole result replaces the event's field (`before_provider_request`'s payload).
 * - transform: `handled` ends the emit, `transform` replaces the text (and images) for the next
 *   handler, `continue` changes nothing; the emit returns `transform` when the text or images
 *   changed, else `continue` (`input`).
 * - collect: the lists of every result are appended, in order (`resources_discover`).
 */
import type { z } from "zod";
import type { PlanName, RunPlan } from "../contract/protocol.js";
import { EVENTS, EVENT_TYPES, type RuleKind } from "../contract/events.js";
import { keySafe } from "../gates/safe-keys.js";
import { GATED_EVENTS } from "./agent-results.js";
import { bails, PLANS } from "../../worker/wire.mjs";

export type { RuleKind };

export interface ConflictRule {
  kind: RuleKind;
  /** The result field the rule reads: the bail key, the waterfall's, chain's or replace's field, the first-message key. */
  key?: string;
  /** first-message: the field chained beside the message (`systemPrompt`). */
  chain?: string;
  /** collect: the lists appended. */
  keys?: readonly string[];
  /** How a worker runs one hook's handlers for this event (`worker/wire.mjs` `PLANS`). */
  plan: PlanName;
  /** The schema a result must pass before it is applied (the row's, behind the key gate); none for series. */
  schema: z.ZodType | undefined;
  /** Whether the host runs a hook's handlers one at a time, folding each result before the next handler runs. */
  perHandler: boolean;
  /** Whether a valid result passes pi's own gates before it is applied (src/runner/agent-results.ts). */
  gated: boolean;
  /**
   * Inside an agent (hookbox/extension): the keys of a result `agent` ignores in its process (neither
   * read by it nor in the schema, src/contract/events.ts `agentReads`), or none where the row does not
   * list that agent (every unknown key is refused then).
   */
  ignoredKeys(agent: "pi" | "omp", result: unknown): string[];
  /**
   * Apply one validated, truthy result to the accumulated value; `event` is what that handler
   * received. `refused` says why a valid result was not applied (reported as `invalid_result`).
   */
  step(acc: unknown, result: Record<string, unknown>, event?: Record<string, unknown>): StepOutcome;
}
export interface StepOutcome { acc: unknown; done: boolean; refused?: string }

type Step = ConflictRule["step"];
interface RowRule { kind: RuleKind; key?: string; chain?: string; keys?: readonly string[]; sameRole?: true }
type Row = { rule: RowRule; agentRule?: RowRule; result?: z.ZodType; agentReads?: Partial<Record<"pi" | "omp", readonly string[]>> };

/** The keys of `result` the agent does not read and the row's result schema does not have. */
function ignoredBy(row: Row): ConflictRule["ignoredKeys"] {
  const shape = (row.result as { shape?: Record<string, unknown> } | undefined)?.shape;
  const known = new Set(shape ? Object.keys(shape) : []);
  return (agent, result) => {
    const reads = row.agentReads?.[agent];
    if (!reads || typeof result !== "object" || result === null || Array.isArray(result)) return [];
    return Object.keys(result).filter((k) => !known.has(k) && !reads.includes(k));
  };
}
const roleOf = (value: unknown) => (typeof value === "object" && value !== null ? (value as { role?: unknown }).role : undefined);

const STEPS: Record<RuleKind, (rule: RowRule) => Step> = {
  // bail: keep the result; stop at once when its key is true (the worker's predicate, `bails`).
  bail: ({ key }) => (_acc, result) => ({ acc: result, done: bails(result, key!) }),
  // last-wins: each truthy result replaces the previous one.
  "last-wins": () => (_acc, result) => ({ acc: result, done: false }),
  // waterfall: a result with a truthy key becomes the current value.
  waterfall: ({ key }) => (acc, result) => ({ acc: result[key!] ? result[key!] : acc, done: false }),
  // first-message: the first result with its key set is kept, later ones ignored; the chained field's last value is kept beside it.
  "first-message": ({ key, chain }) => (acc, result) => {
    const out: Record<string, unknown> = { ...(acc as Record<string, unknown> | undefined) };
    if (out[key!] === undefined && result[key!]) out[key!] = result[key!];
    if (chain && result[chain] !== undefined) out[chain] = result[chain];
    return { acc: Object.keys(out).length > 0 ? out : acc, done: false };
  },
  // every-message: each result with its key set is appended to `messages`; the chained field's last value is kept beside them.
  "every-message": ({ key, chain }) => (acc, result) => {
    const out: Record<string, unknown> = { ...(acc as Record<string, unknown> | undefined) };
    if (result[key!]) out.messages = [...((out.messages as unknown[] | undefined) ?? []), result[key!]];
    if (chain && result[chain] !== undefined) out[chain] = result[chain];
    return { acc: Object.keys(out).length > 0 ? out : acc, done: false };
  },
  // first: the first truthy result ends the emit.
  first: () => (_acc, result) => ({ acc: result, done: true }),
  // chain: a result's field becomes the current value (with sameRole, only a value of the current value's role).
  chain: ({ key, sameRole }) => (acc, result, event) => {
    const next = result[key!];
    if (next === undefined) return { acc, done: false };
    const current = acc === undefined ? event?.[key!] : acc;
    if (sameRole && roleOf(next) !== roleOf(current)) return { acc, done: false, refused: `${key}: the replacement must keep the role "${String(roleOf(current))}"` };
    return { acc: next, done: false };
  },
  // replace: the whole result becomes the current value.
  replace: () => (_acc, result) => ({ acc: result, done: false }),
  // transform: handled ends the emit; transform replaces the text (and the images when it has them).
  transform: () => (acc, result, event) => {
    if (result.action === "handled") return { acc: result, done: true };
    if (result.action !== "transform") return { acc, done: false };
    const images = result.images ?? (acc as { images?: unknown } | undefined)?.images ?? event?.images;
    return { acc: { action: "transform", text: result.text, images }, done: false };
  },
  // collect: every result's lists are appended to the lists so far.
  collect: ({ keys }) => (acc, result) => {
    const out: Record<string, unknown[]> = { ...(acc as Record<string, unknown[]> | undefined) };
    for (const k of keys!) out[k] = [...(out[k] ?? []), ...((result[k] as unknown[] | undefined) ?? [])];
    return { acc: out, done: false };
  },
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

/** The rules whose handlers each receive what the one before returned. */
const PER_HANDLER: ReadonlySet<RuleKind> = new Set(["first", "chain", "replace", "transform"]);

function build(row: Row, type?: string, rule: RowRule = row.rule): ConflictRule {
  const { kind, key } = rule;
  return {
    kind, key, plan: planOf(kind, key),
    schema: row.result && keySafe(row.result),
    perHandler: PER_HANDLER.has(kind) || rule.chain !== undefined,
    gated: type !== undefined && GATED_EVENTS.has(type),
    ignoredKeys: ignoredBy(row),
    step: STEPS[kind](rule),
    chain: rule.chain,
    keys: rule.keys,
  } as ConflictRule;
}

const RULES: ReadonlyMap<string, ConflictRule> = new Map(EVENT_TYPES.map((t) => [t, build(EVENTS[t] as Row, t)]));
/** Inside an agent (hookbox/extension): the rows whose agent combines results otherwise (`agentRule`). */
const AGENT_RULES: ReadonlyMap<string, ConflictRule> = new Map(EVENT_TYPES.flatMap((t) => {
  const row = EVENTS[t] as Row;
  // The row's result schema, the one its contract rule validates with.
  return row.agentRule ? [[t, { ...build(row, t, row.agentRule), schema: RULES.get(t)!.schema }] as const] : [];
}));
const SERIES: ConflictRule = build({ rule: { kind: "series" } });

/**
 * The rule for an event type; events outside the contract (an agent's own) are series. Inside an
 * agent (`insideAgent`: hookbox/extension in pi or oh-my-pi), the agent's own rule where its row has one.
 */
export function ruleFor(eventType: string, insideAgent = false): ConflictRule {
  return (insideAgent ? AGENT_RULES.get(eventType) : undefined) ?? RULES.get(eventType) ?? SERIES;
}

/** The event a hook (or handler) receives next: the current value replaces the original one of a chained field. */
export function nextInput<E extends { type: string }>(rule: ConflictRule, event: E, acc: unknown): E {
  if (acc === undefined) return event;
  switch (rule.kind) {
    case "waterfall": case "chain": case "replace": return { ...event, [rule.key!]: acc };
    case "transform": {
      const t = acc as { action: string; text?: string; images?: unknown };
      return t.action === "transform" ? { ...event, text: t.text, images: t.images } : event;
    }
    case "first-message": case "every-message": {
      const value = rule.chain === undefined ? undefined : (acc as Record<string, unknown>)[rule.chain];
      return value === undefined ? event : { ...event, [rule.chain!]: value };
    }
    default: return event;
  }
}

/** What an emit returns once every handler ran (or one bailed). */
export function finish(rule: ConflictRule, acc: unknown, event: Record<string, unknown>): unknown {
  switch (rule.kind) {
    case "waterfall": return acc ?? event[rule.key!];
    case "series": return undefined;
    case "chain": return acc === undefined ? undefined : { [rule.key!]: acc };
    case "transform": return acc ?? { action: "continue" };
    case "collect": return { ...Object.fromEntries(rule.keys!.map((k) => [k, []])), ...(acc as object | undefined) };
    default: return acc;
  }
}
