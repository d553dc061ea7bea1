import { describe, expect, it } from "vitest";
import { latency } from "../src/runner/stats.js";
import { start, until } from "./helpers/host.js";
import { toolCall, turnStart } from "./helpers/events.js";

describe("runner.stats()", () => {
  it("counts every call per hook and event type, in the runner's order, with p50 at most p99", async () => {
    const { runner } = await start(["valid/blocks-rm-rf.ts", "valid/redacts-api-key.ts"]);
    await runner.emitToolCall(toolCall("ls"));
    await runner.emitToolCall(toolCall("rm -rf /"));
    await runner.emitToolCall(toolCall("pwd"));
    await runner.emit({ type: "tool_result", toolName: "read", toolCallId: "c1", input: {}, content: [{ type: "text", text: "x" }], isError: false });
    const [blocks, redacts] = runner.stats();
    expect(blocks!.hookPath).toMatch(/blocks-rm-rf\.ts$/);
    expect(blocks!.state).toBe("ready");
    expect(blocks!.calls).toBe(3);
    expect(Object.keys(blocks!.events)).toEqual(["tool_call"]);
    expect(blocks!.events.tool_call!.calls).toBe(3);
    expect(blocks!.latency.p50).toBeGreaterThan(0);
    expect(blocks!.latency.p50).toBeLessThanOrEqual(blocks!.latency.p99);
    expect(blocks!.errors).toEqual({});
    expect(redacts!.events).toEqual({ tool_result: expect.objectContaining({ calls: 1 }) });
  });

  it("counts a crash as crashed and the restart that followed", async () => {
    const { runner, errors } = await start(["faulty/crashes-every-call.ts"]);
    const sandbox = runner.getHooks()[0]!.sandbox!;
    await runner.emit(turnStart());
    expect(errors.map((e) => e.code)).toEqual(["crashed"]);
    await until(() => sandbox.state === "ready" && sandbox.restarts === 1, 10_000, "the restart");
    const [s] = runner.stats();
    expect(s!.errors).toEqual({ crashed: 1 });
    expect(s!.restarts).toBe(1);
    expect(s!.state).toBe("ready");
    expect(s!.events.turn_start!.calls).toBe(1);
  });

  it("counts a tool_call handler that throws as handler_threw, though the error propagates instead of being reported", async () => {
    const { runner, errors } = await start(["valid/throws-from-handlers.ts"]);
    await expect(runner.emitToolCall(toolCall())).rejects.toMatchObject({ code: "handler_threw" });
    await runner.emit(turnStart());
    expect(errors.map((e) => e.code)).toEqual(["handler_threw"]);
    expect(runner.stats()[0]!.errors).toEqual({ handler_threw: 2 });
  });

  it("counts an event that skipped a disabled hook as skipped, not as a call with a latency", async () => {
    const { runner, errors } = await start(["faulty/crashes-every-call.ts"], { load: { maxRestarts: 0 } });
    const sandbox = runner.getHooks()[0]!.sandbox!;
    await runner.emit(turnStart());
    await until(() => sandbox.state === "disabled", 10_000, "disabled");
    await runner.emit(turnStart());
    expect(errors.map((e) => e.code)).toEqual(["crashed", "disabled"]);
    const [s] = runner.stats();
    expect(s!.events.turn_start!.calls).toBe(1);
    expect(s!.skipped).toBe(1);
    expect(s!.errors).toEqual({ crashed: 1, disabled: 1 });
    expect(s!.state).toBe("disabled");
  });

  it("counts a hang cut off at its deadline as timeout", async () => {
    const { runner } = await start(["faulty/hangs-async.ts"], { load: { deadlines: { default: 50 } } });
    await runner.emit(turnStart());
    expect(runner.stats()[0]!.errors).toEqual({ timeout: 1 });
  });
});

describe("latency()", () => {
  it("takes nearest-rank percentiles and gives zeros for no samples", () => {
    expect(latency([])).toEqual({ p50: 0, p99: 0, max: 0 });
    const hundred = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(latency(hundred)).toEqual({ p50: 50, p99: 99, max: 100 });
    expect(latency([7])).toEqual({ p50: 7, p99: 7, max: 7 });
  });
});
