/**
 * Handler errors and invalid results over real workers: what reaches onError (with its code),
 * what propagates to the caller, and that the rules go on as the contract says.
 */
import { describe, expect, it } from "vitest";
import type { HookError } from "../src/index.js";
import { MESSAGES, emitAny, sample } from "./helpers/events.js";
import { fixture, start } from "./helpers/host.js";
import { returned } from "./helpers/matrix.js";
import { BAIL_EVENTS } from "../fixtures/valid/lib/scripted.js";
import { script as bailsAfterInvalid } from "../fixtures/valid/bails-after-an-invalid-bail.js";

const THROWS = fixture("throws-from-handlers");
const threw = (event: string): HookError => ({
  hookPath: THROWS, event, code: "handler_threw", error: `${event} handler failed`, stack: expect.stringContaining("throws-from-handlers.ts"),
});
const mark = { role: "custom", customType: "mark", content: "after-throw" };

describe("handler errors in emit, emitContext and emitBeforeAgentStart", () => {
  it("emit reports a handler error as handler_threw and goes on with the next handler and the next hook", async () => {
    const { runner, errors, calls } = await start(["throws-from-handlers", "records-call-order"]);
    expect(await runner.emit(sample("turn_start"))).toBeUndefined();
    expect(errors).toEqual([threw("turn_start")]);
    expect(calls()).toEqual(["throws-from-handlers turn_start#1", "records-call-order turn_start#0"]);
  });

  it("emit of tool_result reports the error and the later override still wins", async () => {
    const { runner, errors } = await start(["throws-from-handlers", "returns-first-result"]);
    expect(await runner.emit(sample("tool_result"))).toEqual(returned("returns-first-result", "tool_result"));
    expect(errors).toEqual([threw("tool_result")]);
  });

  it("emit of session_before_switch reports the error and a later cancel still applies", async () => {
    const { runner, errors } = await start(["throws-from-handlers", "cancels-session-before-events"]);
    expect(await runner.emit(sample("session_before_switch"))).toEqual({ cancel: true });
    expect(errors).toEqual([threw("session_before_switch")]);
  });

  it("emitContext reports the error and the chain goes on from the messages it had", async () => {
    const { runner, errors, received } = await start(["throws-from-handlers", "records-call-order"]);
    expect(await runner.emitContext(MESSAGES)).toEqual([mark]);
    expect(errors).toEqual([threw("context")]);
    expect(received().at(-1)?.messages).toEqual([mark]);
  });

  it("emitBeforeAgentStart reports the error and keeps the first message a later handler returns", async () => {
    const { runner, errors } = await start(["throws-from-handlers", "returns-first-result"]);
    // returns-first-result's system prompt is chained beside the first message.
    expect(await runner.emitBeforeAgentStart("p")).toEqual({ message: { customType: "mark", content: "after-throw", display: false }, systemPrompt: "system first" });
    expect(errors).toEqual([threw("before_agent_start")]);
  });

  it("the stack that reaches the host is the worker's, pointing into the hook's file", async () => {
    const { runner, errors } = await start(["throws-from-handlers"]);
    await runner.emit(sample("turn_start"));
    expect(errors[0]?.stack).toMatch(/Error: turn_start handler failed\n\s+at .*throws-from-handlers\.ts:\d+/);
  });
});

describe("handler errors in emitToolCall", () => {
  it("propagate to the caller with code handler_threw, are not sent to onError, and stop every later handler", async () => {
    const { runner, errors, calls } = await start(["throws-from-handlers", "records-call-order"]);
    const error = await runner.emitToolCall(sample("tool_call") as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: "handler_threw", message: "tool_call handler failed", hookPath: THROWS });
    expect((error as Error).stack).toContain("throws-from-handlers.ts");
    expect(errors).toEqual([]);
    expect(calls()).toEqual([]);
  });

  it("a hook before the throwing one has run and its result is dropped with the rejection", async () => {
    const { runner, calls } = await start(["returns-first-result", "throws-from-handlers", "records-call-order"]);
    await expect(runner.emitToolCall(sample("tool_call") as never)).rejects.toMatchObject({ code: "handler_threw" });
    expect(calls()).toEqual(["returns-first-result tool_call#0"]);
  });
});

describe("invalid results", () => {
  const INVALID = fixture("returns-invalid-results");
  const fields: Array<[string, string]> = [
    ["tool_result", "content"], ["context", "messages.0"], ["before_agent_start", "message.customType"],
    ["session_before_switch", "cancel"], ["session_before_branch", "rewind"], ["session_before_compact", "compaction.firstKeptEntryId"],
    ["session_before_tree", "summary"], ["session.compacting", "context.0"],
    ["session_before_fork", "cancel"], ["input", "action"], ["message_end", "message"],
  ];
  for (const [type, field] of fields) {
    it(`an invalid ${type} result is reported as invalid_result naming the hook, the event and ${field}, and is not applied`, async () => {
      const { runner, errors } = await start(["returns-first-result", "returns-invalid-results"]);
      const first = type === "context" ? [...MESSAGES, { role: "custom", customType: "mark", content: "first", display: true, timestamp: 0 }] : returned("returns-first-result", type);
      expect(await emitAny(runner, sample(type))).toEqual(first);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ code: "invalid_result", hookPath: INVALID, event: type });
      expect(errors[0]!.error).toContain(INVALID);
      expect(errors[0]!.error).toContain(type);
      expect(errors[0]!.error).toContain(field);
    });
  }

  it("a misspelt field ({ blok: true }, the README's compile error) is an invalid_result at run time naming the key, and the call is blocked", async () => {
    const { runner, errors } = await start(["faulty/misspells-block.ts"]);
    const result = await runner.emitToolCall(sample("tool_call") as never);
    expect(result).toEqual({ block: true, reason: expect.stringContaining("failed (invalid_result)") });
    expect(errors).toEqual([expect.objectContaining({ code: "invalid_result", event: "tool_call", error: expect.stringContaining('Unrecognized key: "blok"') })]);
  });

  it("an invalid tool_call result is reported and blocks the call; later hooks are not asked", async () => {
    const { runner, errors, calls } = await start(["returns-invalid-results", "returns-first-result"]);
    const result = await runner.emitToolCall(sample("tool_call") as never);
    expect(result?.block).toBe(true);
    expect(result?.reason).toContain("invalid_result");
    expect(errors).toEqual([expect.objectContaining({ code: "invalid_result", hookPath: INVALID, event: "tool_call", error: expect.stringContaining("block:") })]);
    expect(calls()).toEqual(["returns-invalid-results tool_call#0"]);
  });

  for (const type of BAIL_EVENTS) {
    it(`${type}: a bail key that is not true (an invalid result) does not stop the hook's next handler, which bails`, async () => {
      const { runner, errors, calls } = await start(["bails-after-an-invalid-bail", "records-call-order"]);
      // emit, not emitToolCall: there an invalid result blocks at once (fail closed).
      expect(await runner.emit(sample(type))).toEqual((bailsAfterInvalid[type]![1] as { value: unknown }).value);
      expect(calls()).toEqual([`bails-after-an-invalid-bail ${type}#0`, `bails-after-an-invalid-bail ${type}#1`]);
      expect(errors).toEqual([expect.objectContaining({ code: "invalid_result", event: type })]);
    });
  }

  it("context messages that are not an array are reported as invalid_result and not applied", async () => {
    const { runner, errors } = await start(["returns-non-array-messages", "returns-first-result"]);
    expect(await runner.emitContext(MESSAGES)).toEqual([...MESSAGES, { role: "custom", customType: "mark", content: "first", display: true, timestamp: 0 }]);
    expect(errors).toEqual([expect.objectContaining({ code: "invalid_result", event: "context", error: expect.stringContaining("messages:") })]);
  });
});

describe("error listeners", () => {
  it("onError returns a function that unsubscribes the listener", async () => {
    const { runner } = await start(["throws-from-handlers"]);
    const seen: string[] = [];
    const off = runner.onError((e) => { seen.push(e.event); });
    await runner.emit(sample("turn_start"));
    off();
    await runner.emit(sample("turn_start"));
    expect(seen).toEqual(["turn_start"]);
  });

  it("emitError calls every listener synchronously with the error as given", async () => {
    const { runner, errors } = await start(["records-call-order"]);
    const error: HookError = { hookPath: "command:handoff", event: "command", error: "failed", code: "handler_threw" };
    runner.emitError(error);
    expect(errors).toEqual([error]);
  });
});

describe("invalid results in a chain", () => {
  it("an invalid context result drops only that handler's change: the one before it in the same hook stays applied", async () => {
    const { runner, errors } = await start(["chains-valid-then-invalid-context"]);
    expect(await runner.emitContext(MESSAGES)).toEqual([...MESSAGES, { role: "custom", customType: "mark", content: "kept", display: true, timestamp: 0 }]);
    expect(errors.map((e) => e.code)).toEqual(["invalid_result"]);
  });
});

describe("results of events that return nothing", () => {
  it("are ignored whatever they are, functions and symbols included, without an error", async () => {
    const { runner, errors, calls } = await start(["returns-uncloneable-from-result-less-events", "records-call-order"]);
    for (const type of ["turn_start", "agent_start", "turn_end", "session_start", "agent_end"]) {
      expect(await runner.emit(sample(type))).toBeUndefined();
    }
    expect(errors).toEqual([]);
    expect(calls().filter((c) => c.startsWith("records-call-order"))).toHaveLength(5);
  });
});
