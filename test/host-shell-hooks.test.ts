import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { HookToolWrapper, discoverAndLoadHooks } from "../src/index.js";
import type { DiscoverOptions } from "../src/discovery/index.js";
import type { LoadOptions } from "../src/runner/loader.js";
import { tempDir } from "./helpers/files.js";
import { fixture, host, until } from "./helpers/host.js";
import { projectAndHome } from "./support/folders.js";

/** A temporary project and home folder; `hooks` maps `<type>/<file>` under `<cwd>/.xcsh/hooks/` to fixtures. */
function project(hooks: Record<string, string>, mode = 0o755) {
  const { cwd, home } = projectAndHome("hookbox-shell-");
  const paths: Record<string, string> = {};
  for (const [at, rel] of Object.entries(hooks)) {
    const dest = join(cwd, ".xcsh/hooks", at);
    mkdirSync(dirname(dest), { recursive: true });
    copyFileSync(fixture(rel), dest);
    chmodSync(dest, mode);
    paths[at] = dest;
  }
  return { cwd, home, paths };
}

/** Discover with shell hooks on, build and initialize a runner (disposed after the test). */
async function start(hooks: Record<string, string>, options: DiscoverOptions & LoadOptions = {}) {
  const { cwd, home, paths } = project(hooks);
  // Shell hooks in a project folder run only when trusted (the policy cannot confine them): see test/trust.test.ts.
  const result = await discoverAndLoadHooks([], cwd, { home, shellHooks: true, sortEntries: true, trust: { project: "trusted" }, approvals: false, ...options });
  const { runner, errors } = host(result.hooks, { cwd });
  return { runner, errors, result, paths, cwd };
}

const bash = (command: string, toolCallId = "c1") => ({ type: "tool_call" as const, toolName: "bash", toolCallId, input: { command } });
const read = (text: string, isError = false) =>
  ({ type: "tool_result" as const, toolName: "read", toolCallId: "r1", input: { path: "a.txt" }, content: [{ type: "text" as const, text }], isError, details: undefined });

describe("shell hooks (shellHooks: true)", () => {
  it("a pre/bash.sh that exits 2 blocks rm -rf with its stderr as the reason, and allows other commands", async () => {
    const { runner, errors, result } = await start({ "pre/bash.sh": "shell/blocks-rm-rf-by-exit-2.sh" });
    expect(result.errors).toEqual([]);
    expect(result.hooks[0]!.sandbox).toBeUndefined();
    expect(await runner.emitToolCall(bash("rm -rf /"))).toEqual({ block: true, reason: "rm -rf blocked by shell hook" });
    expect(await runner.emitToolCall(bash("ls"))).toBeUndefined();
    expect(errors).toEqual([]);
  });

  it("a pre hook blocks by printing a JSON result on stdout", async () => {
    const { runner, errors } = await start({ "pre/bash.sh": "shell/blocks-by-json.sh" });
    expect(await runner.emitToolCall(bash("ls"))).toEqual({ block: true, reason: "blocked by JSON on stdout" });
    expect(errors).toEqual([]);
  });

  it("a pre hook that hangs is killed at its deadline and the call is blocked with timeout", async () => {
    const { runner, errors, paths } = await start({ "pre/bash.sh": "shell/hangs.sh" }, { deadlines: { tool_call: 300 } });
    const result = await runner.emitToolCall(bash("ls"));
    expect(result?.block).toBe(true);
    expect(result?.reason).toContain("(timeout)");
    expect(errors.map((e) => [e.code, e.event, e.hookPath])).toEqual([["timeout", "tool_call", paths["pre/bash.sh"]]]);
  });

  it("a shell hook takes its deadline from perHook by its path, like a module hook", async () => {
    const { cwd, home, paths } = project({ "pre/bash.sh": "shell/hangs.sh" });
    const result = await discoverAndLoadHooks([], cwd, { home, shellHooks: true, trust: { project: "trusted" }, approvals: false, perHook: { [paths["pre/bash.sh"]!]: { deadlines: { tool_call: 200 } } } });
    const { runner, errors } = host(result.hooks, { cwd, init: false });
    expect((await runner.emitToolCall(bash("ls")))?.block).toBe(true);
    expect(errors.map((e) => e.code)).toEqual(["timeout"]);
    expect(errors[0]!.error).toContain("within 200 ms");
  });

  // A killed child left unreaped is a zombie: it counts as gone.
  const alive = (pid: number) => { try { return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8")); } catch { return false; } };

  it.runIf(process.platform === "linux")("a hook killed at its deadline takes the processes it started with it", async () => {
    const pidFile = join(tempDir("hookbox-pid-"), "child.pid");
    const { runner, errors } = await start({ "pre/bash.sh": "shell/hangs-with-a-child.sh" },
      { deadlines: { tool_call: 300 }, shellHooks: { env: { ...process.env, CHILD_PID_FILE: pidFile } } });
    expect((await runner.emitToolCall(bash("ls")))?.block).toBe(true);
    expect(errors.map((e) => e.code)).toEqual(["timeout"]);
    const child = Number(readFileSync(pidFile, "utf8"));
    await until(() => !alive(child), 5_000, "the hook's child to be gone");
  });

  it("a pre hook that exits 1 blocks the call (fail closed) and is reported as crashed", async () => {
    const { runner, errors } = await start({ "pre/bash.sh": "shell/exits-1.sh" });
    const result = await runner.emitToolCall(bash("ls"));
    expect(result?.block).toBe(true);
    expect(errors.map((e) => e.code)).toEqual(["crashed"]);
    expect(errors[0]!.error).toContain("exited with code 1");
    expect(errors[0]!.error).toContain("jq: command not found");
  });

  it("a pre hook killed by a signal blocks the call and is reported as crashed", async () => {
    const { runner, errors } = await start({ "pre/bash.sh": "shell/kills-itself.sh" });
    expect((await runner.emitToolCall(bash("ls")))?.block).toBe(true);
    expect(errors.map((e) => e.code)).toEqual(["crashed"]);
    expect(errors[0]!.error).toContain("SIGKILL");
  });

  it("a pre hook that cannot start (its #! interpreter is missing) blocks the call and is reported as crashed", async () => {
    const { runner, errors } = await start({ "pre/bash.sh": "shell/has-missing-interpreter.sh" });
    expect((await runner.emitToolCall(bash("ls")))?.block).toBe(true);
    expect(errors.map((e) => e.code)).toEqual(["crashed"]);
    expect(errors[0]!.error).toContain("could not be started");
  });

  it("a pre hook runs only for its own tool, and * runs for every tool", async () => {
    const { runner, errors } = await start({ "pre/bash.sh": "shell/exits-1.sh", "pre/*.sh": "shell/blocks-by-json.sh" });
    const write = { type: "tool_call" as const, toolName: "write", toolCallId: "w", input: {} };
    // bash.sh (which would fail) did not run for write; *.sh did, and blocked.
    expect(await runner.emitToolCall(write)).toEqual({ block: true, reason: "blocked by JSON on stdout" });
    expect(errors).toEqual([]);
  });

  it("a post/read.sh rewrites the content of read results, reading the event from stdin", async () => {
    const { runner, errors } = await start({ "post/read.sh": "shell/rewrites-read-content.sh" });
    expect(await runner.emit(read("API_KEY=s3cret"))).toEqual({ content: [{ type: "text", text: "rewritten by post hook for r1 (ok)" }] });
    expect(errors).toEqual([]);
  });

  it("a post hook that fails is reported and leaves the tool's output as it was", async () => {
    const { runner, errors } = await start({ "post/read.sh": "shell/exits-1.sh" });
    expect(await runner.emit(read("plain"))).toBeUndefined();
    expect(errors.map((e) => [e.code, e.event])).toEqual([["crashed", "tool_result"]]);
  });

  it("stdout that is not JSON is an invalid_result, and the call is blocked", async () => {
    const { runner, errors } = await start({ "pre/bash.sh": "shell/prints-non-json.sh" });
    expect((await runner.emitToolCall(bash("ls")))?.block).toBe(true);
    expect(errors.map((e) => e.code)).toEqual(["invalid_result"]);
    expect(errors[0]!.error).toContain("stdout is not JSON");
  });

  it("JSON of the wrong shape is rejected by the same zod schema as module results, and the call is blocked", async () => {
    const { runner, errors } = await start({ "pre/bash.sh": "shell/returns-wrong-shape.sh" });
    expect((await runner.emitToolCall(bash("ls")))?.block).toBe(true);
    expect(errors.map((e) => e.code)).toEqual(["invalid_result"]);
    expect(errors[0]!.error).toContain("block");
  });

  it("output over maxOutputBytes kills the hook as result_too_large, and the call is blocked", async () => {
    const { runner, errors } = await start({ "pre/bash.sh": "shell/floods-stdout.sh" }, { shellHooks: { maxOutputBytes: 64 * 1024 } });
    expect((await runner.emitToolCall(bash("ls")))?.block).toBe(true);
    expect(errors.map((e) => e.code)).toEqual(["result_too_large"]);
  });

  it("a shell hook that is not executable fails to load with load_failed, saying to chmod +x", async () => {
    const { cwd, home, paths } = project({ "pre/bash.sh": "shell/allows-silently.sh" }, 0o644);
    const result = await discoverAndLoadHooks([], cwd, { home, shellHooks: true, trust: { project: "trusted" }, approvals: false });
    expect(result.hooks).toEqual([]);
    expect(result.errors).toEqual([expect.objectContaining({ path: paths["pre/bash.sh"], code: "load_failed" })]);
    expect(result.errors[0]!.error).toContain("chmod +x");
  });

  it("shell hooks take their place in the same order as module hooks, and the first block wins", async () => {
    const { runner, result, paths } = await start({
      "pre/a-allows.sh": "shell/allows-silently.sh",
      "pre/b-blocks-rm-rf.ts": "valid/blocks-rm-rf.ts",
      "pre/c-bash.sh": "shell/blocks-rm-rf-by-exit-2.sh",
    }, { shellHooks: true, sortEntries: true });
    expect(runner.getHookPaths()).toEqual([paths["pre/a-allows.sh"], paths["pre/b-blocks-rm-rf.ts"], paths["pre/c-bash.sh"]]);
    expect(result.hooks.map((h) => h.sandbox !== undefined)).toEqual([false, true, false]);
    // a-allows.sh is for tool "a-allows" only; the module blocks first; c-bash.sh is for tool "c-bash".
    expect(await runner.emitToolCall(bash("rm -rf /"))).toEqual({ block: true, reason: "rm -rf blocked (no UI)" });
  });

  it("through HookToolWrapper, a blocking shell hook stops the tool and its reason is the error", async () => {
    const { runner, cwd } = await start({ "pre/bash.sh": "shell/blocks-rm-rf-by-exit-2.sh" });
    let ran = 0;
    const tool = { name: "bash", label: "bash", description: "", parameters: {}, execute: async () => { ran++; return { content: [{ type: "text" as const, text: "done" }], details: undefined }; } };
    const wrapped = new HookToolWrapper(tool as never, runner);
    await expect(wrapped.execute("t1", { command: "rm -rf ~" })).rejects.toThrow("rm -rf blocked by shell hook");
    expect(ran).toBe(0);
    await wrapped.execute("t2", { command: "echo hi" });
    expect(ran).toBe(1);
    expect(existsSync(cwd)).toBe(true);
  });
});
