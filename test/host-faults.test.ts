import { describe, expect, it } from "vitest";
import { loadHooks, type AgentMessage } from "../src/index.js";
import { fixture, start, until } from "./helpers/host.js";
import { toolCall, turnStart } from "./helpers/events.js";

describe("deadlines and liveness", () => {
  it("a synchronous loop in a tool_call handler is terminated as unresponsive and the call is blocked", async () => {
    const { runner, errors } = await start(["faulty/loops-forever-in-handler.ts", "valid/redacts-api-key.ts"], { load: { unresponsiveMs: 500, maxRestarts: 0 } });
    const result = await runner.emitToolCall(toolCall());
    expect(result?.block).toBe(true);
    expect(result?.reason).toContain("unresponsive");
    expect(errors.map((e) => e.code)).toContain("unresponsive");
    // The other hook still answers.
    const redacted = await runner.emit({ type: "tool_result", toolName: "read", toolCallId: "r", input: {}, content: [{ type: "text", text: "API_KEY=s3cret" }], isError: false });
    expect(redacted).toEqual({ content: [{ type: "text", text: "API_KEY=[REDACTED]" }] });
    // Disabled (no restarts allowed) with tool_call handlers: tool calls stay blocked.
    await until(() => runner.getHooks()[0]!.sandbox!.state === "disabled", 5_000, "disabled");
    expect((await runner.emitToolCall(toolCall()))?.block).toBe(true);
    expect(errors.filter((e) => e.code === "disabled")).toHaveLength(1);
  });

  it("a synchronous loop that outlasts its deadline times out, then its worker is terminated as unresponsive", async () => {
    const { runner, errors } = await start(["faulty/loops-forever-in-handler.ts"], { load: { deadlines: { tool_call: 100 }, unresponsiveMs: 400, maxRestarts: 0 } });
    expect((await runner.emitToolCall(toolCall()))?.block).toBe(true);
    await until(() => runner.getHooks()[0]!.sandbox!.state === "disabled", 5_000, "the worker to be ended");
    expect(errors.map((e) => e.code)).toEqual(["timeout", "unresponsive", "disabled"]);
  });

  it("a synchronous loop in the factory fails the load as unresponsive", async () => {
    const { errors } = await loadHooks([fixture("faulty/loops-forever-in-factory.ts")], process.cwd(), { loadUnresponsiveMs: 300 });
    expect(errors).toHaveLength(1);
    expect(errors[0]!.code).toBe("unresponsive");
  });

  it("a handler that never settles times out and the runner goes on to the next hook", async () => {
    const { runner, errors } = await start(["faulty/hangs-async.ts", "valid/drops-debug-messages.ts"], { load: { deadlines: { default: 150 } } });
    const messages: AgentMessage[] = [{ role: "user", content: "hi", timestamp: 1 }, { role: "custom", customType: "debug-only", content: "x", display: false, timestamp: 2 }];
    const out = await runner.emitContext(messages);
    expect(out).toEqual([{ role: "user", content: "hi", timestamp: 1 }]);
    expect(errors.map((e) => e.code)).toEqual(["timeout"]);
    expect(errors[0]!.event).toBe("context");
  });

  it("a hook's handlers for one event share one deadline, as they run in one round trip: three of half the deadline each time out, though one alone fits in it (the control: three of a sixth finish)", async () => {
    // Why these numbers: each margin is half the deadline, however starved the machine. The three
    // waits outlast the deadline by 500 ms, as a timer never fires early; one wait leaves 500 ms for
    // the round trip, and the control waits as long in all (three round trips, not one).
    const deadline = 1000;
    const wait = deadline / 2;
    const { runner, errors, entries } = await start(["valid/waits-in-three-handlers.ts"], { load: { deadlines: { turn_start: deadline } } });
    await runner.emit({ ...turnStart(), turnIndex: Math.ceil(wait / 3) });
    expect(errors).toEqual([]);
    expect(entries.map(([, name]) => name)).toEqual(["first", "second", "third"]);
    entries.length = 0;
    await runner.emit({ ...turnStart(), turnIndex: wait });
    expect(errors.map((e) => [e.code, e.event])).toEqual([["timeout", "turn_start"]]);
    // The first handler alone finished within the deadline; the third was still waiting at it (the second ends right at it: either way).
    const noted = entries.map(([, name]) => name);
    expect(noted[0]).toBe("first");
    expect(noted).not.toContain("third");
  });

  it("a deadline of Infinity is no deadline: three handlers waiting 200 ms each all finish, none reported (Node's own timers would fire at once past 2^31-1 ms)", async () => {
    const { runner, errors, entries } = await start(["valid/waits-in-three-handlers.ts"], { load: { deadlines: { default: Infinity, turn_start: Infinity } } });
    await runner.emit({ ...turnStart(), turnIndex: 200 });
    expect(errors).toEqual([]);
    expect(entries.map(([, name]) => name)).toEqual(["first", "second", "third"]);
  });

  it("a tool_call whose handler times out is blocked (fail closed), the reason naming the hook and the code as the README shows it", async () => {
    const { runner, errors } = await start(["faulty/hangs-async.ts"], { load: { deadlines: { tool_call: 100 } } });
    const result = await runner.emitToolCall(toolCall());
    expect(result).toEqual({ block: true, reason: `Blocked because hook "${fixture("faulty/hangs-async.ts")}" failed (timeout): ${errors[0]!.error}` });
    expect(errors.map((e) => e.code)).toEqual(["timeout"]);
  });

  it("with toolCallFailure open, a timed-out tool_call is reported but allowed", async () => {
    const { runner, errors } = await start(["faulty/hangs-async.ts"], { load: { deadlines: { tool_call: 100 }, toolCallFailure: "open" } });
    expect(await runner.emitToolCall(toolCall())).toBeUndefined();
    expect(errors.map((e) => e.code)).toEqual(["timeout"]);
  });

  it("time spent waiting on the host's UI does not count against the deadline", async () => {
    const { runner, errors } = await start(["faulty/waits-on-ui-then-hangs.ts"], { load: { deadlines: { default: 150 } }, init: {
      hasUI: true,
      uiContext: { ...(await import("../src/index.js")).createNoOpUIContext(), confirm: () => new Promise((r) => setTimeout(() => r(true), 400)) },
    } });
    // The user takes 400 ms against a 150 ms deadline: still allowed.
    expect(await runner.emitToolCall(toolCall())).toEqual({ block: false, reason: "user said no" });
    expect(errors).toEqual([]);
    // After the answer, the hook's own hang is counted and cut off.
    await runner.emit(turnStart());
    expect(errors.map((e) => e.code)).toEqual(["timeout"]);
  });

  it("two tool_calls in flight at once: each prompt pauses the deadline of the call whose ctx asked", async () => {
    const asked: string[] = [];
    // Why 300 ms: room for the hook's own 20 ms and its first post on a loaded machine; each prompt
    // (400 ms, the second also waits 400 ms for the first) still outlasts the deadline.
    const { runner, errors } = await start(["valid/confirms-tool-calls-after-a-wait.ts"], { load: { deadlines: { tool_call: 300 } }, init: {
      hasUI: true,
      uiContext: { ...(await import("../src/index.js")).createNoOpUIContext(), confirm: (_title, id) => { asked.push(id); return new Promise((r) => setTimeout(() => r(true), 400)); } },
    } });
    // Both calls have started before either prompts. Prompts run one at a time: the second waits
    // 400 ms for the first, then 400 ms for its user, against a 300 ms deadline.
    const both = await Promise.all([runner.emitToolCall({ ...toolCall(), toolCallId: "a" }), runner.emitToolCall({ ...toolCall(), toolCallId: "b" })]);
    expect(both).toEqual([{ block: false, reason: "user said no" }, { block: false, reason: "user said no" }]);
    expect(asked).toEqual(["a", "b"]);
    expect(errors).toEqual([]);
  });

  it("a prompt through a ctx kept from an earlier event pauses the tool_call the hook is busy with", async () => {
    const { runner, errors } = await start(["valid/prompts-with-kept-context.ts"], { load: { deadlines: { tool_call: 150 } }, init: {
      hasUI: true,
      uiContext: { ...(await import("../src/index.js")).createNoOpUIContext(), confirm: () => new Promise((r) => setTimeout(() => r(true), 400)) },
    } });
    await runner.emit({ type: "session_start" });
    expect(await runner.emitToolCall(toolCall())).toEqual({ block: false, reason: "user said no" });
    expect(errors).toEqual([]);
  });
});

describe("death is contained and named", () => {
  it("process.exit in a handler is reported as crashed with the exit code, and tool_call is blocked", async () => {
    const { runner, errors } = await start(["faulty/exits-process.ts"]);
    const result = await runner.emitToolCall(toolCall());
    expect(result?.block).toBe(true);
    expect(errors[0]!.code).toBe("crashed");
    expect(errors[0]!.error).toContain("code 7");
  });

  it("an uncaught exception from a timer after the handler returned is reported as crashed", async () => {
    const { runner, errors } = await start(["faulty/throws-from-timer.ts"]);
    await runner.emit(turnStart());
    await until(() => errors.length > 0, 5_000, "the crash report");
    expect(errors[0]!.code).toBe("crashed");
    expect(errors[0]!.error).toContain("late timer failure");
    expect(errors[0]!.stack).toContain("throws-from-timer.ts");
  });

  it("an unhandled rejection is reported as crashed", async () => {
    const { runner, errors } = await start(["faulty/rejects-unhandled.ts"]);
    await runner.emit(turnStart());
    await until(() => errors.length > 0, 5_000, "the crash report");
    expect(errors[0]!.code).toBe("crashed");
    expect(errors[0]!.error).toContain("nobody caught me");
  });

  it("throw undefined from a timer still gives a readable crash message", async () => {
    const { runner, errors } = await start(["faulty/throws-undefined-from-timer.ts"]);
    await runner.emit(turnStart());
    await until(() => errors.length > 0, 5_000, "the crash report");
    expect(errors[0]!.code).toBe("crashed");
    expect(errors[0]!.error).toContain("undefined was thrown");
  });

  it("heap exhaustion is reported as out_of_memory and the host keeps running", async () => {
    const { runner, errors } = await start(["faulty/exhausts-heap.ts", "valid/blocks-rm-rf.ts"], { load: {
      resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 }, unresponsiveMs: 10_000, maxRestarts: 0,
    } });
    await runner.emit(turnStart());
    expect(errors.map((e) => e.code)).toContain("out_of_memory");
    expect(await runner.emitToolCall(toolCall("rm -rf /"))).toEqual({ block: true, reason: "rm -rf blocked (no UI)" });
  });

  it.each([
    ["out_of_memory", "faulty/exhausts-heap-on-tool-call.ts", { resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 }, unresponsiveMs: 10_000, maxRestarts: 0 }],
    ["result_too_large", "faulty/returns-oversized-result.ts", { maxMessageBytes: 1_000_000 }],
  ] as const)("a tool_call whose handler fails with %s is blocked (fail closed), the reason naming the hook and the code", async (code, name, load) => {
    const { runner, errors } = await start([name], { load });
    const result = await runner.emitToolCall(toolCall("ls"));
    expect(result).toEqual({ block: true, reason: expect.stringMatching(new RegExp(`^Blocked because hook ".*${name.split("/")[1]!.replace(".", "\\.")}" failed \\(${code}\\): `)) });
    expect(errors.map((e) => [e.code, e.event])).toEqual([[code, "tool_call"]]);
  });

  it("non-Error values thrown by handlers become readable handler_threw messages", async () => {
    const { runner, errors } = await start(["faulty/throws-non-errors.ts"]);
    await runner.emit(turnStart());
    expect(errors.map((e) => e.code)).toEqual(["handler_threw", "handler_threw", "handler_threw"]);
    expect(errors.map((e) => e.error)).toEqual([
      "undefined was thrown (throw an Error to give a message)",
      'a non-Error value was thrown: {"notAnError":1}',
      "just a string",
    ]);
  });

  it("a factory that exits fails the load and is not restarted", async () => {
    const { hooks, errors } = await loadHooks([fixture("faulty/fails-at-load-with-exit.ts")], process.cwd());
    expect(hooks).toEqual([]);
    expect(errors[0]!.code).toBe("crashed");
    expect(errors[0]!.error).toContain("code 3");
  });
});
