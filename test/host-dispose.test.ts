/** dispose(): every worker ended (its thread gone), idempotent, and the runner refuses work after. */
import { existsSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createSessionManager, HookRunner, loadHooks } from "../src/index.js";
import { prepareExtensionModules } from "../src/runner/loader.js";
import { MESSAGES, sample } from "./helpers/events.js";
import { writeHook, tempDir } from "./helpers/files.js";
import { ROOT, fixture, start } from "./helpers/host.js";

/** OS threads of this process: each worker is one, and it is gone once its worker has exited. */
const threads = () => readdirSync("/proc/self/task").length;
const ports = () => process.getActiveResourcesInfo().filter((r) => r === "MessagePort").length;
const onLinux = existsSync("/proc/self/task");
const HOOKS = ["records-call-order", "returns-block-true", "returns-first-result"];

describe("dispose", () => {
  it.runIf(onLinux)("ends every worker: each sandbox is disposed and the process is back to its threads and ports", async () => {
    // One round first, so lazily started runtime threads are not counted against dispose.
    await (await start(HOOKS)).runner.dispose();
    const before = { threads: threads(), ports: ports() };
    const { runner } = await start(HOOKS);
    expect(threads()).toBe(before.threads + HOOKS.length);
    expect(runner.getHooks().map((h) => h.sandbox?.state)).toEqual(["ready", "ready", "ready"]);
    await runner.dispose();
    expect(runner.getHooks().map((h) => h.sandbox?.state)).toEqual(["disposed", "disposed", "disposed"]);
    expect({ threads: threads(), ports: ports() }).toEqual(before);
  });

  it("ends every worker even while handlers are still running, and the pending emits settle", async () => {
    const { runner, errors } = await start(["never-settles-turn-start", "records-call-order"]);
    const pendingEmit = runner.emit(sample("turn_start"));
    const pendingCall = runner.emitToolCall(sample("tool_call") as never);
    await runner.dispose();
    expect(await pendingEmit).toBeUndefined();
    expect((await pendingCall)?.block).toBe(true);
    expect(runner.getHooks().map((h) => h.sandbox?.state)).toEqual(["disposed", "disposed"]);
    expect(errors).toEqual([]);
  });

  it("a second dispose is harmless: it resolves, reports nothing and changes nothing", async () => {
    const { runner, errors } = await start(HOOKS);
    await runner.dispose();
    await expect(runner.dispose()).resolves.toBeUndefined();
    await Promise.all([runner.dispose(), runner.dispose()]);
    expect(runner.getHooks().every((h) => h.sandbox?.state === "disposed")).toBe(true);
    expect(errors).toEqual([]);
  });

  it("every emit method rejects after dispose, naming the disposal", async () => {
    const { runner } = await start(HOOKS);
    await runner.dispose();
    const disposed = /disposed/;
    await expect(runner.emit(sample("turn_start"))).rejects.toThrow(disposed);
    await expect(runner.emit(sample("tool_result"))).rejects.toThrow(disposed);
    await expect(runner.emitToolCall(sample("tool_call") as never)).rejects.toThrow(disposed);
    await expect(runner.emitContext(MESSAGES)).rejects.toThrow(disposed);
    await expect(runner.emitBeforeAgentStart("p")).rejects.toThrow(disposed);
  });

  it("a runner without hooks disposes too, and refuses emits after", async () => {
    const runner = new HookRunner([], ROOT, createSessionManager(), {} as never);
    await runner.dispose();
    await expect(runner.emit(sample("turn_start"))).rejects.toThrow(/disposed/);
  });

  it.runIf(onLinux)("a module disposed after its grants and before its thread starts never starts one, and its start reports the disposal", async () => {
    await (await start(HOOKS)).runner.dispose();
    const before = { threads: threads(), ports: ports() };
    const [module] = prepareExtensionModules([fixture("records-call-order")], ROOT);
    // begin() runs to the turn the modules of one load give each other between grants and threads.
    const started = module!.begin();
    await module!.hook!.dispose();
    expect(await started).toMatchObject({ code: "disabled", message: expect.stringContaining("disposed") });
    expect(module!.hook!.sandbox.state).toBe("disposed");
    expect({ threads: threads(), ports: ports() }).toEqual(before);
  });

  it.runIf(onLinux)("a hook that fails to load leaves no worker behind", async () => {
    // A hook never seen before: its transform starts the host's one shared transform thread
    // (src/transform/transformer.ts), which lives on; what is counted below is what the failed hooks leave.
    const dir = tempDir();
    const warm = writeHook(dir, "warm.ts", `export default () => {}; // ${Date.now()}\n`);
    await loadHooks([fixture("records-call-order"), warm], ROOT).then(({ hooks }) => new HookRunner(hooks, ROOT, createSessionManager(), {} as never).dispose());
    const before = { threads: threads(), ports: ports() };
    const bad = [writeHook(dir, "throws.ts", "export default () => { throw new Error(\"no\"); };\n"), writeHook(dir, "none.ts", "export const x = 1;\n")];
    const { hooks, errors } = await loadHooks(bad, ROOT);
    expect(hooks).toEqual([]);
    expect(errors.map((e) => e.code)).toEqual(["load_failed", "load_failed"]);
    expect({ threads: threads(), ports: ports() }).toEqual(before);
  });
});
