/**
 * The Codex CLI row of the dialect table (src/agents/codex.ts) through the shared router, with real
 * shell runs, and the requirements and version check of `hookbox codex`. End to end with the real
 * agent: test/e2e-codex-gemini.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CODEX, readCodexLayer } from "../src/agents/codex.js";
import { interpretAgentRun } from "../src/agents/command-hooks.js";
import { route as routeAgentEvent } from "../src/agents/router.js";
import type { AgentPlan } from "../src/agents/dialect.js";
import { generatedRequirements } from "../src/cli/codex.js";
import { routingCommand, thisHookbox } from "../src/agents/routing-hook.js";
import type { AgentHook } from "../src/agents/dialect.js";
import { hookbox } from "./cli-run.js";
import { planText } from "../src/agents/plan.js";

const dir = mkdtempSync(join(tmpdir(), "hookbox-codex-router-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const exit = (code: number, stdout = "", stderr = "") => ({ kind: "exited" as const, code, stdout, stderr });
const hook = (command: string, more: Partial<AgentHook> = {}): AgentHook => ({ source: "user", file: "/u/hooks.json", at: "hooks.PreToolUse[0].hooks[0]", event: "PreToolUse", command, name: command, timeoutMs: 5_000, matcher: "^Bash$", ...more });
const plan = (hooks: AgentHook[]): AgentPlan => ({ project: dir, hooks, refused: [], maxOutputBytes: 1 << 20 });

describe("Codex CLI's row", () => {
  it("a block is exit 2 with a non-empty stderr (Codex reads exit 2 with an empty one as a failure and runs the call), even when the hook gave no reason", async () => {
    const input = { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -r x" }, cwd: dir };
    const r = await routeAgentEvent(CODEX, plan([hook("exit 2")]), input, JSON.stringify(input));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/blocked \(exit 2\)/);
    const other = await routeAgentEvent(CODEX, plan([hook("exit 2", { matcher: "^apply_patch$" })]), input, JSON.stringify(input));
    expect(other).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("the routing hook follows only the plan hookbox codex wrote: one rewritten after the start (its sha256 differs) is refused and the call blocked (control: the plan as written is followed)", async () => {
    const planFile = join(dir, "pinned-plan.json");
    const { text, sha256 } = planText(plan([hook("echo fine >&2")]));
    writeFileSync(planFile, text);
    const input = JSON.stringify({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, cwd: dir });
    const followed = await hookbox(["codex-hook", planFile, sha256], { stdin: input, env: { HOOKBOX_AUDIT: "off" } });
    expect(followed.code, followed.stderr).toBe(0);
    writeFileSync(planFile, JSON.stringify(plan([])));
    const rewritten = await hookbox(["codex-hook", planFile, sha256], { stdin: input, env: { HOOKBOX_AUDIT: "off" } });
    expect(rewritten.code).toBe(2);
    expect(rewritten.stderr).toContain(`the plan ${planFile} is not the one hookbox codex wrote`);
  });

  it("the router answers before Codex's deadline for it, as for Claude Code: a hook still running then is named timeout, stopped, and the call blocked (its own timeout, 60 s, would come after Codex gave up and let the call run)", async () => {
    const input = { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -r x" }, cwd: dir };
    const started = performance.now();
    const r = await routeAgentEvent(CODEX, { ...plan([hook("sleep 20", { timeoutMs: 60_000 })]), timeoutS: 2 }, input, JSON.stringify(input));
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("had not answered when hookbox's router had to answer Codex CLI (its deadline for the router is 2 s");
    expect(r.stderr).toContain("(timeout)");
  });

  it("a project's hook may block or deny; updatedInput, permissionDecision allow, additionalContext, decision approve and systemMessage are effect_refused; your own hook may", () => {
    for (const output of [{ decision: "block", reason: "r" }, { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "r" } }]) {
      expect(interpretAgentRun(CODEX, "h", true, "PreToolUse", exit(0, JSON.stringify(output))).kind).toBe("ok");
    }
    for (const output of [
      { hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { command: "echo" } } },
      { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } },
      { hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: "x" } },
      { decision: "approve" }, { systemMessage: "hi" },
    ]) {
      const answer = interpretAgentRun(CODEX, "h", true, "PreToolUse", exit(0, JSON.stringify(output)));
      expect(answer.kind === "failed" && answer.failure.code, JSON.stringify(output)).toBe("effect_refused");
      expect(interpretAgentRun(CODEX, "h", false, "PreToolUse", exit(0, JSON.stringify(output))).kind).toBe("ok");
    }
  });

  it("reads hooks.json and config.toml's [hooks] of a config folder, timeouts in seconds (default 600 s), a non-command hook named as not run", () => {
    const folder = join(dir, "layer");
    mkdirSync(folder);
    writeFileSync(join(folder, "hooks.json"), JSON.stringify({ hooks: { PreToolUse: [{ matcher: "^Bash$", hooks: [{ type: "command", command: "a", timeout: 3 }, { type: "prompt", prompt: "p" }] }] } }));
    writeFileSync(join(folder, "config.toml"), 'model = "m"\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "b"\n');
    const layer = readCodexLayer(folder, "project");
    expect(layer.hooks.map((h) => [h.event, h.command, h.timeoutMs])).toEqual([["PreToolUse", "a", 3_000], ["Stop", "b", 600_000]]);
    expect(layer.refused.map((r) => r.reason)).toEqual(['a "prompt" hook, which hookbox does not run']);
  });

  it("an Interrupt hook (Codex CLI 0.169.0 has one: its answer is only a systemMessage) is read from hooks.json and routed: your own hook's systemMessage reaches Codex; a project's is effect_refused (control: a project's hook that prints nothing passes)", async () => {
    const folder = join(dir, "interrupt");
    mkdirSync(folder);
    writeFileSync(join(folder, "hooks.json"), JSON.stringify({ hooks: { Interrupt: [{ hooks: [{ type: "command", command: `echo '{"systemMessage":"saved"}'` }] }] } }));
    const layer = readCodexLayer(folder, "user");
    expect(layer.hooks.map((h) => [h.event, h.at])).toEqual([["Interrupt", "hooks.Interrupt[0].hooks[0]"]]);
    const input = { hook_event_name: "Interrupt", session_id: "s", turn_id: "t", cwd: dir, model: "m", permission_mode: "default", transcript_path: null };
    const r = await routeAgentEvent(CODEX, plan(layer.hooks), input, JSON.stringify(input));
    expect(r).toEqual({ code: 0, stdout: JSON.stringify({ systemMessage: "saved" }), stderr: "" });
    const project = interpretAgentRun(CODEX, "h", true, "Interrupt", exit(0, JSON.stringify({ systemMessage: "saved" })));
    expect(project.kind === "failed" && project.failure.code).toBe("effect_refused");
    expect(interpretAgentRun(CODEX, "h", true, "Interrupt", exit(0, "")).kind).toBe("ok");
  });

  it("a field Codex CLI takes on another event only is invalid_result from the hook that gave it, and the call blocked: Codex would discard the merged answer with it, another hook's deny included, and run the call (control: on its own event it passes)", async () => {
    const deny = hook(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}'`);
    const stray = (event: string) => hook(`echo '{"hookSpecificOutput":{"hookEventName":"${event}","updatedMCPToolOutput":"x"}}'`, { event, at: `hooks.${event}[0].hooks[0]` });
    const input = { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -r x" }, cwd: dir };
    const r = await routeAgentEvent(CODEX, plan([deny, stray("PreToolUse")]), input, JSON.stringify(input));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("(invalid_result)");
    expect(r.stderr).toContain("updatedMCPToolOutput");
    const post = { ...input, hook_event_name: "PostToolUse", tool_response: "out" };
    const own = await routeAgentEvent(CODEX, plan([stray("PostToolUse")]), post, JSON.stringify(post));
    expect(own).toEqual({ code: 0, stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: "PostToolUse", updatedMCPToolOutput: "x" } }), stderr: "" });
  });

  it("null is read as Codex reads it: absent where its field is a serde Option (a Python hook's \"reason\": None beside a deny: the deny reaches Codex, without the null), invalid_result where the field has a default of its own (continue)", async () => {
    const input = { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -r x" }, cwd: dir };
    const deny = { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no", additionalContext: null };
    const r = await routeAgentEvent(CODEX, plan([hook(`echo '${JSON.stringify({ reason: null, systemMessage: null, hookSpecificOutput: deny })}'`)]), input, JSON.stringify(input));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no" } });
    const refused = await routeAgentEvent(CODEX, plan([hook(`echo '${JSON.stringify({ continue: null })}'`)]), input, JSON.stringify(input));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("(invalid_result)");
  });

  it("the generated requirements keep the admin's, allow managed hooks only, and add the routing hook after the admin's own, its timeout above the slowest hook's", () => {
    const admin = { allowed_sandbox_modes: ["read-only"], hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "admin" }] }] } };
    const req = generatedRequirements(admin, plan([hook("a", { timeoutMs: 10_000 })]), routingCommand(CODEX, thisHookbox(), "/plan.json", "0123")) as { allow_managed_hooks_only: boolean; allowed_sandbox_modes: string[]; hooks: Record<string, Array<{ hooks: Array<{ command: string; timeout: number }> }>> };
    expect(req.allow_managed_hooks_only).toBe(true);
    expect(req.allowed_sandbox_modes).toEqual(["read-only"]);
    expect(req.hooks.PreToolUse!.map((g) => g.hooks[0]!.command)).toEqual(["admin", expect.stringContaining("codex-hook '/plan.json' 0123")]);
    expect(req.hooks.PreToolUse![1]!.hooks[0]!.timeout).toBe(40);
  });

  it("hookbox codex refuses, by name and before starting it, a Codex CLI whose version's hook contract it does not know", async () => {
    const pkg = join(dir, "node_modules", "@openai", "codex");
    mkdirSync(join(pkg, "bin"), { recursive: true });
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "@openai/codex", version: "0.170.0" }));
    writeFileSync(join(pkg, "bin", "codex.js"), "#!/bin/sh\necho STARTED\n", { mode: 0o755 });
    const bin = join(dir, "bin");
    mkdirSync(bin);
    symlinkSync(join(pkg, "bin", "codex.js"), join(bin, "codex"));
    const r = await hookbox(["codex", "exec", "hi"], { cwd: dir, env: { PATH: `${bin}:${process.env.PATH}`, HOME: dir } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("is @openai/codex 0.170.0; hookbox knows the hook contract of 0.169.0 only");
    expect(r.stdout).not.toContain("STARTED");
  });
});
