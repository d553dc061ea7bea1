import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { SandboxState } from "../src/index.js";
import { tempDir, writeHook } from "./helpers/files.js";
import { fixture, start, until } from "./helpers/host.js";
import { toolCall, turnStart } from "./helpers/events.js";

describe("restart budget", () => {
  it("a hook whose worker died is restarted with a fresh worker, and its handlers work again", async () => {
    const { runner, errors } = await start(["faulty/crashes-every-call.ts"]);
    const sandbox = runner.getHooks()[0]!.sandbox!;
    const states: SandboxState[] = [];
    sandbox.listen({ state: (s) => states.push(s) });
    await runner.emit(turnStart());
    expect(errors.map((e) => e.code)).toEqual(["crashed"]);
    await until(() => sandbox.state === "ready" && sandbox.restarts === 1, 10_000, "the restart");
    expect(states).toEqual(["restarting", "ready"]);
    // The factory ran again: its tool_call handler answers.
    expect(await runner.emitToolCall(toolCall())).toBeUndefined();
  });

  it("a hook whose restart fails to load (its file broken since it loaded) is disabled at once, reported once, and its tool calls stay blocked", async () => {
    const path = writeHook(tempDir(), "exits.ts", readFileSync(fixture("faulty/exits-process.ts"), "utf8"));
    const { runner, errors } = await start([path]);
    const sandbox = runner.getHooks()[0]!.sandbox!;
    writeFileSync(path, "export default 42;\n");
    await runner.emit(turnStart());
    await until(() => sandbox.state === "disabled", 10_000, "disabled");
    expect(sandbox.restarts).toBe(1);
    expect(errors.map((e) => e.code)).toEqual(["crashed", "disabled"]);
    expect(errors[1]!.error).toContain("its restart failed to load");
    expect((await runner.emitToolCall(toolCall()))?.reason).toContain("(disabled)");
    expect(errors.map((e) => e.code)).toEqual(["crashed", "disabled"]);
  });

  it("after 3 restarts within the window the hook is disabled, reported once, and its calls are skipped", async () => {
    const { runner, errors } = await start(["faulty/crashes-every-call.ts", "valid/redacts-api-key.ts"]);
    const sandbox = runner.getHooks()[0]!.sandbox!;
    for (let i = 0; i < 4; i++) {
      await until(() => sandbox.state === "ready" || sandbox.state === "disabled", 10_000, "a settled state");
      await runner.emit(turnStart());
    }
    await until(() => sandbox.state === "disabled", 10_000, "disabled");
    expect(sandbox.restarts).toBe(3);
    expect(errors.map((e) => e.code)).toEqual(["crashed", "crashed", "crashed", "crashed", "disabled"]);
    // Skipped from now on, not reported again.
    await runner.emit(turnStart());
    await runner.emit(turnStart());
    expect(errors.filter((e) => e.code === "disabled")).toHaveLength(1);
    // A disabled hook with tool_call handlers blocks tool calls (fail closed).
    const blocked = await runner.emitToolCall(toolCall());
    expect(blocked?.block).toBe(true);
    expect(blocked?.reason).toContain("(disabled)");
    // The other hook still works.
    expect(await runner.emit({ type: "tool_result", toolName: "read", toolCallId: "r", input: {}, content: [{ type: "text", text: "API_KEY=1" }], isError: false }))
      .toEqual({ content: [{ type: "text", text: "API_KEY=[REDACTED]" }] });
  });

  it("a hook that paces its crashes around the short window is disabled by the long one", async () => {
    const { runner, errors } = await start(["hostile/paces-crashes-around-the-restart-window.ts"],
      { load: { maxRestarts: 3, restartWindowMs: 1_000, maxLongRestarts: 3, longRestartWindowMs: 60_000 } });
    const sandbox = runner.getHooks()[0]!.sandbox!;
    await until(() => sandbox.state === "disabled", 25_000, "disabled");
    expect(sandbox.restarts).toBe(3);
    expect(errors.map((e) => e.code)).toEqual(["crashed", "crashed", "crashed", "crashed", "disabled"]);
    expect(errors.at(-1)!.error).toContain("its worker died 4 times within 60 s");
  });

  it("a tool_call while the hook is restarting is blocked, and allowed with toolCallFailure open", async () => {
    for (const toolCallFailure of ["closed", "open"] as const) {
      const { runner } = await start(["faulty/crashes-every-call.ts"], { load: { toolCallFailure } });
      const sandbox = runner.getHooks()[0]!.sandbox!;
      await runner.emit(turnStart());
      await until(() => sandbox.state === "restarting", 5_000, "restarting");
      const result = await runner.emitToolCall(toolCall());
      if (toolCallFailure === "closed") expect(result?.block).toBe(true);
      else expect(result).toBeUndefined();
    }
  });

  it("a hook skipped while its worker restarts is reported with the code restarting, not disabled, and not told to need a fix", async () => {
    const { runner, errors } = await start(["faulty/crashes-every-call.ts"]);
    // Asked the moment the state changes, so the restart cannot have finished yet.
    const asked = new Promise<string | undefined>((resolve) => {
      runner.getHooks()[0]!.sandbox!.listen({ state: (s) => { if (s === "restarting") void runner.emitToolCall(toolCall()).then((r) => resolve(r?.reason)); } });
    });
    await runner.emit(turnStart());
    const reason = await asked;
    expect(reason).toContain("(restarting)");
    expect(reason).toMatch(/is restarting after its worker failed/);
    expect(reason).not.toMatch(/Fix the hook/);
    // The skip itself is not reported (the crash was); no disabled either: the hook comes back.
    expect(errors.map((e) => e.code)).not.toContain("disabled");
    expect(errors.map((e) => e.code)).not.toContain("restarting");
  });

  it("hook.sandbox is a read-only view: no request, no way to set its state", async () => {
    const { runner } = await start(["faulty/crashes-every-call.ts"]);
    const sandbox = runner.getHooks()[0]!.sandbox! as unknown as Record<string, unknown>;
    expect(sandbox.state).toBe("ready");
    expect(sandbox.request).toBeUndefined();
    expect(() => { sandbox.state = "disabled"; }).toThrow(TypeError);
    expect(sandbox.state).toBe("ready");
  });
});
