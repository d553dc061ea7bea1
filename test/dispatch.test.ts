/**
 * The conflict rules of src/runner/dispatch.ts as pure functions, run through the conformance matrix
 * (test/helpers/matrix.ts) with each fixture's script standing in for its handlers. The harness
 * folds handler results the way the contract describes: hooks in order, handlers in order, a
 * validated truthy result through `rule.step`, stop when it says done.
 */
import { describe, expect, it } from "vitest";
import { finish, nextInput, ruleFor } from "../src/runner/dispatch.js";
import type { RunPlan } from "../src/contract/protocol.js";
import { PLANS } from "../worker/wire.mjs";
import type { AgentMessage, HookEvent } from "../src/contract/types.js";
import {
  ALL_EVENTS, BAIL_EVENTS, CHAIN_EVENTS, COLLECT_EVENTS, FIRST_EVENTS, FIRST_MESSAGE_EVENTS, LAST_WINS_EVENTS, REPLACE_EVENTS, SERIES_EVENTS,
  TRANSFORM_EVENTS, WATERFALL_EVENTS, outcome,
} from "../fixtures/valid/lib/scripted.js";
import { CONTRACT_EVENTS, sample } from "./helpers/events.js";
import { MATRIX, SCRIPTS } from "./helpers/matrix.js";

interface Folded { result: unknown; calls: string[]; received: unknown[] }

function fold(event: HookEvent, hooks: string[], field = "messages"): Folded {
  const rule = ruleFor(event.type);
  const calls: string[] = [];
  const received: unknown[] = [];
  let acc: unknown;
  for (const name of hooks) {
    const steps = SCRIPTS[name]![event.type] ?? [];
    for (const [index, step] of steps.entries()) {
      const input = nextInput(rule, event, acc) as { messages?: AgentMessage[] };
      calls.push(`${name} ${event.type}#${index}`);
      received.push((input as Record<string, unknown>)[field]);
      const r = outcome(step, input);
      if (!r || rule.kind === "series") continue;
      const parsed = rule.schema!.safeParse(r);
      if (!parsed.success) throw new Error(`fixture ${name} returned an invalid ${event.type} result`);
      const next = rule.step(acc, parsed.data as Record<string, unknown>, input as Record<string, unknown>);
      acc = next.acc;
      if (next.done) return { result: acc, calls, received };
    }
  }
  return { result: finish(rule, acc, event as unknown as Record<string, unknown>), calls, received };
}

describe("the conformance matrix over the pure rules", () => {
  for (const [type, cases] of MATRIX) {
    describe(type, () => {
      for (const c of cases) {
        it(c.rule, () => {
          const out = fold(sample(type), c.hooks, c.field);
          expect(out.result).toEqual(c.result);
          expect(out.calls).toEqual(c.calls);
          if (c.received) expect(out.received).toEqual(c.received);
        });
      }
    });
  }

  it("the matrix covers every row of the event table, each once", () => {
    expect(MATRIX.map(([t]) => t).sort()).toEqual([...CONTRACT_EVENTS].sort());
  });

  it("the fixtures' event lists (copies: a sandboxed fixture cannot import src/) name every event of the table under its rule", () => {
    const byKind = (kind: string) => CONTRACT_EVENTS.filter((t) => ruleFor(t).kind === kind).sort();
    expect([...BAIL_EVENTS].sort()).toEqual(byKind("bail"));
    expect([...LAST_WINS_EVENTS].sort()).toEqual(byKind("last-wins"));
    expect([...WATERFALL_EVENTS].sort()).toEqual(byKind("waterfall"));
    expect([...FIRST_MESSAGE_EVENTS].sort()).toEqual(byKind("first-message"));
    expect([...FIRST_EVENTS].sort()).toEqual(byKind("first"));
    expect([...CHAIN_EVENTS].sort()).toEqual(byKind("chain"));
    expect([...REPLACE_EVENTS].sort()).toEqual(byKind("replace"));
    expect([...TRANSFORM_EVENTS].sort()).toEqual(byKind("transform"));
    expect([...COLLECT_EVENTS].sort()).toEqual(byKind("collect"));
    expect([...SERIES_EVENTS].sort()).toEqual(byKind("series"));
    expect([...ALL_EVENTS].sort()).toEqual([...CONTRACT_EVENTS].sort());
  });
});

describe("ruleFor", () => {
  it("names the rule of every event by the contract's semantics", () => {
    for (const t of BAIL_EVENTS) expect(ruleFor(t).kind).toBe("bail");
    for (const t of LAST_WINS_EVENTS) expect(ruleFor(t).kind).toBe("last-wins");
    for (const t of FIRST_MESSAGE_EVENTS) expect(ruleFor(t).kind).toBe("first-message");
    for (const t of SERIES_EVENTS) expect(ruleFor(t).kind).toBe("series");
    expect(ruleFor("context").kind).toBe("waterfall");
  });

  it("treats unknown event names, prototype keys included, as series", () => {
    for (const t of ["no_such_event", "__proto__", "constructor", "toString", "hasOwnProperty", ""]) {
      const rule = ruleFor(t);
      expect(rule.kind).toBe("series");
      expect(rule.schema).toBeUndefined();
    }
  });

  it("asks workers to stop a hook's handlers at block on tool_call and at cancel on session_before_*", () => {
    const plan = (t: string) => PLANS[ruleFor(t).plan] as RunPlan;
    expect(plan("tool_call").stop).toBe("block");
    for (const t of BAIL_EVENTS.filter((e) => e !== "tool_call")) expect(plan(t).stop).toBe("cancel");
    expect(plan("context").chain).toBe("messages");
    for (const t of SERIES_EVENTS) expect(plan(t).discard).toBe(true);
  });

  it("accepts every result the matrix fixtures return and rejects fields the contract does not define", () => {
    for (const [name, script] of Object.entries(SCRIPTS)) {
      for (const [type, steps] of Object.entries(script)) {
        const schema = ruleFor(type).schema;
        for (const step of steps) {
          if (step.kind !== "returns" || !schema) continue;
          expect(schema.safeParse(step.value).success, `${name} ${type}`).toBe(true);
        }
      }
    }
    for (const t of [...BAIL_EVENTS, ...LAST_WINS_EVENTS, ...FIRST_MESSAGE_EVENTS, "context"]) {
      expect(ruleFor(t).schema!.safeParse({ input: { command: "rm" } }).success, t).toBe(false);
    }
  });
});

describe("the steps of each rule", () => {
  it("bail keeps a result that does not bail and goes on", () => {
    expect(ruleFor("tool_call").step(undefined, { block: false })).toEqual({ acc: { block: false }, done: false });
    expect(ruleFor("session_before_tree").step({ cancel: false }, { summary: { summary: "s" } })).toEqual({ acc: { summary: { summary: "s" } }, done: false });
  });

  it("bail ends the emit on its own key only", () => {
    expect(ruleFor("tool_call").step(undefined, { block: true }).done).toBe(true);
    expect(ruleFor("tool_call").step(undefined, { cancel: true } as never).done).toBe(false);
    expect(ruleFor("session_before_switch").step(undefined, { cancel: true }).done).toBe(true);
    expect(ruleFor("session_before_switch").step(undefined, { block: true } as never).done).toBe(false);
  });

  it("waterfall takes an empty messages array as the new value, and keeps the current one without messages", () => {
    const current = [{ role: "user" }];
    expect(ruleFor("context").step(current, { messages: [] }).acc).toEqual([]);
    expect(ruleFor("context").step(current, {}).acc).toBe(current);
  });

  it("first-message ignores a result without a message and every result after the first message", () => {
    const rule = ruleFor("before_agent_start");
    const first = { message: { customType: "a", content: "a", display: true } };
    expect(rule.step(undefined, {}).acc).toBeUndefined();
    expect(rule.step(first, { message: { customType: "b", content: "b", display: true } }).acc).toEqual(first);
    expect(rule.step(undefined, first)).toEqual({ acc: first, done: false });
  });

  it("first-message chains its systemPrompt beside the first message: the last one set is kept and the next handler receives it", () => {
    const rule = ruleFor("before_agent_start");
    const message = { customType: "a", content: "a", display: true };
    const one = rule.step(undefined, { systemPrompt: "one" }).acc;
    expect(one).toEqual({ systemPrompt: "one" });
    expect(nextInput(rule, { type: "before_agent_start", prompt: "p", systemPrompt: "base" }, one)).toEqual({ type: "before_agent_start", prompt: "p", systemPrompt: "one" });
    expect(rule.step(one, { message, systemPrompt: "two" }).acc).toEqual({ message, systemPrompt: "two" });
    expect(rule.perHandler).toBe(true);
  });

  it("inside an agent, before_agent_start is the agent's every-message: each message kept in order under messages, systemPrompt chained; outside, the contract's first-message", () => {
    const rule = ruleFor("before_agent_start", true);
    const [a, b] = ["a", "b"].map((t) => ({ customType: t, content: t, display: true }));
    expect(rule.kind).toBe("every-message");
    expect(ruleFor("before_agent_start").kind).toBe("first-message");
    expect(rule.step(undefined, {}).acc).toBeUndefined();
    const one = rule.step(undefined, { message: a, systemPrompt: "one" }).acc;
    expect(one).toEqual({ messages: [a], systemPrompt: "one" });
    expect(nextInput(rule, { type: "before_agent_start", prompt: "p", systemPrompt: "base" }, one)).toEqual({ type: "before_agent_start", prompt: "p", systemPrompt: "one" });
    const two = rule.step(one, { message: b }).acc;
    expect(two).toEqual({ messages: [a, b], systemPrompt: "one" });
    expect(finish(rule, two, { type: "before_agent_start" })).toBe(two);
    expect([rule.perHandler, rule.plan, rule.schema]).toStrictEqual([true, ruleFor("before_agent_start").plan, ruleFor("before_agent_start").schema]);
    expect(rule.schema).toBe(ruleFor("before_agent_start").schema);
    // An event whose agent combines results as the contract does has one rule in both.
    expect(ruleFor("context", true)).toBe(ruleFor("context"));
  });

  it("chain (message_end) refuses a replacement of another role, naming it, and goes on with the message it had", () => {
    const rule = ruleFor("message_end");
    const event = { type: "message_end", message: { role: "assistant", content: [] } };
    const out = rule.step(undefined, { message: { role: "user", content: "x" } }, event);
    expect(out).toEqual({ acc: undefined, done: false, refused: 'message: the replacement must keep the role "assistant"' });
    const same = { role: "assistant", content: [{ type: "text", text: "y" }] };
    expect(rule.step(undefined, { message: same }, event).acc).toBe(same);
    expect(finish(rule, undefined, event)).toBeUndefined();
    expect(finish(rule, same, event)).toEqual({ message: same });
  });

  it("transform (input) keeps the images a transform leaves out, ends at handled, and finishes with continue when nothing changed", () => {
    const rule = ruleFor("input");
    const images = [{ type: "image", data: "AA==", mimeType: "image/png" }];
    const event = { type: "input", text: "t", images, source: "interactive" };
    const t = rule.step(undefined, { action: "transform", text: "u" }, event);
    expect(t.acc).toEqual({ action: "transform", text: "u", images });
    expect(rule.step(t.acc, { action: "continue" }, event)).toEqual({ acc: t.acc, done: false });
    expect(rule.step(t.acc, { action: "handled" }, event)).toEqual({ acc: { action: "handled" }, done: true });
    expect(finish(rule, undefined, event)).toEqual({ action: "continue" });
  });

  it("collect (resources_discover) appends lists and always finishes with all three", () => {
    const rule = ruleFor("resources_discover");
    const one = rule.step(undefined, { skillPaths: ["/a"] }).acc;
    const two = rule.step(one, { skillPaths: ["/b"], themePaths: ["/t"] }).acc;
    expect(finish(rule, two, {})).toEqual({ skillPaths: ["/a", "/b"], promptPaths: [], themePaths: ["/t"] });
    expect(finish(rule, undefined, {})).toEqual({ skillPaths: [], promptPaths: [], themePaths: [] });
  });

  it("series keeps nothing and finishes with undefined", () => {
    const rule = ruleFor("turn_end");
    expect(rule.step(undefined, { block: true })).toEqual({ acc: undefined, done: false });
    expect(finish(rule, { anything: 1 }, {})).toBeUndefined();
  });

  it("a waterfall nobody changed finishes with the very input array, and the next input is the event itself", () => {
    const messages = [{ role: "user" }];
    const event = { type: "context", messages };
    const rule = ruleFor("context");
    expect(finish(rule, undefined, event)).toBe(messages);
    expect(nextInput(rule, event, undefined)).toBe(event);
    expect(nextInput(rule, event, [])).toEqual({ type: "context", messages: [] });
    expect(nextInput(ruleFor("tool_result"), event, [1])).toBe(event);
  });
});
