/**
 * The router answers Claude Code before Claude Code's deadline for it, always (src/agents/router.ts),
 * at its process boundary: `hookbox claude-hook <plan>` with the event on stdin, as Claude Code runs
 * it. A project of 200 hooks naming one script beside a 250 MiB sparse file
 * (fixtures/hostile/claude-code/drowns-the-router/, the file added here: git keeps no sparse file)
 * costs one read of the store when unapproved and one read of each file when approved; a watchdog
 * armed first answers "blocked" with what the hooks answered so far, the user's guard included,
 * and stops what still runs.
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalStore, PinReader } from "../src/approval/store.js";
import { CLAUDE_CODE } from "../src/claude/dialect.js";
import { planText } from "../src/agents/plan.js";
import type { ClaudePlan } from "../src/claude/plan.js";
import { routerTimeoutS } from "../src/claude/router.js";
import { parseClaudeSettings, type ClaudeHook } from "../src/claude/settings.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { BIN, ROOT } from "./cli-run.js";

const roots: string[] = [];
afterEach(() => { for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true }); });

const RM = { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -rf ./victim" } };
/** The user's guard (~/.claude/settings.json): blocks rm -rf, as the model reads it. */
const USER_GUARD = `grep -q 'rm -rf' && { echo "user guard: rm -rf is not allowed" >&2; exit 2; }; exit 0`;

function drowningProject() {
  const root = mkdtempSync(join(tmpdir(), "hookbox-router-deadline-"));
  roots.push(root);
  const dir = join(root, "project");
  cpSync(join(ROOT, "fixtures", "hostile", "claude-code", "drowns-the-router"), dir, { recursive: true });
  const big = join(dir, ".claude", "hooks", "big.bin");
  writeFileSync(big, "");
  truncateSync(big, 250 * 1024 * 1024);
  const file = join(dir, ".claude", "settings.json");
  const project = parseClaudeSettings(readFileSync(file, "utf8"), file, "project");
  const user = parseClaudeSettings(JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: USER_GUARD, timeout: 10 }] }] } }), join(root, "home", ".claude", "settings.json"), "user");
  return { root, dir, approvals: join(root, "approvals"), hooks: [...user.hooks, ...project.hooks] };
}

/** Runs the router as Claude Code does; resolves with its answer and how long it took to exit. */
function claudeHook(root: string, plan: ClaudePlan, event: object, killAfterMs: number): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const planFile = join(root, `plan-${Math.random().toString(36).slice(2)}.json`);
  const { text, sha256 } = planText(plan);
  writeFileSync(planFile, text);
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, "claude-hook", planFile, sha256], { cwd: plan.project, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const kill = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    child.stdout.on("data", (d) => { stdout += d; });
    child.stderr.on("data", (d) => { stderr += d; });
    // A PreToolUse block's reason is on stdout as Claude Code reads it ({ decision: "block", reason }: src/cli/claude.ts), its stderr empty.
    child.on("close", (code) => { clearTimeout(kill); resolve({ code, stdout, stderr: code === 2 && stdout.startsWith("{") ? `${JSON.parse(stdout).reason}\n${stderr}` : stderr, ms: performance.now() - started }); });
    child.stdin.end(JSON.stringify(event));
  });
}

describe("the Claude Code router's deadline", () => {
  it("an unapproved project of 200 hooks beside a 250 MiB file is refused at the cost of one read of the store: the call is blocked at once, and the user's guard still answers", async () => {
    const w = drowningProject();
    const plan: ClaudePlan = { project: w.dir, hooks: w.hooks, refused: [], approvals: w.approvals, maxOutputBytes: 1 << 20 };
    expect(routerTimeoutS(plan.hooks)).toBe(40);
    // Well inside Claude Code's 40 s: killed at 15 s, the router would have failed the check.
    const answer = await claudeHook(w.root, plan, RM, 15_000);
    expect(answer.code, answer.stderr.slice(-500)).toBe(2);
    // The user's guard's reason, named by its own command as Claude Code names a hook's block.
    expect(answer.stderr.endsWith(`\n[${USER_GUARD}]: user guard: rm -rf is not allowed\n`), answer.stderr.slice(-500)).toBe(true);
    // Ten named in full, the rest counted: 200 hooks do not flood the model's context.
    expect(answer.stderr.match(/hooks\[\d+\]" was not loaded: it is a Claude Code hook of the project [^,]+, and you have not approved it; [^(]+ \(not_approved\)/g)).toHaveLength(10);
    expect(answer.stderr).toContain("…and 190 more hooks: not_approved ×190.");
    expect(answer.stderr.length).toBeLessThan(6_000);
    expect(answer.ms).toBeLessThan(10_000);
  });

  it("an approved project's 200 hooks read each file once per check, the 250 MiB file included", async () => {
    const w = drowningProject();
    const project = w.hooks.filter((h) => h.source !== "user");
    const reader = new PinReader();
    const prints = await Promise.all(project.map((h) => CLAUDE_CODE.fingerprint(w.dir, h, reader)));
    // guard.sh, big.bin and the two settings files' folder entries: each read once, not once per hook.
    expect(reader.reads).toBe(Object.values(prints[0]!.files).filter((v) => /^[0-9a-f]{64}$/.test(v)).length);
    expect(reader.reads).toBeLessThanOrEqual(3);
    expect(new Set(prints.map((p) => p.files[join(w.dir, ".claude", "hooks", "big.bin")])).size).toBe(1);
  });

  it("a project past the pinning bound is refused by name after a walk of names and sizes, none of its bytes read", async () => {
    const w = drowningProject();
    truncateSync(join(w.dir, ".claude", "hooks", "big.bin"), 300 * 1024 * 1024);
    const reader = new PinReader();
    const hook = w.hooks.find((h) => h.source !== "user") as ClaudeHook;
    await expect(CLAUDE_CODE.fingerprint(w.dir, hook, reader)).rejects.toThrow(/could load more than 20000 files or 256 MiB \(reached .*big\.bin\)/);
    expect(reader.reads).toBe(0);
  });

  it("the watchdog answers before Claude Code's deadline whatever still runs: blocked, with the user's guard's reason, the slow hook stopped (control: with the deadline above the hook's, the router waits for it)", async () => {
    const w = drowningProject();
    const pidFile = join(w.root, "slow.pid");
    const slow = parseClaudeSettings(JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `echo $$ > '${pidFile}'; exec sleep 30`, timeout: 9 }] }] } }), join(w.root, "home", ".claude", "settings.json"), "user").hooks;
    const hooks = [...w.hooks.filter((h) => h.source === "user"), ...slow];
    // The routing hook given 6 s by Claude Code: the watchdog answers at 4.5 s from the router's start.
    const late = await claudeHook(w.root, { project: w.dir, hooks, refused: [], maxOutputBytes: 1 << 20, timeoutS: 6 }, RM, 15_000);
    expect(late.code, late.stderr).toBe(2);
    expect(late.stderr).toContain("user guard: rm -rf is not allowed");
    expect(late.stderr).toMatch(/had not answered when hookbox's router had to answer Claude Code .* \(timeout\)/);
    expect(late.ms).toBeLessThan(6_000);
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);

    const control = await claudeHook(w.root, { project: w.dir, hooks, refused: [], maxOutputBytes: 1 << 20 }, RM, 15_000);
    expect(control.code).toBe(2);
    expect(control.stderr).toMatch(/did not exit within its timeout \(9 s\)/);
    expect(control.ms).toBeGreaterThan(9_000);
    expect(existsSync(pidFile)).toBe(true);
  });

  it.skipIf(!sandboxAvailability().ok)("an approved project's hook passes the router's check and runs in the sandbox beside the user's guard", async () => {
    const w = drowningProject();
    const project = w.hooks.filter((h) => h.source !== "user");
    const reader = new PinReader();
    new ApprovalStore({ dir: w.approvals }).approve(w.dir, await Promise.all(project.slice(0, 1).map((h) => CLAUDE_CODE.fingerprint(w.dir, h, reader))));
    const plan: ClaudePlan = { project: w.dir, hooks: [w.hooks[0]!, project[0]!], refused: [], approvals: w.approvals, maxOutputBytes: 1 << 20 };
    const answer = await claudeHook(w.root, plan, RM, 20_000);
    expect(answer.stderr).toBe(`[${USER_GUARD}]: user guard: rm -rf is not allowed\n`);
    expect(answer.code).toBe(2);
  });
});
