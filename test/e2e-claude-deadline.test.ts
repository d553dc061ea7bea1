/**
 * End to end against the real Claude Code 2.1.328 (test/support/claude-run.ts: headless, a network
 * namespace with only loopback, a fake model that asks Bash to `rm -rf ./victim`): a project of 200
 * unapproved hooks naming one script beside a 250 MiB sparse file
 * (fixtures/hostile/claude-code/drowns-the-router/) and the user's own guard. Through `hookbox
 * claude` the router answers long before Claude Code's deadline (40 s): the call is blocked, the
 * victim stays, and the user's guard's reason reaches the model. Control: the same world without
 * any hook, Claude Code alone: the rm -rf runs. (Before the router's watchdog and memoized checks, the
 * router passed the 40 s and Claude Code let the call through.)
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { agentUnavailable } from "./support/pi-run.js";
import { claudeWorld, installClaude, runClaude, type ClaudeWorld } from "./support/claude-run.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { ROOT } from "./cli-run.js";

const sandbox = sandboxAvailability();
const unavailable = agentUnavailable("Claude Code") ?? (sandbox.ok ? undefined : sandbox.reason);
const worlds: string[] = [];
let claude = "";

function drowning(withGuard: boolean): ClaudeWorld {
  const root = mkdtempSync(join(tmpdir(), "hookbox-e2e-claude-deadline-"));
  worlds.push(root);
  const w = claudeWorld(root, claude);
  cpSync(join(ROOT, "fixtures", "hostile", "claude-code", "drowns-the-router"), w.project, { recursive: true });
  const big = join(w.project, ".claude", "hooks", "big.bin");
  writeFileSync(big, "");
  truncateSync(big, 250 * 1024 * 1024);
  if (withGuard) {
    mkdirSync(join(w.home, ".claude"), { recursive: true });
    const guard = `grep -q 'rm -rf' && { echo "user guard: rm -rf is not allowed" >&2; exit 2; }; exit 0`;
    writeFileSync(join(w.home, ".claude", "settings.json"), JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guard, timeout: 10 }] }] } }));
  }
  return w;
}

describe.skipIf(unavailable)("Claude Code 2.1.328 end to end: the router's deadline", { timeout: 180_000 }, () => {
  beforeAll(() => { claude = installClaude(); }, 300_000);
  afterEach(() => { for (const root of worlds.splice(0)) rmSync(root, { recursive: true, force: true }); });

  it("200 unapproved project hooks beside a 250 MiB file: the rm -rf is blocked well within Claude Code's deadline, the victim stays, and the user's guard's reason reaches the model", () => {
    const w = drowning(true);
    const started = Date.now();
    const run = runClaude(w, { command: "rm -rf ./victim", hookbox: true });
    const seconds = (Date.now() - started) / 1000;
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    expect(run.stderr).toContain("200 of the project's Claude Code hooks are not approved as they are");
    expect(run.result).toContain("user guard: rm -rf is not allowed");
    expect(existsSync(join(w.victim, "keep.txt"))).toBe(true);
    // The routing hook's deadline is 40 s; the whole session (start, one tool call, the answer) takes far less.
    expect(seconds).toBeLessThan(40);

    const control = drowning(false);
    rmSync(join(control.project, ".claude", "settings.json"));
    runClaude(control, { command: "rm -rf ./victim", hookbox: false });
    expect(existsSync(join(control.victim, "keep.txt"))).toBe(false);
  });
});
