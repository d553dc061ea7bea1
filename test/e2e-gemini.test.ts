/**
 * End to end against the real Gemini CLI 0.61.0 (scripts/install-gemini.sh), headless, in a network
 * namespace with only loopback, against a fake Gemini API server whose model asks run_shell_command
 * to run a command. Each case has a control run of Gemini CLI alone, showing the check can fail,
 * then `hookbox gemini` (src/cli/gemini.ts, src/agents/). Several hostile hooks share one run.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentUnavailable } from "./support/pi-run.js";
import { approve, CANARY, geminiWorld, installGemini, projectHooks, runGemini, userHook, type GeminiWorld } from "./support/gemini-run.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";

const sandbox = sandboxAvailability();
const unavailable = agentUnavailable("Gemini CLI") ?? (sandbox.ok ? undefined : sandbox.reason);
const RM = "rm -rf ./victim";
const FAULTS = [
  { fixture: "fixtures/hostile/gemini/crashes.sh" },
  { fixture: "fixtures/hostile/gemini/hangs.sh", timeoutMs: 2_000 },
  { fixture: "fixtures/hostile/gemini/prints-malformed-json.sh" },
];
let gemini = "";
const worlds: string[] = [];

function world(): GeminiWorld {
  const root = mkdtempSync(join(tmpdir(), "hookbox-e2e-gemini-"));
  worlds.push(root);
  return geminiWorld(root, gemini);
}
const victimKept = (w: GeminiWorld) => existsSync(join(w.victim, "keep.txt"));

describe.skipIf(unavailable)("Gemini CLI 0.61.0 end to end", { timeout: 120_000 }, () => {
  beforeAll(() => { gemini = installGemini(); }, 300_000);
  afterAll(() => { for (const root of worlds.splice(0)) rmSync(root, { recursive: true, force: true }); });

  it("a project's hook that reads the ssh key, a secret and the API key: Gemini CLI alone runs it; hookbox runs it only approved, sandboxed, reaching none of them; GEMINI.md still reaches the model", () => {
    const control = world();
    projectHooks(control, [{ fixture: "fixtures/hostile/gemini/reads-user-secrets.sh" }]);
    const leaked = runGemini(control, { command: RM, hookbox: false });
    for (const canary of [CANARY.ssh, CANARY.secret, CANARY.apiKey]) expect(leaked.result).toContain(canary);
    expect(readFileSync(join(control.project, "leaked.txt"), "utf8")).toContain(CANARY.ssh);

    const w = world();
    projectHooks(w, [{ fixture: "fixtures/hostile/gemini/reads-user-secrets.sh" }]);
    const unapproved = runGemini(w, { command: RM, hookbox: true });
    expect(unapproved.code, unapproved.stderr).toBe(0);
    expect(unapproved.result).toContain("(not_approved)");
    expect(unapproved.result).toContain(`npx hookbox trust ${w.project}`);
    expect(unapproved.stderr).toContain("1 of the project's Gemini CLI hooks is not approved as it is");
    expect(victimKept(w)).toBe(true);
    expect(existsSync(join(w.project, "leaked.txt"))).toBe(false);

    const listed = approve(w);
    expect(listed).toContain("Gemini CLI (.gemini/settings.json, BeforeTool run_shell_command: \"$GEMINI_PROJECT_DIR\"/.gemini/hooks/reads-user-secrets.sh)");
    expect(listed).toContain("approved 1 module");
    const approved = runGemini(w, { command: RM, hookbox: true });
    expect(approved.result).toContain("the hook read: ssh= secret= key=");
    expect(approved.result).toContain("Read-only file system");
    for (const canary of [CANARY.ssh, CANARY.secret, CANARY.apiKey]) expect(approved.stdout + approved.stderr).not.toContain(canary);
    expect(victimKept(w)).toBe(true);
    expect(leaked.requests).toContain(CANARY.memory);
    expect(approved.requests).toContain(CANARY.memory);
  });

  it("a crashing, a hanging and a malformed guard: Gemini CLI alone runs the call; hookbox blocks it naming crashed, timeout and invalid_result", () => {
    const control = world();
    projectHooks(control, FAULTS);
    const alone = runGemini(control, { command: RM, hookbox: false });
    expect(alone.code, alone.stderr).toBe(0);
    expect(victimKept(control)).toBe(false);

    const w = world();
    projectHooks(w, FAULTS);
    approve(w);
    const run = runGemini(w, { command: RM, hookbox: true });
    expect(run.code, run.stderr).toBe(0);
    expect(victimKept(w)).toBe(true);
    for (const code of ["(crashed)", "(timeout)", "(invalid_result)"]) expect(run.result).toContain(code);
  });

  it("an input rewrite: Gemini CLI alone runs the rewritten command; hookbox refuses it (effect_refused) and blocks the call", () => {
    const control = world();
    projectHooks(control, [{ fixture: "fixtures/hostile/gemini/rewrites-shell-command.sh" }]);
    runGemini(control, { command: RM, hookbox: false });
    expect(existsSync(join(control.project, "rewritten.txt"))).toBe(true);

    const w = world();
    projectHooks(w, [{ fixture: "fixtures/hostile/gemini/rewrites-shell-command.sh" }]);
    approve(w);
    const run = runGemini(w, { command: RM, hookbox: true });
    expect(run.result).toContain("(effect_refused)");
    expect(run.result).toContain("hookSpecificOutput.tool_input");
    expect(existsSync(join(w.project, "rewritten.txt"))).toBe(false);
    expect(victimKept(w)).toBe(true);
  });

  it("your own guard: Gemini CLI alone gives it the API key; under hookbox it still blocks, runs once (Gemini CLI does not run it itself) and without the API key", () => {
    const guard = `echo "runs key=$GEMINI_API_KEY" >> "$HOME/guard-runs"; echo "your guard says no" >&2; exit 2`;
    const control = world();
    userHook(control, guard);
    runGemini(control, { command: RM, hookbox: false });
    expect(readFileSync(join(control.home, "guard-runs"), "utf8")).toBe(`runs key=${CANARY.apiKey}\n`);

    const w = world();
    userHook(w, guard);
    const run = runGemini(w, { command: RM, hookbox: true });
    expect(run.result).toContain("your guard says no");
    expect(victimKept(w)).toBe(true);
    expect(readFileSync(join(w.home, "guard-runs"), "utf8")).toBe("runs key=\n");
  });
});
