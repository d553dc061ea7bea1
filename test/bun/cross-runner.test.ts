/**
 * A Bun host in process isolation across runners (vitest.bun.config.ts, bun-host project). Bun
 * 1.3.14 closes a child's extra stdio pipes (fd 3-5, hookbox's channel) twice: its net.Socket when
 * the pipe ends, and its Subprocess again when the garbage collector finalizes it
 * (oven-sh/bun#30444, #33828). By then the numbers belong to the next runner's children, whose
 * channel then closes under them: a healthy hook "exited with code 0". hookbox keeps each child's
 * Subprocess reachable on Bun (src/isolation/process-endpoint.ts), so the second close never runs.
 */
import { describe, expect, it } from "vitest";
import { HookRunner, createModelRegistry, createSessionManager, loadHooks, type HookError } from "../../src/index.js";
import { toolCall, turnStart } from "../helpers/events.js";
import { fixture, host, ROOT, until } from "../helpers/host.js";

const TIMER = fixture("faulty/throws-from-timer.ts");
const GUARD = fixture("valid/blocks-rm-rf.ts");
const gc = () => (globalThis as unknown as { Bun: { gc(sync: boolean): void } }).Bun.gc(true);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A runner over the timer-throwing hook (process mode): its child crashes, is restarted, and the runner is disposed; nothing of it stays reachable here. */
async function crashAndDispose(): Promise<void> {
  const { hooks, errors } = await loadHooks([TIMER], ROOT, { isolation: "process" });
  expect(errors).toEqual([]);
  const runner = new HookRunner(hooks, ROOT, createSessionManager(), createModelRegistry());
  const seen: HookError[] = [];
  runner.onError((e) => seen.push(e));
  runner.initialize({ getModel: () => undefined, sendMessageHandler: () => {}, appendEntryHandler: () => {} });
  await runner.emit(turnStart());
  await until(() => seen.length > 0, 5_000, "the crash report");
  expect(seen[0]!.code).toBe("crashed");
  await runner.dispose();
}

describe("process mode on a Bun host, one runner after another", () => {
  it("after a runner whose hook threw from a timer is disposed and collected, the next runner's healthy hook answers and its throwing one is crashed with the hook's own error", async () => {
    await crashAndDispose();
    const { hooks, errors: loadErrors } = await loadHooks([GUARD, TIMER], ROOT, { isolation: "process" });
    expect(loadErrors).toEqual([]);
    const { runner, errors } = host(hooks);
    // The old runner's children are garbage now: collect them while the new children run.
    for (let i = 0; i < 10; i++) {
      gc();
      await sleep(100);
      expect(await runner.emitToolCall(toolCall("rm -rf /"))).toEqual({ block: true, reason: "rm -rf blocked (no UI)" });
      expect(errors).toEqual([]);
    }
    await runner.emit(turnStart());
    await until(() => errors.length > 0, 5_000, "the crash report");
    expect(errors.map((e) => [e.hookPath, e.code])).toEqual([[TIMER, "crashed"]]);
    expect(errors[0]!.error).toContain("late timer failure");
    expect(await runner.emitToolCall(toolCall("rm -rf /"))).toEqual({ block: true, reason: "rm -rf blocked (no UI)" });
  });
});
