/**
 * The conformance matrix (tapable HookTester style): for every event of the event table
 * (src/contract/events.ts), the cases its rule must pass, both across hooks and across the handlers of one
 * hook. Each case names real fixtures from fixtures/valid, so the same table runs over the pure
 * rules (test/dispatch.test.ts, reading each fixture's `script`) and over real workers
 * (test/host-conformance.test.ts, loading the fixture files).
 */
import { EVENTS, EVENT_TYPES, type Rule } from "../../src/contract/events.js";
import type { AgentMessage, HookEventType } from "../../src/contract/types.js";
import type { Script } from "../../fixtures/valid/lib/scripted.js";
import { script as bailsInFirstOfTwoHandlers } from "../../fixtures/valid/bails-in-first-of-two-handlers.js";
import { script as bailsInSecondOfTwoHandlers } from "../../fixtures/valid/bails-in-second-of-two-handlers.js";
import { script as cancelsSessionBeforeEvents } from "../../fixtures/valid/cancels-session-before-events.js";
import { script as handlesInput } from "../../fixtures/valid/handles-input.js";
import { script as recordsCallOrder } from "../../fixtures/valid/records-call-order.js";
import { script as registersTwoHandlers } from "../../fixtures/valid/registers-two-handlers.js";
import { script as returnsBlockTrue } from "../../fixtures/valid/returns-block-true.js";
import { script as returnsEmptyResult } from "../../fixtures/valid/returns-empty-result.js";
import { script as returnsFirstResult } from "../../fixtures/valid/returns-first-result.js";
import { script as returnsJunk } from "../../fixtures/valid/returns-junk-from-result-less-events.js";
import { script as returnsSecondResult } from "../../fixtures/valid/returns-second-result.js";
import { script as returnsTwoResultsFromOneHook } from "../../fixtures/valid/returns-two-results-from-one-hook.js";
import { MESSAGES } from "./events.js";

/** The scripts of the matrix fixtures, by file name (which is also each one's label). */
export const SCRIPTS: Record<string, Script> = {
  "bails-in-first-of-two-handlers": bailsInFirstOfTwoHandlers,
  "bails-in-second-of-two-handlers": bailsInSecondOfTwoHandlers,
  "cancels-session-before-events": cancelsSessionBeforeEvents,
  "handles-input": handlesInput,
  "records-call-order": recordsCallOrder,
  "registers-two-handlers": registersTwoHandlers,
  "returns-block-true": returnsBlockTrue,
  "returns-empty-result": returnsEmptyResult,
  "returns-first-result": returnsFirstResult,
  "returns-junk-from-result-less-events": returnsJunk,
  "returns-second-result": returnsSecondResult,
  "returns-two-results-from-one-hook": returnsTwoResultsFromOneHook,
};

export interface Case {
  /** The rule, as a sentence. */
  rule: string;
  /** Fixture names, in hooks-array order. */
  hooks: string[];
  /** What the emit returns. */
  result: unknown;
  /** The handlers that ran, in order: "<fixture> <event>#<index>". */
  calls: string[];
  /** For a waterfall or a chain: the value of `field` each of those handlers received. */
  received?: unknown[];
  /** The event field `received` reads (default `messages`). */
  field?: string;
}

/** What `fixture`'s handler at `index` for `type` returns. */
export function returned(fixture: string, type: string, index = 0): unknown {
  const step = SCRIPTS[fixture]?.[type]?.[index];
  if (step?.kind !== "returns") throw new Error(`${fixture} returns nothing for ${type}`);
  return step.value;
}

const call = (fixture: string, type: string, index = 0) => `${fixture} ${type}#${index}`;
const mark = (m: string): AgentMessage => ({ role: "custom", customType: "mark", content: m, display: true, timestamp: 0 });
const TWO = "returns-two-results-from-one-hook";

/** What an emit returns when no handler returned anything, by rule. */
function noResult(type: string, rule: Rule<HookEventType>): unknown {
  if (rule.kind === "waterfall") return MESSAGES;
  if (rule.kind === "transform") return { action: "continue" };
  if (rule.kind === "collect") return Object.fromEntries(rule.keys.map((k) => [k, []]));
  void type;
  return undefined;
}

function ordering(type: string): Case[] {
  const none = noResult(type, EVENTS[type as HookEventType].rule as Rule<HookEventType>);
  return [
    {
      rule: `${type} handlers run in hooks-array order, then in registration order`,
      hooks: ["registers-two-handlers", "records-call-order"],
      result: none,
      calls: [call("registers-two-handlers", type, 0), call("registers-two-handlers", type, 1), call("records-call-order", type)],
    },
    {
      rule: `${type} handlers follow the hooks array when it is reversed`,
      hooks: ["records-call-order", "registers-two-handlers"],
      result: none,
      calls: [call("records-call-order", type), call("registers-two-handlers", type, 0), call("registers-two-handlers", type, 1)],
    },
  ];
}

/** A fixture whose one handler bails on `key`, for every event that bails on it. */
const BAILERS: Record<string, string> = { block: "returns-block-true", cancel: "cancels-session-before-events" };

function bail(type: string, key: string): Case[] {
  const bailer = BAILERS[key]!;
  return [
    ...ordering(type),
    {
      rule: `${type}: when no handler sets ${key}, the last truthy result wins`,
      hooks: ["returns-first-result", "returns-second-result", "records-call-order"],
      result: returned("returns-second-result", type),
      calls: [call("returns-first-result", type), call("returns-second-result", type), call("records-call-order", type)],
    },
    {
      rule: `${type}: an empty result is truthy and replaces the one before`,
      hooks: ["returns-first-result", "returns-empty-result"],
      result: {},
      calls: [call("returns-first-result", type), call("returns-empty-result", type)],
    },
    {
      rule: `${type}: the first ${key}: true returns at once and later hooks are not called`,
      hooks: ["returns-first-result", bailer, "returns-second-result", "records-call-order"],
      result: returned(bailer, type),
      calls: [call("returns-first-result", type), call(bailer, type)],
    },
    {
      rule: `${type}: a ${key} in the first of two handlers skips the second handler and every later hook`,
      hooks: ["bails-in-first-of-two-handlers", bailer, "records-call-order"],
      result: returned("bails-in-first-of-two-handlers", type),
      calls: [call("bails-in-first-of-two-handlers", type, 0)],
    },
    {
      rule: `${type}: across the handlers of one hook too, the last truthy result wins when none sets ${key}`,
      hooks: [TWO, "records-call-order"],
      result: returned(TWO, type, 1),
      calls: [call(TWO, type, 0), call(TWO, type, 1), call("records-call-order", type)],
    },
    {
      rule: `${type}: a ${key} in the second of two handlers returns it and skips every later hook`,
      hooks: ["bails-in-second-of-two-handlers", "records-call-order"],
      result: returned("bails-in-second-of-two-handlers", type, 1),
      calls: [call("bails-in-second-of-two-handlers", type, 0), call("bails-in-second-of-two-handlers", type, 1)],
    },
  ];
}

function lastWins(type: string): Case[] {
  return [
    ...ordering(type),
    {
      rule: `${type}: the last returned result wins whole, not merged with earlier ones`,
      hooks: ["returns-first-result", "returns-second-result"],
      result: returned("returns-second-result", type),
      calls: [call("returns-first-result", type), call("returns-second-result", type)],
    },
    {
      rule: `${type}: the last result wins in the other hooks-array order too`,
      hooks: ["returns-second-result", "returns-first-result"],
      result: returned("returns-first-result", type),
      calls: [call("returns-second-result", type), call("returns-first-result", type)],
    },
    {
      rule: `${type}: a handler that returns nothing leaves the last result in place`,
      hooks: ["returns-first-result", "records-call-order"],
      result: returned("returns-first-result", type),
      calls: [call("returns-first-result", type), call("records-call-order", type)],
    },
    {
      rule: `${type}: an empty result is truthy and replaces the one before`,
      hooks: ["returns-first-result", "returns-empty-result"],
      result: {},
      calls: [call("returns-first-result", type), call("returns-empty-result", type)],
    },
    {
      rule: `${type}: across the handlers of one hook too, the second handler's result wins whole`,
      hooks: [TWO, "records-call-order"],
      result: returned(TWO, type, 1),
      calls: [call(TWO, type, 0), call(TWO, type, 1), call("records-call-order", type)],
    },
  ];
}

function waterfall(type: string): Case[] {
  return [
    ...ordering(type),
    {
      rule: `${type}: each handler receives the messages the previous one returned`,
      hooks: ["returns-first-result", "returns-second-result"],
      result: [...MESSAGES, mark("first"), mark("second")],
      calls: [call("returns-first-result", type), call("returns-second-result", type)],
      received: [MESSAGES, [...MESSAGES, mark("first")]],
    },
    {
      rule: `${type}: a handler that returns nothing passes the current messages on unchanged`,
      hooks: ["returns-first-result", "records-call-order", "returns-second-result"],
      result: [...MESSAGES, mark("first"), mark("second")],
      calls: [call("returns-first-result", type), call("records-call-order", type), call("returns-second-result", type)],
      received: [MESSAGES, [...MESSAGES, mark("first")], [...MESSAGES, mark("first")]],
    },
    {
      rule: `${type}: a result without messages keeps the current messages`,
      hooks: ["returns-first-result", "returns-empty-result"],
      result: [...MESSAGES, mark("first")],
      calls: [call("returns-first-result", type), call("returns-empty-result", type)],
    },
    {
      rule: `${type}: across the handlers of one hook too, the second handler receives the first one's messages`,
      hooks: [TWO],
      result: [...MESSAGES, mark("first"), mark("second")],
      calls: [call(TWO, type, 0), call(TWO, type, 1)],
      received: [MESSAGES, [...MESSAGES, mark("first")]],
    },
    {
      rule: `${type}: the next hook receives what the last handler of the hook before returned`,
      hooks: [TWO, "records-call-order"],
      result: [...MESSAGES, mark("first"), mark("second")],
      calls: [call(TWO, type, 0), call(TWO, type, 1), call("records-call-order", type)],
      received: [MESSAGES, [...MESSAGES, mark("first")], [...MESSAGES, mark("first"), mark("second")]],
    },
  ];
}

function firstMessage(type: string, key: string, chain: string | undefined): Case[] {
  const field = (fixture: string, k: string | undefined, index = 0) => (k === undefined ? undefined : (returned(fixture, type, index) as Record<string, unknown>)[k]);
  /** The first message of `messageFrom`, with the chained field of `chainFrom` (the last handler that set it). */
  const kept = (messageFrom: [string, number], chainFrom: [string, number]) =>
    chain === undefined ? { [key]: field(messageFrom[0], key, messageFrom[1]) } : { [key]: field(messageFrom[0], key, messageFrom[1]), [chain]: field(chainFrom[0], chain, chainFrom[1]) };
  const chained = chain === undefined ? {} : { field: chain };
  return [
    ...ordering(type),
    {
      rule: `${type}: the first returned message is kept and every handler still runs`,
      hooks: ["returns-empty-result", "returns-first-result", "returns-second-result", "records-call-order"],
      result: kept(["returns-first-result", 0], ["returns-second-result", 0]),
      calls: [call("returns-empty-result", type), call("returns-first-result", type), call("returns-second-result", type), call("records-call-order", type)],
      ...(chain && { ...chained, received: [undefined, undefined, field("returns-first-result", chain), field("returns-second-result", chain)] }),
    },
    {
      rule: `${type}: the first message is the first in hooks-array order`,
      hooks: ["returns-second-result", "returns-first-result"],
      result: kept(["returns-second-result", 0], ["returns-first-result", 0]),
      calls: [call("returns-second-result", type), call("returns-first-result", type)],
    },
    {
      rule: `${type}: across the handlers of one hook too, the first message is kept and the second handler still runs`,
      hooks: [TWO, "returns-second-result"],
      result: kept([TWO, 0], ["returns-second-result", 0]),
      calls: [call(TWO, type, 0), call(TWO, type, 1), call("returns-second-result", type)],
      ...(chain && { ...chained, received: [undefined, field(TWO, chain, 0), field(TWO, chain, 1)] }),
    },
  ];
}

/** pi's `first` (user_bash): the first truthy result ends the emit. */
function first(type: string): Case[] {
  return [
    ...ordering(type),
    {
      rule: `${type}: the first truthy result ends the emit and later hooks are not called`,
      hooks: ["records-call-order", "returns-first-result", "returns-second-result"],
      result: returned("returns-first-result", type),
      calls: [call("records-call-order", type), call("returns-first-result", type)],
    },
    {
      rule: `${type}: an empty result is truthy and ends the emit`,
      hooks: ["returns-empty-result", "returns-first-result"],
      result: {},
      calls: [call("returns-empty-result", type)],
    },
    {
      rule: `${type}: across the handlers of one hook too, the first handler's result ends the emit and the second is not called`,
      hooks: [TWO, "records-call-order"],
      result: returned(TWO, type, 0),
      calls: [call(TWO, type, 0)],
    },
  ];
}

/** pi's `chain` (message_end) and `replace` (before_provider_request): each handler receives the value the one before returned. */
function chained(type: string, key: string, whole: boolean): Case[] {
  const original = (EVENTS[type as HookEventType].sample() as unknown as Record<string, unknown>)[key];
  const value = (fixture: string, index = 0) => (whole ? returned(fixture, type, index) : (returned(fixture, type, index) as Record<string, unknown>)[key]);
  const result = (fixture: string, index = 0) => (whole ? value(fixture, index) : { [key]: value(fixture, index) });
  return [
    ...ordering(type),
    {
      rule: `${type}: each handler receives the ${key} the previous one returned, and the last one is the result`,
      hooks: ["returns-first-result", "returns-second-result"],
      result: result("returns-second-result"),
      calls: [call("returns-first-result", type), call("returns-second-result", type)],
      field: key, received: [original, value("returns-first-result")],
    },
    {
      rule: `${type}: a handler that returns nothing passes the current ${key} on unchanged`,
      hooks: ["returns-first-result", "records-call-order", "returns-second-result"],
      result: result("returns-second-result"),
      calls: [call("returns-first-result", type), call("records-call-order", type), call("returns-second-result", type)],
      field: key, received: [original, value("returns-first-result"), value("returns-first-result")],
    },
    {
      rule: `${type}: across the handlers of one hook too, the second handler receives the first one's ${key}`,
      hooks: [TWO, "records-call-order"],
      result: result(TWO, 1),
      calls: [call(TWO, type, 0), call(TWO, type, 1), call("records-call-order", type)],
      field: key, received: [original, value(TWO, 0), value(TWO, 1)],
    },
    whole
      ? {
        rule: `${type}: an empty result is a value too and replaces the ${key}`,
        hooks: ["returns-first-result", "returns-empty-result"],
        result: {},
        calls: [call("returns-first-result", type), call("returns-empty-result", type)],
      }
      : {
        rule: `${type}: a result without ${key} keeps the current one`,
        hooks: ["returns-first-result", "returns-empty-result"],
        result: result("returns-first-result"),
        calls: [call("returns-first-result", type), call("returns-empty-result", type)],
      },
  ];
}

/** pi's `transform` (input): transforms chain the text, `handled` ends the emit, `continue` changes nothing. */
function transform(type: string): Case[] {
  const original = (EVENTS[type as HookEventType].sample() as unknown as { text: string }).text;
  const text = (fixture: string, index = 0) => (returned(fixture, type, index) as { text: string }).text;
  return [
    ...ordering(type),
    {
      rule: `${type}: each handler receives the text the previous transform returned, and the last transform is the result`,
      hooks: ["returns-first-result", "returns-second-result"],
      result: { action: "transform", text: text("returns-second-result") },
      calls: [call("returns-first-result", type), call("returns-second-result", type)],
      field: "text", received: [original, text("returns-first-result")],
    },
    {
      rule: `${type}: handled ends the emit at once and later hooks are not called`,
      hooks: ["returns-first-result", "handles-input", "returns-second-result", "records-call-order"],
      result: { action: "handled" },
      calls: [call("returns-first-result", type), call("handles-input", type)],
    },
    {
      rule: `${type}: continue changes nothing and the transform before it stands`,
      hooks: ["returns-first-result", "returns-empty-result", "records-call-order"],
      result: { action: "transform", text: text("returns-first-result") },
      calls: [call("returns-first-result", type), call("returns-empty-result", type), call("records-call-order", type)],
      field: "text", received: [original, text("returns-first-result"), text("returns-first-result")],
    },
    {
      rule: `${type}: across the handlers of one hook too, the second handler receives the first one's text`,
      hooks: [TWO],
      result: { action: "transform", text: text(TWO, 1) },
      calls: [call(TWO, type, 0), call(TWO, type, 1)],
      field: "text", received: [original, text(TWO, 0)],
    },
  ];
}

/** pi's `collect` (resources_discover): every result's lists are appended, in order. */
function collect(type: string, keys: readonly string[]): Case[] {
  const lists = (...results: Array<[string, number]>) => Object.fromEntries(keys.map((k) => [k, results.flatMap(([f, i]) => ((returned(f, type, i) as Record<string, unknown[]>)[k] ?? []))]));
  return [
    ...ordering(type),
    {
      rule: `${type}: the lists of every result are appended in hooks-array order`,
      hooks: ["returns-first-result", "returns-second-result"],
      result: lists(["returns-first-result", 0], ["returns-second-result", 0]),
      calls: [call("returns-first-result", type), call("returns-second-result", type)],
    },
    {
      rule: `${type}: the lists follow the hooks array when it is reversed`,
      hooks: ["returns-second-result", "returns-first-result"],
      result: lists(["returns-second-result", 0], ["returns-first-result", 0]),
      calls: [call("returns-second-result", type), call("returns-first-result", type)],
    },
    {
      rule: `${type}: an empty result adds nothing`,
      hooks: ["returns-first-result", "returns-empty-result"],
      result: lists(["returns-first-result", 0]),
      calls: [call("returns-first-result", type), call("returns-empty-result", type)],
    },
    {
      rule: `${type}: across the handlers of one hook too, both handlers' lists are appended`,
      hooks: [TWO, "returns-second-result"],
      result: lists([TWO, 0], [TWO, 1], ["returns-second-result", 0]),
      calls: [call(TWO, type, 0), call(TWO, type, 1), call("returns-second-result", type)],
    },
  ];
}

function series(type: string): Case[] {
  return [
    ...ordering(type),
    {
      rule: `${type} has no result: whatever a handler returns is ignored and every handler runs`,
      hooks: ["returns-junk-from-result-less-events", "records-call-order"],
      result: undefined,
      calls: [call("returns-junk-from-result-less-events", type), call("records-call-order", type)],
    },
    {
      rule: `${type} has no result across the handlers of one hook either: both run and what they return is ignored`,
      hooks: [TWO, "records-call-order"],
      result: undefined,
      calls: [call(TWO, type, 0), call(TWO, type, 1), call("records-call-order", type)],
    },
  ];
}

/** The cases of each rule. */
function casesFor(type: HookEventType, rule: Rule<HookEventType>): Case[] {
  switch (rule.kind) {
    case "bail": return bail(type, rule.key);
    case "last-wins": return lastWins(type);
    case "waterfall": return waterfall(type);
    case "first-message": return firstMessage(type, rule.key, rule.chain);
    case "series": return series(type);
    case "first": return first(type);
    case "chain": return chained(type, rule.key, false);
    case "replace": return chained(type, rule.key, true);
    case "transform": return transform(type);
    case "collect": return collect(type, rule.keys);
  }
}

/** Event type -> its cases, for every row of the event table. */
export const MATRIX: Array<[string, Case[]]> = EVENT_TYPES.map((t) => [t, casesFor(t, EVENTS[t].rule as Rule<HookEventType>)]);
