/**
 * The conformance matrix (tapable HookTester style): for every event of the event table
 * (src/events.ts), the cases its rule must pass, both across hooks and across the handlers of one
 * hook. Each case names real fixtures from fixtures/valid, so the same table runs over the pure
 * rules (test/dispatch.test.ts, reading each fixture's `script`) and over real workers
 * (test/host-conformance.test.ts, loading the fixture files).
 */
import { EVENTS, EVENT_TYPES, type Rule } from "../../src/events.js";
import type { AgentMessage, HookEventType } from "../../src/types.js";
import type { Script } from "../../fixtures/valid/lib/scripted.js";
import { script as bailsInFirstOfTwoHandlers } from "../../fixtures/valid/bails-in-first-of-two-handlers.js";
import { script as bailsInSecondOfTwoHandlers } from "../../fixtures/valid/bails-in-second-of-two-handlers.js";
import { script as cancelsSessionBeforeEvents } from "../../fixtures/valid/cancels-session-before-events.js";
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
  /** For a waterfall: the messages each of those handlers received. */
  received?: AgentMessage[][];
}

/** What `fixture`'s handler at `index` for `type` returns. */
export function returned(fixture: string, type: string, index = 0): unknown {
  const step = SCRIPTS[fixture]?.[type]?.[index];
  if (step?.kind !== "returns") throw new Error(`${fixture} returns nothing for ${type}`);
  return step.value;
}

const call = (fixture: string, type: string, index = 0) => `${fixture} ${type}#${index}`;
const mark = (m: string): AgentMessage => ({ role: "custom", customType: "mark", content: m });
const TWO = "returns-two-results-from-one-hook";

function ordering(type: string): Case[] {
  return [
    {
      rule: `${type} handlers run in hooks-array order, then in registration order`,
      hooks: ["registers-two-handlers", "records-call-order"],
      result: type === "context" ? MESSAGES : undefined,
      calls: [call("registers-two-handlers", type, 0), call("registers-two-handlers", type, 1), call("records-call-order", type)],
    },
    {
      rule: `${type} handlers follow the hooks array when it is reversed`,
      hooks: ["records-call-order", "registers-two-handlers"],
      result: type === "context" ? MESSAGES : undefined,
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

function firstMessage(type: string): Case[] {
  return [
    ...ordering(type),
    {
      rule: `${type}: the first returned message is kept and every handler still runs`,
      hooks: ["returns-empty-result", "returns-first-result", "returns-second-result", "records-call-order"],
      result: returned("returns-first-result", type),
      calls: [call("returns-empty-result", type), call("returns-first-result", type), call("returns-second-result", type), call("records-call-order", type)],
    },
    {
      rule: `${type}: the first message is the first in hooks-array order`,
      hooks: ["returns-second-result", "returns-first-result"],
      result: returned("returns-second-result", type),
      calls: [call("returns-second-result", type), call("returns-first-result", type)],
    },
    {
      rule: `${type}: across the handlers of one hook too, the first message is kept and the second handler still runs`,
      hooks: [TWO, "returns-second-result"],
      result: returned(TWO, type, 0),
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
    case "first-message": return firstMessage(type);
    case "series": return series(type);
  }
}

/** Event type -> its cases, for every row of the event table. */
export const MATRIX: Array<[string, Case[]]> = EVENT_TYPES.map((t) => [t, casesFor(t, EVENTS[t].rule as Rule<HookEventType>)]);
