/**
 * A project hook whose command cannot be approved as it stands is told the form that can be, in its
 * own agent's terms (each row's `approvableForm` and `projectDirVars`: src/claude/dialect.ts,
 * src/agents/codex.ts, src/agents/gemini.ts), and the form it is told is approved and runs.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CODEX } from "../src/agents/codex.js";
import { GEMINI } from "../src/agents/gemini.js";
import { route } from "../src/agents/router.js";
import type { AgentHook, AgentPlan, CommandDialect } from "../src/agents/dialect.js";
import { ApprovalStore, FingerprintError } from "../src/approval/store.js";
import { CLAUDE_CODE } from "../src/claude/dialect.js";
import { parseClaudeSettings } from "../src/claude/settings.js";

const root = mkdtempSync(join(tmpdir(), "hookbox-approvable-form-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A project with `<folder>/hooks/guard.sh`, which blocks with a text of its own. */
function project(name: string, folder: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, folder, "hooks"), { recursive: true });
  const script = join(dir, folder, "hooks", "guard.sh");
  writeFileSync(script, "#!/bin/sh\ncat >/dev/null\necho guard.sh ran >&2\nexit 2\n");
  chmodSync(script, 0o755);
  return dir;
}
const UNKNOWN_ONLY_WHEN_RUN = 'bash "$(git rev-parse --show-toplevel)"/hooks/guard.sh';
const refusal = (p: Promise<unknown>) => p.then(() => "approved", (e: unknown) => (e instanceof FingerprintError ? e.message : `not a FingerprintError: ${String(e)}`));

const rows: Array<{ d: CommandDialect<never>; folder: string; form: string; event: string; tool: string }> = [
  { d: CODEX as CommandDialect<never>, folder: ".codex", form: "bash .codex/hooks/guard.sh", event: "PreToolUse", tool: "Bash" },
  { d: GEMINI as CommandDialect<never>, folder: ".gemini", form: 'bash "$GEMINI_PROJECT_DIR"/.gemini/hooks/guard.sh', event: "BeforeTool", tool: "run_shell_command" },
];

describe("the approvable form a refusal names", () => {
  for (const { d, folder, form, event, tool } of rows) {
    it(`${d.agent}: a command that cannot be approved as it stands is told ${d.agent}'s own form, not Claude Code's; the form it is told is approved and runs in the sandbox (control: the refused command is not approved)`, async () => {
      const dir = project(d.recordAs, folder);
      const hook = (command: string, at = 0): AgentHook => ({ source: "project", file: join(dir, folder, "settings.json"), at: `hooks.${event}[0].hooks[${at}]`, event, matcher: tool, command, name: command, timeoutMs: 10_000 });
      const message = await refusal(d.fingerprint(dir, hook(UNKNOWN_ONLY_WHEN_RUN)));
      expect(message).toContain("its command cannot be approved as it stands: `$(git rev-parse --show-toplevel)` is a command substitution");
      expect(message).toContain(form.replace("guard", "<name>"));
      expect(message).not.toContain("CLAUDE_PROJECT_DIR");
      expect(message).not.toContain(".claude/");

      const told = hook(form, 1);
      const approvals = join(dir, "approvals");
      new ApprovalStore({ dir: approvals }).approve(dir, [await d.fingerprint(dir, told)]);
      const plan: AgentPlan = { project: dir, hooks: [told], refused: [], approvals, maxOutputBytes: 1 << 20 };
      const input = { hook_event_name: event, tool_name: tool, tool_input: { command: "ls" }, cwd: dir };
      const answer = await route(d, plan, input, JSON.stringify(input));
      expect(answer.code).toBe(2);
      expect(answer.stdout + answer.stderr).toContain("guard.sh ran");
    });
  }

  it("Claude Code: a command that cannot be approved as it stands is told Claude Code's form, which is approved (control: the refused command is not)", async () => {
    const dir = project("claude", ".claude");
    const settings = (command: string) => parseClaudeSettings(JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command }] }] } }), join(dir, ".claude", "settings.json"), "project").hooks[0]!;
    const message = await refusal(CLAUDE_CODE.fingerprint(dir, settings(UNKNOWN_ONLY_WHEN_RUN)));
    expect(message).toContain('bash "$CLAUDE_PROJECT_DIR"/.claude/hooks/<name>.sh');
    expect(await refusal(CLAUDE_CODE.fingerprint(dir, settings('bash "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh')))).toBe("approved");
  });

  it("a variable another agent sets is not the project's: Codex's hook naming $CLAUDE_PROJECT_DIR cannot be approved (Codex does not set it, and in the sandbox it names nothing), and the refusal lists what hookbox knows for Codex (control: Gemini CLI sets it, and the same command is approved there)", async () => {
    const dir = project("borrowed", ".codex");
    const command = 'bash "$CLAUDE_PROJECT_DIR"/.codex/hooks/guard.sh';
    const hook: AgentHook = { source: "project", file: join(dir, ".codex", "hooks.json"), at: "hooks.PreToolUse[0].hooks[0]", event: "PreToolUse", matcher: "Bash", command, name: command, timeoutMs: 10_000 };
    const message = await refusal(CODEX.fingerprint(dir, hook));
    expect(message).toContain("$CLAUDE_PROJECT_DIR is not known before the hook runs (hookbox knows PWD, HOME and what the command assigns)");
    expect(message).toContain("bash .codex/hooks/<name>.sh");
    const ran = await CODEX.runProject({ project: dir, hooks: [hook], refused: [], maxOutputBytes: 1 << 20 }, hook, "PreToolUse", {}, "{}", new AbortController().signal);
    expect(ran.kind === "failed" && ran.failure.code).toBe("crashed");
    expect(await refusal(GEMINI.fingerprint(dir, { ...hook, event: "BeforeTool" }))).toBe("approved");
  });
});
