/**
 * `hookbox claude-hook` answers as Claude Code 2.1.328 reads a command hook (src/agents/router.ts over src/claude/router.ts,
 * output.ts, if-rule.ts, once.ts), with real processes: an exit 2 whose reason is JSON on stdout,
 * messages that name the hook's own command, `if` rules, `once`. The hooks are the user's (they run
 * as the user, no sandbox), so each case is one process.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { route as routeWith } from "../src/agents/router.js";
import { CLAUDE_CODE } from "../src/claude/dialect.js";
import type { ClaudePlan } from "../src/claude/plan.js";
import { parseClaudeSettings } from "../src/claude/settings.js";
import { ifRuleSelects, parseIfRule } from "../src/claude/if-rule.js";
import { claimOnce } from "../src/agents/once.js";

const dir = mkdtempSync(join(tmpdir(), "hookbox-claude-fidelity-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const FILE = "/home/u/.claude/settings.json";

/** A plan of the user's hooks on `event`, one group per entry. */
function plan(event: string, hooks: Array<Record<string, unknown>>, matcher = "Bash"): ClaudePlan {
  const parsed = parseClaudeSettings(JSON.stringify({ hooks: { [event]: [{ matcher, hooks: hooks.map((h) => ({ type: "command", ...h })) }] } }), FILE, "user");
  expect(parsed.refused).toEqual([]);
  return { project: dir, hooks: parsed.hooks, refused: [], maxOutputBytes: 1 << 20 };
}
const bash = (command: string, extra: Record<string, unknown> = {}) => ({ hook_event_name: "PreToolUse", session_id: "s1", cwd: dir, tool_name: "Bash", tool_input: { command }, ...extra });
const route = (p: ClaudePlan, input: Record<string, unknown>) => routeWith(CLAUDE_CODE, p, input, JSON.stringify(input));

describe("hookbox claude-hook answers as Claude Code reads a command hook", () => {
  it("a hook that exits 2 with its reason as JSON on stdout and nothing on stderr blocks with that reason, as Claude Code passes it", async () => {
    const decision = await route(plan("PreToolUse", [{ command: "cat >/dev/null; echo '{\"decision\":\"block\",\"reason\":\"JSON-REASON-1\"}'; exit 2" }]), bash("ls"));
    expect(decision).toEqual({ code: 2, stdout: "", stderr: "JSON-REASON-1" });
    const specific = await route(plan("PreToolUse", [{ command: "cat >/dev/null; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"JSON-REASON-2\"}}'; exit 2" }]), bash("ls"));
    expect(specific).toEqual({ code: 2, stdout: "", stderr: "JSON-REASON-2" });
  });

  it("a hook that exits 2 with nothing to say is named by its own command, as Claude Code names it", async () => {
    const answer = await route(plan("PreToolUse", [{ command: "cat >/dev/null; echo plain; exit 2" }]), bash("ls"));
    expect(answer).toEqual({ code: 2, stdout: "", stderr: "[cat >/dev/null; echo plain; exit 2]: No stderr output" });
  });

  it("a failing hook's message names its own command and where it is defined, not the router", async () => {
    const answer = await route(plan("PreToolUse", [{ command: "cat >/dev/null; echo boom >&2; exit 1" }]), bash("ls"));
    expect(answer.code).toBe(2);
    expect(answer.stderr).toBe("hookbox blocked this tool call: Hook \"your Claude Code hook `cat >/dev/null; echo boom >&2; exit 1` (/home/u/.claude/settings.json#hooks.PreToolUse[0].hooks[0])\" crashed during PreToolUse: exited with code 1; stderr: boom (crashed)");
    expect(answer.stderr).not.toContain("claude-hook");
  });

  it("an \"if\" rule selects the tool calls it matches: Bash(git *) runs for git status, not for ls; Bash(rm *) also for a part of a compound command", async () => {
    const git = plan("PreToolUse", [{ command: "cat >/dev/null; echo git-guard >&2; exit 2", if: "Bash(git *)" }]);
    expect((await route(git, bash("git status"))).stderr).toBe(`[cat >/dev/null; echo git-guard >&2; exit 2]: git-guard`);
    expect((await route(git, bash("git"))).stderr).toBe(`[cat >/dev/null; echo git-guard >&2; exit 2]: git-guard`);
    expect(await route(git, bash("ls"))).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(await route(git, bash("gitk"))).toEqual({ code: 0, stdout: "", stderr: "" });
    const rm = plan("PreToolUse", [{ command: "cat >/dev/null; echo rm-guard >&2; exit 2", if: "Bash(rm *)" }]);
    expect((await route(rm, bash("cd x && rm -rf y"))).stderr).toBe(`[cat >/dev/null; echo rm-guard >&2; exit 2]: rm-guard`);
  });

  it("an \"if\" rule on paths selects Edit and Write calls below the glob, relative to the session's folder", async () => {
    const edits = plan("PreToolUse", [{ command: "cat >/dev/null; echo src-guard >&2; exit 2", if: "Edit(src/**)" }], "Edit|Write");
    const edit = (tool: string, file: string) => ({ hook_event_name: "PreToolUse", cwd: dir, tool_name: tool, tool_input: { file_path: file } });
    expect((await route(edits, edit("Edit", join(dir, "src", "a", "b.ts")))).stderr).toBe(`[cat >/dev/null; echo src-guard >&2; exit 2]: src-guard`);
    expect((await route(edits, edit("Write", join(dir, "src", "c.ts")))).stderr).toBe(`[cat >/dev/null; echo src-guard >&2; exit 2]: src-guard`);
    expect(await route(edits, edit("Edit", join(dir, "lib", "c.ts")))).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("the forms of an \"if\" rule hookbox evaluates, and an unknown one refused by name when the settings are read (hookbox claude does not start)", () => {
    const selects = (rule: string, input: Record<string, unknown>) => { const r = parseIfRule(rule); if ("error" in r) throw new Error(r.error); return ifRuleSelects(r, { cwd: dir, ...input }); };
    expect(selects("Bash(npm run test:*)", { tool_name: "Bash", tool_input: { command: "npm run test -- x" } })).toBe(true);
    expect(selects("Bash(npm run test:*)", { tool_name: "Bash", tool_input: { command: "npm run testing" } })).toBe(false);
    expect(selects("Read(*.env)", { tool_name: "Read", tool_input: { file_path: join(dir, "a", ".env") } })).toBe(true);
    expect(selects("WebFetch(domain:example.com)", { tool_name: "WebFetch", tool_input: { url: "https://docs.example.com/x" } })).toBe(true);
    expect(selects("WebFetch(domain:example.com)", { tool_name: "WebFetch", tool_input: { url: "https://example.org/" } })).toBe(false);
    expect(selects("mcp__github", { tool_name: "mcp__github__create_issue" })).toBe(true);
    expect(selects("mcp__github__*", { tool_name: "mcp__gitlab__x" })).toBe(false);
    expect(selects("Write", { tool_name: "Write", tool_input: {} })).toBe(true);
    const parsed = parseClaudeSettings(JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Skill", hooks: [{ type: "command", command: "x", if: "Skill(deploy)" }] }], Stop: [{ hooks: [{ type: "command", command: "y", if: "Bash(x)" }] }] } }), FILE, "user");
    expect(parsed.hooks).toEqual([]);
    expect(parsed.refused.map((r) => [r.at, r.reason, r.fatal])).toEqual([
      ["hooks.PreToolUse[0].hooks[0]", "the \"if\" rule \"Skill(deploy)\" is not a form hookbox evaluates (Tool, Bash(…), Read(…), Edit(…), Write(…), WebFetch(domain:…), mcp__…)", true],
      ["hooks.Stop[0].hooks[0]", "its \"if\" rule \"Bash(x)\" is on Stop, which has no tool call to match", true],
    ]);
  });

  it("a \"once\" hook runs once per session: a second event of the session skips it, another session runs it again", async () => {
    const log = join(dir, "once.log");
    const once = plan("PreToolUse", [{ command: `cat >/dev/null; echo ran >> ${log}`, once: true }]);
    const markers = join(dir, "once-markers");
    expect(claimOnce(once.hooks[0]!, { session_id: "a" }, markers)).toBe(true);
    expect(claimOnce(once.hooks[0]!, { session_id: "a" }, markers)).toBe(false);
    expect(claimOnce(once.hooks[0]!, { session_id: "b" }, markers)).toBe(true);
    const session = `s-${process.pid}-${Date.now()}`;
    await route(once, bash("ls", { session_id: session }));
    await route(once, bash("ls", { session_id: session }));
    await route(once, bash("ls", { session_id: `${session}-2` }));
    expect(readFileSync(log, "utf8")).toBe("ran\nran\n");
  });

  it("your SessionStart hook gets CLAUDE_ENV_FILE, as with Claude Code alone, and its exports land in that file", async () => {
    const envFile = join(dir, "session.env");
    writeFileSync(envFile, "");
    process.env.CLAUDE_ENV_FILE = envFile;
    try {
      const p = plan("SessionStart", [{ command: "cat >/dev/null; echo 'export FROM_HOOK=1' >> \"$CLAUDE_ENV_FILE\"" }], "");
      const input = { hook_event_name: "SessionStart", session_id: "s", cwd: dir, source: "startup" };
      expect(await route(p, input)).toEqual({ code: 0, stdout: "", stderr: "" });
      expect(readFileSync(envFile, "utf8")).toBe("export FROM_HOOK=1\n");
    } finally {
      delete process.env.CLAUDE_ENV_FILE;
    }
  });
});
