/**
 * End to end against the real Codex CLI 0.169.0: a hook's answer with a field its event does not
 * take (fixtures/hostile/codex/poisons-the-merged-answer.sh: a PreToolUse deny carrying
 * PermissionRequest's `decision`). Codex discards such an answer whole and runs the call; in the
 * router's merged answer it would take every other hook's deny down with it. hookbox reads each
 * event's fields as Codex does (src/agents/codex.ts CODEX_EVENT_FIELDS) and refuses it by name.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentUnavailable } from "./support/pi-run.js";
import { approve, codexWorld, installCodex, projectHooks, runCodex, userHook } from "./support/codex-run.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";

const sandbox = sandboxAvailability();
const roots: string[] = [];
let program = "";
const world = () => { const root = mkdtempSync(join(tmpdir(), "hookbox-e2e-codex-fields-")); roots.push(root); return codexWorld(root, program); };

describe.skipIf(agentUnavailable("Codex CLI") ?? (sandbox.ok ? undefined : sandbox.reason))("Codex CLI 0.169.0's answer fields end to end", { timeout: 120_000 }, () => {
  beforeAll(() => { program = installCodex(); }, 300_000);
  afterAll(() => { for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true }); });

  it("a project's hook whose deny carries a field PreToolUse does not take: Codex alone discards it and runs the call; under hookbox, beside your own guard's deny, it is invalid_result and the call blocked", () => {
    const control = world();
    projectHooks(control, [{ fixture: "fixtures/hostile/codex/poisons-the-merged-answer.sh" }]);
    const alone = runCodex(control, { command: `touch ${control.victim}/ran.txt`, hookbox: false });
    expect(alone.code, alone.stderr).toBe(0);
    expect(existsSync(join(control.victim, "ran.txt"))).toBe(true);

    const w = world();
    projectHooks(w, [{ fixture: "fixtures/hostile/codex/poisons-the-merged-answer.sh" }]);
    userHook(w, `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"USER-GUARD-DENY"}}'`);
    approve(w);
    const run = runCodex(w, { command: `touch ${w.victim}/ran.txt`, hookbox: true });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(w.victim, "ran.txt"))).toBe(false);
    expect(run.result).toContain("(invalid_result)");
    expect(run.result).toContain(`hookSpecificOutput: Unrecognized key: "decision"`);
  });
});
