/**
 * The routing hook's command has one definition per agent row (src/agents/routing-hook.ts): the
 * launcher writes it (Claude Code's settings on its fallback route, Codex's requirements, Gemini's
 * user settings view) and `hookbox <launcher>-hook` reads it back. Each check runs the command a
 * launcher wrote, as the agent runs a hook (`sh -c`), through the real `hookbox` bin, and sees the
 * plan's hook answer; its control runs the same command with one argument more, which the router
 * refuses, blocking the call.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { AgentHook, AgentPlan } from "../src/agents/dialect.js";
import { CODEX } from "../src/agents/codex.js";
import { GEMINI, readGeminiSettings } from "../src/agents/gemini.js";
import type { Hookbox } from "../src/agents/routing-hook.js";
import { CLAUDE_CODE } from "../src/claude/dialect.js";
import { fallbackLaunch } from "../src/claude/launch.js";
import type { ClaudePlan } from "../src/claude/plan.js";
import { parseClaudeSettings } from "../src/claude/settings.js";
import { generatedRequirements } from "../src/cli/codex.js";
import { pinPlan } from "../src/cli/command-launch.js";
import { userView } from "../src/cli/gemini.js";
import { BIN } from "./cli-run.js";

const dir = mkdtempSync(join(tmpdir(), "hookbox-routing-command-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const hookbox: Hookbox = { node: process.execPath, script: BIN };

/** A hook command as the agent runs it: `sh -c`, the event's JSON on stdin. */
function runAsAgent(command: string, event: Record<string, unknown>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", command], { cwd: dir, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, HOOKBOX_AUDIT: "off" } });
    let out = "";
    child.stdout.on("data", (d) => { out += d; });
    child.stderr.on("data", (d) => { out += d; });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out }));
    child.stdin.end(JSON.stringify({ session_id: "s", cwd: dir, ...event }));
  });
}

/** The launcher's command runs the plan's hook (a block with its own reason); with an argument more, the router refuses it and blocks. */
async function expectRouted(agent: string, launcher: string, command: string, event: Record<string, unknown>, reason: string): Promise<void> {
  const [routed, control] = await Promise.all([runAsAgent(command, event), runAsAgent(`${command} more`, event)]);
  expect(routed.code, routed.out).toBe(2);
  expect(routed.out).toContain(reason);
  expect(routed.out).not.toContain(`${launcher}-hook failed`);
  expect(control.code, control.out).toBe(2);
  expect(control.out).toContain(`hookbox ${launcher}-hook failed, so this call is blocked: usage: hookbox ${launcher}-hook <plan file> <sha256> (${agent} runs it; see hookbox ${launcher})`);
  expect(control.out).not.toContain(reason);
}

const agentHook = (event: string, reason: string): AgentHook => ({ source: "user", file: join(dir, "hooks.json"), at: `hooks.${event}[0].hooks[0]`, event, command: `echo ${reason} >&2; exit 2`, name: "h", timeoutMs: 5_000 });
const agentPlan = (hook: AgentHook): AgentPlan => ({ project: dir, hooks: [hook], refused: [], maxOutputBytes: 1 << 20 });

describe("the routing hook's command", () => {
  it("Claude Code: the command hookbox claude writes into its settings (fallback route) is the one hookbox claude-hook parses, and the plan it names is followed", async () => {
    const reason = "routed-by-claude-code";
    const plan: ClaudePlan = { project: dir, maxOutputBytes: 1 << 20, refused: [], hooks: [{ source: "user", file: join(dir, "settings.json"), at: "hooks.PreToolUse[0].hooks[0]", event: "PreToolUse", command: `echo ${reason} >&2; exit 2`, timeoutS: 5 }] };
    const launch = fallbackLaunch(CLAUDE_CODE, "claude", [], plan, hookbox, parseClaudeSettings("{}", join(dir, "user.json"), "user"), []);
    try {
      const settings = JSON.parse(launch.args[launch.args.indexOf("--settings") + 1]!) as { hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> };
      await expectRouted("Claude Code", "claude", settings.hooks.PreToolUse![0]!.hooks[0]!.command, { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } }, reason);
    } finally {
      launch.afterExit();
    }
  });

  it("Codex CLI: the command hookbox codex writes into the generated requirements is the one hookbox codex-hook parses, and the plan it names is followed", async () => {
    const reason = "routed-by-codex";
    const plan = agentPlan(agentHook("PreToolUse", reason));
    const requirements = generatedRequirements({}, plan, pinPlan(CODEX, plan, mkdtempSync(join(dir, "codex-")), hookbox)) as { hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> };
    await expectRouted("Codex CLI", "codex", requirements.hooks.PreToolUse![0]!.hooks[0]!.command, { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } }, reason);
  });

  it("Gemini CLI: the command hookbox gemini writes into the user's settings view is the one hookbox gemini-hook parses, and the plan it names is followed", async () => {
    const reason = "routed-by-gemini";
    const plan = agentPlan(agentHook("BeforeTool", reason));
    const view = userView(readGeminiSettings(join(dir, "missing.json"), "user"), plan, pinPlan(GEMINI, plan, mkdtempSync(join(dir, "gemini-")), hookbox)) as { hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> };
    await expectRouted("Gemini CLI", "gemini", view.hooks.BeforeTool![0]!.hooks[0]!.command, { hook_event_name: "BeforeTool", tool_name: "run_shell_command", tool_input: { command: "ls" } }, reason);
  });
});
