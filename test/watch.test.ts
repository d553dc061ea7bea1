import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createSessionManager, loadHooks, watchHooks, type HookError, type HookRunner, type LoadOptions, type RunnerOptions } from "../src/index.js";
import { blocksWith, tempDir, writeHook } from "./helpers/files.js";
import { fixture, start, until } from "./helpers/host.js";

const call = { type: "tool_call" as const, toolName: "bash", toolCallId: "c1", input: { command: "ls" } };
const result = { type: "tool_result" as const, toolName: "read", toolCallId: "c1", input: {}, content: [{ type: "text" as const, text: "original" }], isError: false };
const overrides = (text: string) =>
  `export default (pi: any) => { pi.on("tool_result", () => ({ content: [{ type: "text", text: ${JSON.stringify(text)} }] })); };\n`;

/** A runner over `paths` with `cwd` as its folder, loaded with `options` as given. */
function host(paths: string[], cwd: string, options: LoadOptions = {}, runnerOptions: RunnerOptions = {}) {
  return start(paths, { cwd, load: options, runner: runnerOptions, sessionManager: createSessionManager({ cwd }) });
}

const reasonOf = async (runner: HookRunner) => (await runner.emitToolCall(call))?.reason;
const textOf = async (runner: HookRunner) => ((await runner.emit(result)) as { content?: Array<{ text: string }> } | undefined)?.content?.[0]?.text;

describe("runner.reload(path)", () => {
  it("swaps the new version in at the same place in the order and ends the old worker", async () => {
    const dir = tempDir();
    const a = writeHook(dir, "a.ts", overrides("A1"));
    const b = writeHook(dir, "b.ts", overrides("B1"));
    const { runner, errors } = await host([a, b], dir);
    const oldSandbox = runner.getHooks()[0]!.sandbox!;
    expect(await textOf(runner)).toBe("B1");
    writeFileSync(a, overrides("A2"));
    expect(await runner.reload(a)).toBeUndefined();
    // tool_result is last-wins: b still runs after a.
    expect(await textOf(runner)).toBe("B1");
    writeFileSync(b, "export default () => {};\n");
    expect(await runner.reload(b)).toBeUndefined();
    expect(await textOf(runner)).toBe("A2");
    expect(runner.getHookPaths()).toEqual([a, b]);
    expect(oldSandbox.state).toBe("disposed");
    expect(runner.stats().map((s) => s.reloads)).toEqual([1, 1]);
    expect(errors).toEqual([]);
  });

  it("keeps the previous version running and reports load_failed when the new version does not load", async () => {
    const dir = tempDir();
    const file = writeHook(dir, "hook.ts", blocksWith("v1"));
    const { runner, errors } = await host([file], dir);
    writeFileSync(file, "export default (pi: any) => { pi.on(\"tool_call\", () => ({ block: true, reason: \"v2\" })\n");
    const error = await runner.reload(file);
    expect(error?.code).toBe("load_failed");
    expect(error?.error).toMatch(/previous version keeps running/);
    expect(errors.map((e) => e.code)).toEqual(["load_failed"]);
    expect(await reasonOf(runner)).toBe("v1");
    expect(runner.getHooks()[0]!.sandbox!.state).toBe("ready");
    expect(runner.stats()[0]!.errors).toEqual({ load_failed: 1 });
  });

  it("reports load_failed for a new version whose factory throws, and the old one answers", async () => {
    const dir = tempDir();
    const file = writeHook(dir, "hook.ts", blocksWith("v1"));
    const { runner } = await host([file], dir);
    writeFileSync(file, "export default () => { throw new Error(\"bad config\"); };\n");
    const error = await runner.reload(file);
    expect(error?.code).toBe("load_failed");
    expect(error?.error).toMatch(/bad config/);
    expect(await reasonOf(runner)).toBe("v1");
  });

  it("brings a disabled hook back with a fresh worker", async () => {
    const { runner, errors } = await host([fixture("faulty/crashes-every-call.ts")], process.cwd(), { maxRestarts: 0 });
    await runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 1 });
    const sandbox = () => runner.getHooks()[0]!.sandbox!;
    await until(async () => sandbox().state === "disabled", 10_000, "disabled");
    expect(errors.map((e) => e.code)).toEqual(["crashed", "disabled"]);
    expect(await runner.reload(fixture("faulty/crashes-every-call.ts"))).toBeUndefined();
    expect(sandbox().state).toBe("ready");
    expect(runner.stats()[0]!.state).toBe("ready");
  });

  it("rejects a path that is not a hook of the runner", async () => {
    const dir = tempDir();
    const { runner } = await host([writeHook(dir, "hook.ts", blocksWith("v1"))], dir);
    await expect(runner.reload(`${dir}/other.ts`)).rejects.toThrow(/no hook loaded from/);
  });
});

describe("hot reload (watch)", () => {
  it("a runner built with watch: true reloads a hook when its file changes, and it answers with the new behaviour", async () => {
    const dir = tempDir();
    const file = writeHook(dir, "hook.ts", blocksWith("before the edit"));
    const { runner, errors } = await host([file], dir, {}, { watch: true });
    expect(await reasonOf(runner)).toBe("before the edit");
    writeFileSync(file, blocksWith("after the edit"));
    await until(async () => (await reasonOf(runner)) === "after the edit", 10_000, "the reload");
    expect(runner.stats()[0]!.reloads).toBe(1);
    expect(errors).toEqual([]);
  });

  it("a runner built with watch options reports each reload to their onReload", async () => {
    const dir = tempDir();
    const file = writeHook(dir, "hook.ts", blocksWith("before the edit"));
    const reloads: Array<[string, HookError | undefined]> = [];
    const { runner } = await host([file], dir, {}, { watch: { onReload: (p, e) => reloads.push([p, e]) } });
    writeFileSync(file, blocksWith("after the edit"));
    await until(() => reloads.length > 0, 10_000, "the reload");
    expect(reloads).toEqual([[file, undefined]]);
    expect(await reasonOf(runner)).toBe("after the edit");
  });

  it("loadHooks refuses the watch option with a TypeError that names the runner's option instead", async () => {
    const dir = tempDir();
    const file = writeHook(dir, "hook.ts", blocksWith("v1"));
    await expect(loadHooks([file], dir, { watch: true } as LoadOptions)).rejects.toThrow(/new HookRunner\(.*\{ watch: true \}\)/);
  });

  it("a change to a local file the hook imports reloads the hook", async () => {
    const dir = tempDir();
    const lib = writeHook(dir, "lib/reason.ts", `export const REASON = "one";\n`);
    const file = writeHook(dir, "hook.ts",
      `import { REASON } from "./lib/reason.js";\nexport default (pi: any) => { pi.on("tool_call", () => ({ block: true, reason: REASON })); };\n`);
    const { runner } = await host([file], dir);
    const reloads: Array<[string, HookError | undefined]> = [];
    const watcher = watchHooks(runner, { onReload: (p, e) => reloads.push([p, e]) });
    try {
      expect(watcher.files(file)).toEqual([file, lib]);
      expect(await reasonOf(runner)).toBe("one");
      writeFileSync(lib, `export const REASON = "two";\n`);
      await until(async () => reloads.length > 0, 10_000, "the reload");
      expect(reloads).toEqual([[file, undefined]]);
      expect(await reasonOf(runner)).toBe("two");
    } finally {
      watcher.close();
    }
  });

  it("a watched edit that breaks the hook keeps the old version and reports load_failed; fixing it reloads", async () => {
    const dir = tempDir();
    const file = writeHook(dir, "hook.ts", blocksWith("good"));
    const { runner, errors } = await host([file], dir);
    const reloads: Array<HookError | undefined> = [];
    const watcher = watchHooks(runner, { onReload: (_p, e) => reloads.push(e) });
    try {
      writeFileSync(file, "export default 42;\n");
      await until(async () => reloads.length > 0, 10_000, "the failed reload");
      expect(reloads.map((e) => e?.code)).toEqual(["load_failed"]);
      expect(errors.map((e) => e.code)).toEqual(["load_failed"]);
      expect(await reasonOf(runner)).toBe("good");
      writeFileSync(file, blocksWith("fixed"));
      await until(async () => (await reasonOf(runner)) === "fixed", 10_000, "the fixed reload");
    } finally {
      watcher.close();
    }
  });
});
