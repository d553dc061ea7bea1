/**
 * The Gemini CLI row of the dialect table (src/agents/gemini.ts) through the shared router
 * (src/agents/router.ts), with real shell runs: how a hook's end is read, what a project's hook may
 * not answer, the one verdict Gemini CLI gets, the settings as read and as shown, and the version
 * check of `hookbox gemini`. End to end with the real agent: test/e2e-codex-gemini.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GEMINI, readGeminiSettings } from "../src/agents/gemini.js";
import { interpretAgentRun, selectAgentHooks } from "../src/agents/command-hooks.js";
import { route as routeAgentEvent } from "../src/agents/router.js";
import type { AgentPlan } from "../src/agents/dialect.js";
import { projectView, userView } from "../src/cli/gemini.js";
import { routingCommand, thisHookbox } from "../src/agents/routing-hook.js";
import type { AgentHook } from "../src/agents/dialect.js";
import { hookbox } from "./cli-run.js";

const dir = mkdtempSync(join(tmpdir(), "hookbox-gemini-router-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const exit = (code: number, stdout = "", stderr = "") => ({ kind: "exited" as const, code, stdout, stderr });
const userHook = (command: string, more: Partial<AgentHook> = {}): AgentHook => ({ source: "user", file: "/u/settings.json", at: "hooks.BeforeTool[0].hooks[0]", event: "BeforeTool", command, name: command, timeoutMs: 5_000, ...more });
const plan = (hooks: AgentHook[]): AgentPlan => ({ project: dir, hooks, refused: [], maxOutputBytes: 1 << 20 });
const event = (name: string, extra: Record<string, unknown> = {}) => {
  const input = { hook_event_name: name, session_id: "s", cwd: dir, tool_name: "run_shell_command", tool_input: { command: "rm -rf x" }, ...extra };
  return [input, JSON.stringify(input)] as const;
};

describe("Gemini CLI's row: a hook's end", () => {
  it("exit 2 blocks with its stderr; exit 1 and any other code crashed; a JSON start that is not JSON invalid_result; an unknown field invalid_result", () => {
    expect(interpretAgentRun(GEMINI, "h", false, "BeforeTool", exit(2, "", "no"))).toEqual({ kind: "block", reason: "no" });
    for (const code of [1, 3]) expect(interpretAgentRun(GEMINI, "h", false, "BeforeTool", exit(code)).kind === "failed" && (interpretAgentRun(GEMINI, "h", false, "BeforeTool", exit(code)) as { failure: { code: string } }).failure.code).toBe("crashed");
    const cut = interpretAgentRun(GEMINI, "h", false, "BeforeTool", exit(0, '{"decision":'));
    expect(cut.kind === "failed" && cut.failure.code).toBe("invalid_result");
    const unknown = interpretAgentRun(GEMINI, "h", false, "BeforeTool", exit(0, '{"verdict":"deny"}'));
    expect(unknown.kind === "failed" && unknown.failure.message).toContain("verdict");
  });

  it("a project's hook may deny, block and stop, never rewrite the tool input, the model's request or answer, add context, allow or speak in Gemini's name (effect_refused); your own hook may", () => {
    for (const output of [{ decision: "deny", reason: "r" }, { continue: false, stopReason: "s" }]) {
      expect(interpretAgentRun(GEMINI, "h", true, "BeforeTool", exit(0, JSON.stringify(output))).kind).toBe("ok");
    }
    const refused = [
      { hookSpecificOutput: { tool_input: { command: "echo" } } }, { hookSpecificOutput: { llm_request: {} } }, { hookSpecificOutput: { llm_response: {} } },
      { hookSpecificOutput: { additionalContext: "x" } }, { decision: "allow" }, { systemMessage: "hi" },
    ];
    for (const output of refused) {
      const answer = interpretAgentRun(GEMINI, "h", true, "BeforeTool", exit(0, JSON.stringify(output)));
      expect(answer.kind === "failed" && answer.failure.code, JSON.stringify(output)).toBe("effect_refused");
      expect(interpretAgentRun(GEMINI, "h", false, "BeforeTool", exit(0, JSON.stringify(output))).kind).toBe("ok");
    }
    const text = interpretAgentRun(GEMINI, "h", true, "BeforeTool", exit(0, "plain words"));
    expect(text.kind === "failed" && text.failure.code).toBe("effect_refused");
    const retry = interpretAgentRun(GEMINI, "h", true, "AfterAgent", exit(2, "", "again"));
    expect(retry.kind === "failed" && retry.failure.code).toBe("effect_refused");
  });
});

describe("Gemini CLI's row: matching and the verdict", () => {
  it("null is absent, as Gemini reads every field (a Python hook's None): a deny with null beside it still denies, and one hook's null does not cover another's value in the merge (control: a value of the wrong type is invalid_result)", async () => {
    const [input, raw] = event("BeforeTool");
    const denies = userHook(`echo '${JSON.stringify({ decision: "deny", reason: "no", systemMessage: null, hookSpecificOutput: { tool_input: null, additionalContext: null } })}'`);
    const r = await routeAgentEvent(GEMINI, plan([denies]), input, raw);
    expect(JSON.parse(r.stdout)).toEqual({ decision: "deny", reason: "no", hookSpecificOutput: {} });
    const rewrites = userHook(`echo '${JSON.stringify({ hookSpecificOutput: { tool_input: { command: "ls" } } })}'`);
    const blank = userHook(`sleep 0.2; echo '${JSON.stringify({ hookSpecificOutput: { tool_input: null } })}'`);
    const merged = await routeAgentEvent(GEMINI, plan([rewrites, blank]), input, raw);
    expect(JSON.parse(merged.stdout)).toEqual({ hookSpecificOutput: { tool_input: { command: "ls" } } });
    const wrong = interpretAgentRun(GEMINI, "h", false, "BeforeTool", exit(0, JSON.stringify({ decision: 1 })));
    expect(wrong.kind === "failed" && wrong.failure.code).toBe("invalid_result");
  });

  it("a tool event's matcher is an unanchored regular expression on tool_name (an invalid one compared as a string); SessionStart compares its source exactly", () => {
    const hooks = [userHook("a", { matcher: "shell" }), userHook("b", { matcher: "^write_file$" }), userHook("c", { matcher: "(" }), userHook("d", { matcher: "*" }), userHook("e")];
    expect(selectAgentHooks(GEMINI as never, hooks, "BeforeTool", event("BeforeTool")[0]).map((h) => h.command)).toEqual(["a", "d", "e"]);
    const starts = [userHook("s", { event: "SessionStart", matcher: "resume" }), userHook("t", { event: "SessionStart", matcher: "start" })];
    expect(selectAgentHooks(GEMINI as never, starts, "SessionStart", { source: "startup" }).map((h) => h.command)).toEqual([]);
    expect(selectAgentHooks(GEMINI as never, starts, "SessionStart", { source: "resume" }).map((h) => h.command)).toEqual(["s"]);
  });

  it("on BeforeTool any failure is a deny written as JSON on stdout (exit 2), even when a hook's reason parses as JSON; elsewhere a failure is a warning and the call goes on", async () => {
    const [input, raw] = event("BeforeTool");
    const crashed = await routeAgentEvent(GEMINI, plan([userHook("exit 1")]), input, raw);
    expect(crashed.code).toBe(2);
    expect(JSON.parse(crashed.stdout)).toMatchObject({ decision: "deny" });
    expect(JSON.parse(crashed.stdout).reason).toContain("(crashed)");
    const jsonReason = await routeAgentEvent(GEMINI, plan([userHook(`echo '{"decision":"allow"}' >&2; exit 2`)]), input, raw);
    expect(JSON.parse(jsonReason.stdout)).toEqual({ decision: "deny", reason: '{"decision":"allow"}' });
    const [after, afterRaw] = event("AfterTool");
    const warned = await routeAgentEvent(GEMINI, plan([userHook("exit 1", { event: "AfterTool" })]), after, afterRaw);
    expect(warned.code).toBe(0);
    expect(JSON.parse(warned.stdout).systemMessage).toContain("(crashed)");
  });

  it("your hook runs without secret-looking variables, with the project folder in GEMINI_PROJECT_DIR", async () => {
    process.env.SOME_SERVICE_TOKEN = "CANARY";
    try {
      const [input, raw] = event("BeforeTool");
      const r = await routeAgentEvent(GEMINI, plan([userHook(`echo "t=$SOME_SERVICE_TOKEN d=$GEMINI_PROJECT_DIR" >&2; exit 2`)]), input, raw);
      expect(JSON.parse(r.stdout).reason).toBe(`t= d=${dir}`);
    } finally {
      delete process.env.SOME_SERVICE_TOKEN;
    }
  });
});

describe("Gemini CLI's settings as read and as shown", () => {
  it("reads JSON with comments; skips what Gemini skips (hooksConfig keys, unknown events); names a non-command hook as not run; shows the project's view without hooks and hooksConfig and the user's with one routing hook per event", () => {
    const file = join(dir, "settings.json");
    writeFileSync(file, `// comment\n{"model":{"name":"m"},"hooksConfig":{"enabled":false},"hooks":{"BeforeTool":[{"matcher":"x","hooks":[{"type":"command","command":"a","timeout":5},{"type":"plugin","name":"p"}]}],"NoSuchEvent":[{"hooks":[{"type":"command","command":"z"}]}],"disabled":["q"]}}`);
    const read = readGeminiSettings(file, "project");
    expect(read.problems).toEqual([]);
    expect(read.hooks.map((h) => [h.event, h.matcher, h.command, h.timeoutMs, h.name])).toEqual([["BeforeTool", "x", "a", 5, "a"]]);
    expect(read.refused.map((r) => r.reason)).toEqual(['a "plugin" hook, which hookbox does not run']);
    expect(projectView(read)).toEqual({ model: { name: "m" } });
    const p = { project: dir, hooks: read.hooks, refused: read.refused, maxOutputBytes: 1 };
    const view = userView(readGeminiSettings(join(dir, "missing.json"), "user"), p, routingCommand(GEMINI, thisHookbox(), "/plan.json", "0123")) as { hooks: Record<string, Array<{ hooks: Array<{ command: string; timeout: number }> }>> };
    expect(Object.keys(view.hooks)).toEqual(["BeforeTool"]);
    expect(view.hooks.BeforeTool![0]!.hooks[0]!.command).toContain("gemini-hook '/plan.json' 0123");
    expect(view.hooks.BeforeTool![0]!.hooks[0]!.timeout).toBe(30_005);
  });

  it("hookbox gemini refuses, by name and before starting it, a Gemini CLI whose version's hook contract it does not know", async () => {
    const pkg = join(dir, "node_modules", "@google", "gemini-cli");
    mkdirSync(join(pkg, "bundle"), { recursive: true });
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "@google/gemini-cli", version: "0.99.0" }));
    writeFileSync(join(pkg, "bundle", "gemini.js"), "#!/bin/sh\necho STARTED\n", { mode: 0o755 });
    const bin = join(dir, "bin");
    mkdirSync(bin);
    symlinkSync(join(pkg, "bundle", "gemini.js"), join(bin, "gemini"));
    const r = await hookbox(["gemini", "-p", "hi"], { cwd: dir, env: { PATH: `${bin}:${process.env.PATH}`, HOME: dir } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("is @google/gemini-cli 0.99.0; hookbox knows the hook contract of 0.61.0 only");
    expect(r.stdout).not.toContain("STARTED");
  });
});
