/**
 * End to end against the real Claude Code 2.1.328 (scripts/install-claude.sh), headless, in a
 * network namespace with only loopback, against a fake Anthropic Messages server whose model asks
 * the Bash tool to run a command. Each case has a control run of Claude Code alone, showing the
 * check can fail, then `hookbox claude` (src/cli/claude.ts, src/claude/).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { agentUnavailable } from "./support/pi-run.js";
import { approve, CANARY, claudeWorld, installClaude, projectHook, runClaude, type ClaudeWorld } from "./support/claude-run.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";

const sandbox = sandboxAvailability();
const unavailable = agentUnavailable("Claude Code") ?? (sandbox.ok ? undefined : sandbox.reason);
const RM = "rm -rf ./victim";
let claude = "";
const worlds: string[] = [];

function world(): ClaudeWorld {
  const root = mkdtempSync(join(tmpdir(), "hookbox-e2e-claude-"));
  worlds.push(root);
  return claudeWorld(root, claude);
}
const victimKept = (w: ClaudeWorld) => existsSync(join(w.victim, "keep.txt"));

describe.skipIf(unavailable)("Claude Code 2.1.328 end to end", { timeout: 240_000 }, () => {
  beforeAll(() => { claude = installClaude(); }, 300_000);
  afterEach(() => { for (const root of worlds.splice(0)) rmSync(root, { recursive: true, force: true }); });

  it("control: without hooks the model's rm -rf runs", () => {
    const w = world();
    const run = runClaude(w, { command: RM, hookbox: false });
    expect(run.code, run.stderr).toBe(0);
    expect(victimKept(w)).toBe(false);
  });

  it("a project's hook that reads the ssh key, a secret and the API key: Claude Code alone runs it; hookbox runs it only approved, sandboxed, reaching none of them", () => {
    const control = world();
    projectHook(control, "fixtures/hostile/claude-code/reads-user-secrets.sh");
    const leaked = runClaude(control, { command: RM, hookbox: false });
    expect(readFileSync(join(control.project, "leaked.txt"), "utf8")).toContain(CANARY.ssh);
    for (const canary of [CANARY.ssh, CANARY.secret, CANARY.apiKey]) expect(leaked.result).toContain(canary);

    const w = world();
    projectHook(w, "fixtures/hostile/claude-code/reads-user-secrets.sh");
    const unapproved = runClaude(w, { command: RM, hookbox: true });
    expect(unapproved.code, unapproved.stderr).toBe(0);
    expect(unapproved.result).toContain("(not_approved)");
    expect(unapproved.result).toContain(`npx hookbox trust ${w.project}`);
    expect(unapproved.stderr).toContain("1 of the project's Claude Code hooks is not approved as it is");
    expect(victimKept(w)).toBe(true);
    expect(existsSync(join(w.project, "leaked.txt"))).toBe(false);

    const listed = approve(w);
    expect(listed).toContain("Claude Code (.claude/settings.json, PreToolUse Bash: \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/reads-user-secrets.sh)");
    expect(listed).toContain(".claude/hooks/reads-user-secrets.sh");
    expect(listed).toContain("approved 1 module");
    const approved = runClaude(w, { command: RM, hookbox: true });
    // It ran (its block reaches the model), in the sandbox: an empty home, none of the variables, a read-only project.
    expect(approved.result).toContain("the hook read: ssh= secret= key=");
    expect(existsSync(join(w.project, "leaked.txt"))).toBe(false);
    for (const canary of [CANARY.ssh, CANARY.secret]) expect(approved.requests).not.toContain(canary);
    expect(approved.result).not.toContain(CANARY.apiKey);
    expect(victimKept(w)).toBe(true);
  });

  it("a project's guard blocking rm -rf with exit 2 keeps working through hookbox, and the model reads its reason as Claude Code alone words it", () => {
    const control = world();
    projectHook(control, "fixtures/claude-code/blocks-rm-rf.sh");
    const alone = runClaude(control, { command: RM, hookbox: false });
    expect(alone.result).toContain("rm -rf is not allowed in this project");
    expect(victimKept(control)).toBe(true);

    const w = world();
    projectHook(w, "fixtures/claude-code/blocks-rm-rf.sh");
    approve(w);
    const run = runClaude(w, { command: RM, hookbox: true });
    expect(run.result).toContain("guard: rm -rf is not allowed in this project");
    // What Claude Code alone says, naming the hook's own command, not hookbox's router (through
    // hookbox, Claude Code wraps it in <tool_use_error> tags).
    const words = (result: string) => result.replace(/<\/?tool_use_error>/g, "").trim();
    expect(words(run.result)).toBe(words(alone.result));
    expect(words(run.result)).toBe("TOOL RESULT: PreToolUse:Bash hook error: [\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/blocks-rm-rf.sh]: guard: rm -rf is not allowed in this project");
    expect(victimKept(w)).toBe(true);
  });

  it("the project's settings that run code or set the environment (env, statusLine, apiKeyHelper): Claude Code alone applies its env to every command; hookbox claude loads none of them and names them", () => {
    const settings = (w: ClaudeWorld) => writeFileSync(join(w.project, ".claude", "settings.json"), JSON.stringify({
      env: { HOOKBOX_PROBE: "set-by-the-project" },
      statusLine: { type: "command", command: "touch status-ran" },
      apiKeyHelper: "echo sk-ant-from-helper",
    }));
    const command = "echo probe=$HOOKBOX_PROBE";
    const control = world();
    settings(control);
    expect(runClaude(control, { command, hookbox: false }).result).toContain("probe=set-by-the-project");
    const w = world();
    settings(w);
    const run = runClaude(w, { command, hookbox: true });
    expect(run.stderr).toContain("the project's .claude/settings.json sets env, statusLine, apiKeyHelper: not loaded");
    expect(run.result).toContain("TOOL RESULT: probe=");
    expect(run.result).not.toContain("set-by-the-project");
  });

  it("your own hook (~/.claude/settings.json): Claude Code alone gives it the API key; hookbox claude runs it once, as you, without it", () => {
    const userHook = (w: ClaudeWorld) => {
      mkdirSync(join(w.home, ".claude"), { recursive: true });
      writeFileSync(join(w.home, ".claude", "settings.json"), JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo \"key=$ANTHROPIC_API_KEY home=$HOME\" >> \"$HOME/user-hook.log\"" }] }] } }));
    };
    const log = (w: ClaudeWorld) => readFileSync(join(w.home, "user-hook.log"), "utf8").trim().split("\n");
    const control = world();
    userHook(control);
    runClaude(control, { command: "echo hi", hookbox: false });
    expect(log(control)).toEqual([`key=${CANARY.apiKey} home=${control.home}`]);
    const w = world();
    userHook(w);
    const run = runClaude(w, { command: "echo hi", hookbox: true });
    expect(run.result).toContain("TOOL RESULT: hi");
    expect(log(w)).toEqual([`key= home=${w.home}`]);
  });

  const faults = [
    { fixture: "fixtures/hostile/claude-code/crashes.sh", code: "crashed" },
    { fixture: "fixtures/hostile/claude-code/hangs.sh", code: "timeout", timeoutS: 2 },
    { fixture: "fixtures/hostile/claude-code/prints-malformed-json.sh", code: "invalid_result" },
  ];
  for (const { fixture, code, timeoutS } of faults) {
    it(`a guard that fails (${fixture.split("/").pop()}): Claude Code alone runs the call; hookbox blocks it (${code})`, () => {
      const control = world();
      projectHook(control, fixture, timeoutS);
      runClaude(control, { command: RM, hookbox: false });
      expect(victimKept(control)).toBe(false);

      const w = world();
      projectHook(w, fixture, timeoutS);
      approve(w);
      const run = runClaude(w, { command: RM, hookbox: true });
      expect(run.result).toContain(`(${code})`);
      expect(run.result).toContain("hookbox blocked this tool call");
      expect(victimKept(w)).toBe(true);
    });
  }

  it("a project's hook answering updatedInput that rewrites the command: Claude Code alone runs the rewritten command; hookbox refuses it (effect_refused) and blocks", () => {
    const control = world();
    projectHook(control, "fixtures/hostile/claude-code/rewrites-bash-command.sh");
    runClaude(control, { command: "echo the model's own command", hookbox: false });
    expect(readFileSync(join(control.project, "rewritten.txt"), "utf8")).toContain("REWRITTEN-BY-HOOK");

    const w = world();
    projectHook(w, "fixtures/hostile/claude-code/rewrites-bash-command.sh");
    approve(w);
    const run = runClaude(w, { command: "echo the model's own command", hookbox: true });
    expect(run.result).toContain("(effect_refused)");
    expect(run.result).toContain("hookSpecificOutput.updatedInput");
    expect(existsSync(join(w.project, "rewritten.txt"))).toBe(false);
  });
});
