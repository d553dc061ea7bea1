/**
 * End to end against the real Claude Code 2.1.328 (headless, in a network namespace with only
 * loopback): a PostToolUse hook that rewrites the tool's result the model reads
 * (`hookSpecificOutput.updatedToolOutput`, a field Claude Code accepts and hookbox once refused as
 * `invalid_result`). One scripted session (two Bash calls) two ways: Claude Code alone (the control)
 * and `hookbox claude` with the project's hook approved. The user's hook rewrites the first call's
 * result, the project's hook (fixtures/hostile/claude-code/rewrites-tool-output.sh) the second's: under hookbox the user's rewrite reaches the model as it
 * does without hookbox, and the project's (a substitute effect) is refused, `effect_refused`.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentUnavailable } from "./support/pi-run.js";
import { approve, claudeWorld, installClaude, runClaude, type ClaudeRun, type ClaudeWorld } from "./support/claude-run.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { recordingLayerAvailable } from "../src/claude/granted.js";
import { ROOT } from "./helpers/host.js";

const sandbox = sandboxAvailability();
const unavailable = agentUnavailable("Claude Code") ?? (sandbox.ok ? (recordingLayerAvailable() ? undefined : "no unprivileged overlay here") : sandbox.reason);
const roots: string[] = [];

/** The user's hook: for a Bash call whose command mentions user-call, the tool's result with ORIGINAL replaced (as the project's fixture does for project-call). */
const USER_REWRITE = `jq -c 'if (.tool_input.command | test("user-call")) then {hookSpecificOutput: {hookEventName: "PostToolUse", updatedToolOutput: (.tool_response | .stdout |= sub("ORIGINAL"; "USER-REWRITE"))}} else empty end'`;

function session(claude: string, hookbox: boolean): { w: ClaudeWorld; run: ClaudeRun } {
  const root = mkdtempSync(join(tmpdir(), "hookbox-e2e-fields-"));
  roots.push(root);
  const w = claudeWorld(root, claude);
  mkdirSync(join(w.home, ".claude"), { recursive: true });
  writeFileSync(join(w.home, ".claude", "settings.json"), JSON.stringify({ hooks: { PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: USER_REWRITE }] }] } }));
  const script = join(w.project, ".claude", "hooks", "rewrite.sh");
  copyFileSync(join(ROOT, "fixtures", "hostile", "claude-code", "rewrites-tool-output.sh"), script);
  chmodSync(script, 0o755);
  writeFileSync(join(w.project, ".claude", "settings.json"), JSON.stringify({ hooks: { PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/rewrite.sh", timeout: 20 }] }] } }));
  if (hookbox) approve(w);
  const calls = [
    { name: "Bash", input: { command: "echo ORIGINAL user-call", description: "first" } },
    { name: "Bash", input: { command: "echo ORIGINAL project-call", description: "second" } },
  ];
  return { w, run: runClaude(w, { command: "", hookbox, calls }) };
}

/** The text of every tool result the model was sent, in order. */
function toolResults(run: ClaudeRun): string[] {
  const last = run.messages.at(-1)?.messages ?? [];
  return last.flatMap((m) => {
    const content = (m as { content?: unknown }).content;
    return Array.isArray(content) ? content.filter((c: { type?: string }) => c.type === "tool_result").map((c: { content?: unknown }) => JSON.stringify(c.content)) : [];
  });
}

describe.skipIf(unavailable)("a PostToolUse hook rewriting the tool's result under hookbox claude", { timeout: 300_000 }, () => {
  let alone: { w: ClaudeWorld; run: ClaudeRun };
  let routed: { w: ClaudeWorld; run: ClaudeRun };
  beforeAll(() => {
    const claude = installClaude();
    alone = session(claude, false);
    routed = session(claude, true);
  }, 300_000);
  afterAll(() => { for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true }); });

  it("control: Claude Code alone gives the model both rewrites, the user's and the project's", () => {
    expect(alone.run.code, alone.run.stderr).toBe(0);
    const results = toolResults(alone.run);
    expect(results).toHaveLength(2);
    expect(results[0]).toContain("USER-REWRITE user-call");
    expect(results[1]).toContain("PROJECT-REWRITE project-call");
  });

  it("the user's rewrite reaches the model as without hookbox; the project's is refused (effect_refused) and the model reads the tool's own result", () => {
    expect(routed.run.code, routed.run.stderr).toBe(0);
    const results = toolResults(routed.run);
    expect(results).toHaveLength(2);
    expect(results[0]).toContain("USER-REWRITE user-call");
    expect(results[1]).toContain("ORIGINAL project-call");
    expect(results[1]).not.toContain("PROJECT-REWRITE");
    const log = join(routed.w.home, ".local", "state", "hookbox", "decisions.jsonl");
    expect(existsSync(log)).toBe(true);
    const refused = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { event?: string; code?: string; outcome?: string }).filter((r) => r.code === "effect_refused");
    expect(refused.map((r) => [r.event, r.outcome])).toEqual([["PostToolUse", "refused"]]);
  });
});
