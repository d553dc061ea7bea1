/**
 * The conformance matrix (tapable HookTester style): for every event kind, the cases each conflict
 * rule must pass. Each case names real fixtures from fixtures/valid, so the same table runs over
 * the pure rules (test/dispatch.test.ts, reading each fixture's `script`) and over real workers
 * (test/host-conformance.test.ts, loading the fixture files).
 */
import type { AgentMessage } from "../../src/types.js";
import { BAIL_EVENTS, FIRST_MESSAGE_EVENTS, LAST_WINS_EVENTS, SERIES_EVENTS, WATERFALL_EVENTS, type Script } from "../../fixtures/valid/lib/scripted.js";
import { script as bailsInFirstOfTwoHandlers } from "../../fixtures/valid/bails-in-first-of-two-handlers.js";
import { script as cancelsSessionBeforeEvents } from "../../fixtures/valid/cancels-session-before-events.js";
import { script as recordsCallOrder } from "../../fixtures/valid/records-call-order.js";
import { script as registersTwoHandlers } from "../../fixtures/valid/registers-two-handlers.js";
import { script as returnsBlockTrue } from "../../fixtures/valid/returns-block-true.js";
import { script as returnsEmptyResult } from "../../fixtures/valid/returns-empty-result.js";
import { script as returnsFirstResult } from "../../fixtures/valid/returns-first-result.js";
import { script as returnsJunk } from "../../fixtures/valid/returns-junk-from-result-less-events.js";
import { script as returnsSecondResult } from "../../fixtures/valid/returns-second-result.js";
import { MESSAGES } from "./events.js";

/** The scripts of the matrix fixtures, by file name (which is also each one's label). */
export const SCRIPTS: Record<string, Script> = {
  "bails-in-first-of-two-handlers": bailsInFirstOfTwoHandlers,
  "cancels-session-before-events": cancelsSessionBeforeEvents,
  "records-call-order": recordsCallOrder,
  "registers-two-handlers": registersTwoHandlers,
  "returns-block-true": returnsBlockTrue,
  "returns-empty-result": returnsEmptyResult,
  "returns-first-result": returnsFirstResult,
  "returns-junk-from-result-less-events": returnsJunk,
  "returns-second-result": returnsSecondResult,
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

/** What `fixture`'s first handler for `type` returns. */
export function returned(fixture: string, type: string): unknown {
  const step = SCRIPTS[fixture]?.[type]?.[0];
  if (step?.kind !== "returns") throw new Error(`${fixture} returns nothing for ${type}`);
  return step.value;
}

const call = (fixture: string, type: string, index = 0) => `${fixture} ${type}#${index}`;
const mark = (m: string): AgentMessage => ({ role: "custom", customType: "mark", content: m });

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

function bail(type: (typeof BAIL_EVENTS)[number]): Case[] {
  const bailer = type === "tool_call" ? "returns-block-true" : "cancels-session-before-events";
  const key = type === "tool_call" ? "block" : "cancel";
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
  ];
}

function lastWins(type: (typeof LAST_WINS_EVENTS)[number]): Case[] {
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
  ];
}

function waterfall(type: (typeof WATERFALL_EVENTS)[number]): Case[] {
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
  ];
}

function firstMessage(type: (typeof FIRST_MESSAGE_EVENTS)[number]): Case[] {
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
  ];
}

function series(type: (typeof SERIES_EVENTS)[number]): Case[] {
  return [
    ...ordering(type),
    {
      rule: `${type} has no result: whatever a handler returns is ignored and every handler runs`,
      hooks: ["returns-junk-from-result-less-events", "records-call-order"],
      result: undefined,
      calls: [call("returns-junk-from-result-less-events", type), call("records-call-order", type)],
    },
  ];
}

/** Event type -> its cases, for every event of the contract. */
export const MATRIX: Array<[string, Case[]]> = [
  ...BAIL_EVENTS.map((t) => [t, bail(t)] as [string, Case[]]),
  ...LAST_WINS_EVENTS.map((t) => [t, lastWins(t)] as [string, Case[]]),
  ...WATERFALL_EVENTS.map((t) => [t, waterfall(t)] as [string, Case[]]),
  ...FIRST_MESSAGE_EVENTS.map((t) => [t, firstMessage(t)] as [string, Case[]]),
  ...SERIES_EVENTS.map((t) => [t, series(t)] as [string, Case[]]),
];
