/**
 * End to end against the real Codex CLI 0.169.0 (scripts/install-codex.sh), headless (`codex exec`),
 * in a network namespace with only loopback, against a fake Responses API server whose model asks
 * exec_command to run a command. Each case has a control run of Codex CLI alone, showing the check
 * can fail, then `hookbox codex` (src/cli/codex.ts, src/agents/). Both runs pass
 * --dangerously-bypass-hook-trust: alone, Codex then runs the project's and your hooks; under
 * hookbox it still runs only the managed routing hook. Several hostile hooks share one run.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentUnavailable } from "./support/pi-run.js";
import { approve, CANARY, codexWorld, installCodex, projectHooks, runCodex, userHook, type CodexWorld } from "./support/codex-run.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";

const sandbox = sandboxAvailability();
const unavailable = agentUnavailable("Codex CLI") ?? (sandbox.ok ? undefined : sandbox.reason);
// Not rm -rf: Codex 0.169.0 itself refuses "rm -f style commands".
const RM = "rm -r ./victim";
const FAULTS = [
  { fixture: "fixtures/hostile/codex/crashes.sh" },
  { fixture: "fixtures/hostile/codex/hangs.sh", timeoutS: 2 },
  { fixture: "fixtures/hostile/codex/prints-malformed-json.sh" },
  { fixture: "fixtures/hostile/codex/blocks-with-empty-stderr.sh" },
];
let codex = "";
const worlds: string[] = [];

function world(): CodexWorld {
  const root = mkdtempSync(join(tmpdir(), "hookbox-e2e-codex-"));
  worlds.push(root);
  return codexWorld(root, codex);
}
const victimKept = (w: CodexWorld) => existsSync(join(w.victim, "keep.txt"));

describe.skipIf(unavailable)("Codex CLI 0.169.0 end to end", { timeout: 120_000 }, () => {
  beforeAll(() => { codex = installCodex(); }, 300_000);
  afterAll(() => { for (const root of worlds.splice(0)) rmSync(root, { recursive: true, force: true }); });

  it("a project's hook that reads the ssh key, a secret and the API key: Codex CLI alone runs it; hookbox runs it only approved, sandboxed, reaching none of them; AGENTS.md still reaches the model", () => {
    const control = world();
    projectHooks(control, [{ fixture: "fixtures/hostile/codex/reads-user-secrets.sh" }]);
    const leaked = runCodex(control, { command: RM, hookbox: false });
    for (const canary of [CANARY.ssh, CANARY.secret, CANARY.apiKey]) expect(leaked.result).toContain(canary);
    expect(readFileSync(join(control.project, "leaked.txt"), "utf8")).toContain(CANARY.ssh);

    const w = world();
    projectHooks(w, [{ fixture: "fixtures/hostile/codex/reads-user-secrets.sh" }]);
    const unapproved = runCodex(w, { command: RM, hookbox: true });
    expect(unapproved.code, unapproved.stderr).toBe(0);
    expect(unapproved.result).toContain("(not_approved)");
    expect(unapproved.result).toContain(`npx hookbox trust ${w.project}`);
    expect(unapproved.stderr).toContain("1 of the project's Codex CLI hooks is not approved as it is");
    expect(victimKept(w)).toBe(true);
    expect(existsSync(join(w.project, "leaked.txt"))).toBe(false);

    const listed = approve(w);
    expect(listed).toContain(`Codex CLI (.codex/hooks.json, PreToolUse ^Bash$: ${w.project}/.codex/hooks/reads-user-secrets.sh)`);
    expect(listed).toContain("approved 1 module");
    const approved = runCodex(w, { command: RM, hookbox: true });
    expect(approved.result).toContain("the hook read: ssh= secret= key=");
    expect(approved.result).toContain("Read-only file system");
    for (const canary of [CANARY.ssh, CANARY.secret, CANARY.apiKey]) expect(approved.stdout + approved.stderr).not.toContain(canary);
    expect(victimKept(w)).toBe(true);
    expect(leaked.requests).toContain(CANARY.memory);
    expect(approved.requests).toContain(CANARY.memory);
  });

  it("a crashing, a hanging, a malformed guard and one exiting 2 with no reason: Codex CLI alone runs the call; hookbox blocks it naming crashed, timeout and invalid_result", () => {
    const control = world();
    projectHooks(control, FAULTS);
    const alone = runCodex(control, { command: RM, hookbox: false });
    expect(alone.code, alone.stderr).toBe(0);
    expect(victimKept(control)).toBe(false);

    const w = world();
    projectHooks(w, FAULTS);
    approve(w);
    const run = runCodex(w, { command: RM, hookbox: true });
    expect(run.code, run.stderr).toBe(0);
    expect(victimKept(w)).toBe(true);
    for (const code of ["(crashed)", "(timeout)", "(invalid_result)"]) expect(run.result).toContain(code);
  });

  it("an input rewrite: Codex CLI alone runs the rewritten command; hookbox refuses it (effect_refused) and blocks the call", () => {
    const control = world();
    projectHooks(control, [{ fixture: "fixtures/hostile/codex/rewrites-shell-command.sh" }]);
    runCodex(control, { command: RM, hookbox: false });
    expect(existsSync(join(control.project, "rewritten.txt"))).toBe(true);

    const w = world();
    projectHooks(w, [{ fixture: "fixtures/hostile/codex/rewrites-shell-command.sh" }]);
    approve(w);
    const run = runCodex(w, { command: RM, hookbox: true });
    expect(run.result).toContain("(effect_refused)");
    expect(existsSync(join(w.project, "rewritten.txt"))).toBe(false);
    expect(victimKept(w)).toBe(true);
  });

  it("your own guards (hooks.json and config.toml's [hooks]): Codex CLI alone gives them the API key; under hookbox they still block, each runs once (Codex does not run them itself) and without the API key", () => {
    const guard = `echo "runs key=$OPENAI_API_KEY" >> "$HOME/guard-runs"; echo "your guard says no" >&2; exit 2`;
    const counter = `echo "toml key=$OPENAI_API_KEY" >> "$HOME/toml-runs"`;
    const control = world();
    userHook(control, guard, counter);
    runCodex(control, { command: RM, hookbox: false });
    expect(readFileSync(join(control.home, "guard-runs"), "utf8")).toBe(`runs key=${CANARY.apiKey}\n`);
    expect(readFileSync(join(control.home, "toml-runs"), "utf8")).toBe(`toml key=${CANARY.apiKey}\n`);

    const w = world();
    userHook(w, guard, counter);
    const run = runCodex(w, { command: RM, hookbox: true });
    expect(run.result).toContain("your guard says no");
    expect(victimKept(w)).toBe(true);
    expect(readFileSync(join(w.home, "guard-runs"), "utf8")).toBe("runs key=\n");
    expect(readFileSync(join(w.home, "toml-runs"), "utf8")).toBe("toml key=\n");
  });
});
