/**
 * `hookbox log` over the audit log that `hookbox claude-hook` (the router Claude Code runs for every
 * event) appended to by default: real hooks, the real sandbox, the real bin. `--why <call id>` says
 * in words why a call was blocked and what changes it, for a project hook not approved, one that
 * answered above its policy (effect_refused) and one that timed out; filters and --json.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalStore } from "../src/approval/store.js";
import { CLAUDE_CODE } from "../src/claude/dialect.js";
import { planText } from "../src/agents/plan.js";
import type { ClaudePlan } from "../src/claude/plan.js";
import { parseClaudeSettings } from "../src/claude/settings.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { AuditLog } from "../src/observe/audit-log.js";
import { decisionRecordSchema } from "../src/observe/record.js";
import { main } from "../src/cli/main.js";
import { hookbox } from "./cli-run.js";
import { guardProject } from "./support/claude-guard.js";

/** `hookbox log …args` in this process over the test's log folder (the bin runs once, in the first test). */
async function log(args: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = "";
  const out = { write: (t: string) => { stdout += t; }, isTTY: false, columns: 120 };
  const code = await main(["log", "--dir", join(state, "hookbox"), ...args], { stdout: out, stderr: out });
  return { code, stdout };
}

const root = mkdtempSync(join(tmpdir(), "hookbox-cli-log-"));
const state = join(root, "state");
const env = { XDG_STATE_HOME: state, HOOKBOX_AUDIT: "" };
const project = join(root, "project");
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The digest of each approved plan's project hook, by plan. */
const digests = new Map<string, string>();

/** A plan with one project hook (guard.sh, approved when `approve`) and one user hook, as `hookbox claude` writes it. */
async function plan(name: string, script: string, user: string | undefined, approve: boolean): Promise<[string, string]> {
  const dir = join(project, name);
  const hooks = guardProject(dir, script);
  if (user) hooks.push(...parseClaudeSettings(JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: user, timeout: 1 }] }] } }), "/home/u/.claude/settings.json", "user").hooks);
  const p: ClaudePlan = { project: dir, hooks, refused: [], approvals: join(root, "approvals"), maxOutputBytes: 1 << 20 };
  if (approve) {
    const approval = await CLAUDE_CODE.fingerprint(dir, hooks[0]!);
    new ApprovalStore({ dir: p.approvals }).approve(dir, [approval]);
    digests.set(name, approval.digest);
  }
  const planFile = join(root, `${name}.plan.json`);
  const { text, sha256 } = planText(p);
  writeFileSync(planFile, text);
  return [planFile, sha256] as [string, string];
}
const event = (id: string) => JSON.stringify({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_use_id: id, tool_input: { command: "ls" } });

describe.skipIf(!sandboxAvailability().ok)("hookbox log", () => {
  beforeAll(async () => {
    const runs: Array<[string, [string, string], string]> = [
      ["unapproved", await plan("unapproved", "#!/bin/sh\nexit 0\n", undefined, false), "toolu_unapproved"],
      ["rewrites", await plan("rewrites", "#!/bin/sh\ncat >/dev/null\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"updatedInput\":{\"command\":\"ls -la\"}}}'\n", undefined, true), "toolu_rewrites"],
      ["slow", await plan("slow", "#!/bin/sh\ncat >/dev/null\nexit 0\n", "cat >/dev/null; sleep 5", true), "toolu_slow"],
    ];
    for (const [, planFile, id] of runs) {
      const ran = await hookbox(["claude-hook", ...planFile], { stdin: event(id), env });
      expect(ran.code, ran.stderr).toBe(2);
    }
  }, 60_000);

  it("--why says a project hook was not approved, so the call was blocked, and names hookbox trust <project>", async () => {
    // The bin, reading the log where the router wrote it ($XDG_STATE_HOME/hookbox).
    const ran = await hookbox(["log", "--why", "toolu_unapproved"], { env });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain("comes from the project and is not approved as it is now");
    expect(ran.stdout).toContain("hookbox blocked it");
    expect(ran.stdout).toContain(`To change it: npx hookbox trust ${join(project, "unapproved")}`);
  });

  it("--why says a project hook answered above its policy (effect_refused), so the call was blocked, and what may change the call", async () => {
    const ran = await log(["--why", "toolu_rewrites"]);
    expect(ran.stdout).toContain("answered with more than its policy lets it do to the agent");
    expect(ran.stdout).toContain("hookbox blocked it");
    expect(ran.stdout).toContain("To change it: only a hook of your own ~/.claude/settings.json may change what Claude Code does");
  });

  it("--why says a hook did not answer within its deadline, naming it, and that a larger timeout changes it; the hook that allowed is not blamed", async () => {
    const ran = await log(["--why", "toolu_slow"]);
    expect(ran.stdout).toContain("did not answer within its deadline of 1000 ms");
    expect(ran.stdout).toContain("fail closed");
    expect(ran.stdout).toContain("To change it: a larger \"timeout\" (seconds) on the hook in its settings file");
    expect(ran.stdout).not.toContain("guard.sh");
  });

  it("--why on a call it has no record of says so and exits 1", async () => {
    const ran = await log(["--why", "toolu_never"]);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toContain("No decision about the call toolu_never");
  });

  it("lists the last decisions, filtered by outcome, code, project and hook, and --json prints the records themselves", async () => {
    const all = await log(["--json"]);
    const records = all.stdout.trim().split("\n").map((l) => decisionRecordSchema.parse(JSON.parse(l)));
    // The calls come in the order they were routed; one call's hooks run at once and each is logged as it ends
    // (on a loaded machine the sandboxed project hook may end after the user's times out): by hook within a call.
    const calls = records.map((r) => r.tool?.callId);
    expect(calls).toEqual(["toolu_unapproved", "toolu_rewrites", "toolu_slow", "toolu_slow"]);
    records.sort((a, b) => calls.indexOf(a.tool?.callId) - calls.indexOf(b.tool?.callId) || a.hook!.path.localeCompare(b.hook!.path));
    expect(records.map((r) => [r.tool?.callId, r.hook?.path.startsWith(root) ? "project" : r.hook?.path.split("#")[0], r.outcome, r.code ?? null, r.agent])).toEqual([
      ["toolu_unapproved", "project", "refused", "not_approved", "claude"],
      ["toolu_rewrites", "project", "refused", "effect_refused", "claude"],
      ["toolu_slow", "/home/u/.claude/settings.json", "failed", "timeout", "claude"],
      ["toolu_slow", "project", "allowed", null, "claude"],
    ]);
    // A project hook's record carries the digest of the approval it ran under; one not approved, or the user's, none.
    expect(records.map((r) => r.hook?.hash)).toEqual([undefined, digests.get("rewrites"), undefined, digests.get("slow")]);
    expect(digests.get("slow")).toMatch(/^[0-9a-f]{64}$/);
    const timeouts = await log(["--code", "timeout"]);
    expect(timeouts.stdout.trim().split("\n")).toHaveLength(1);
    expect(timeouts.stdout).toMatch(/failed\s+timeout\s+claude\s+PreToolUse Bash\(toolu_slow\)\s+\/home\/u\/\.claude\/settings\.json#/);
    expect((await log(["--outcome", "refused"])).stdout.trim().split("\n")).toHaveLength(2);
    expect((await log(["--project", join(project, "rewrites"), "--json"])).stdout.trim().split("\n")).toHaveLength(1);
    expect((await log(["--hook", join(project, "slow"), "-n", "1", "--json"])).stdout).toContain("toolu_slow");
    const bad = await log(["--outcome", "maybe"]);
    expect(bad.code).toBe(2);
  });
});

describe("hookbox log with nothing to show", () => {
  /** `hookbox log …args` in this process over `dir`. */
  async function logIn(dir: string, args: string[]): Promise<{ code: number; stdout: string }> {
    let stdout = "";
    const out = { write: (t: string) => { stdout += t; }, isTTY: false, columns: 120 };
    return { code: await main(["log", "--dir", dir, ...args], { stdout: out, stderr: out }), stdout };
  }

  it("says there is no decision and where it looked (exit 0), or that none matches the filters; --json prints nothing", async () => {
    const dir = join(root, "quiet");
    expect(await logIn(dir, [])).toEqual({ code: 0, stdout: `No decision in ${dir}.\n` });
    expect(await logIn(dir, ["--json"])).toEqual({ code: 0, stdout: "" });
    const log = new AuditLog({ dir });
    log.append({ v: 1, time: new Date(0).toISOString(), agent: "library", event: "tool_call", tool: { name: "bash", callId: "c1" }, outcome: "blocked", blocked: true, hook: { path: "/h.ts" } });
    log.close();
    expect(await logIn(dir, ["--code", "crashed"])).toEqual({ code: 0, stdout: `No decision in ${dir} matches the filters.\n` });
    // The control: the record is there, and listed.
    const listed = await logIn(dir, []);
    expect(listed.stdout).toMatch(/^1970-01-01 00:00:00Z {2}blocked .* tool_call bash\(c1\) {2}\/h\.ts\n$/);
  });
});
