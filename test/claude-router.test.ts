/**
 * `hookbox claude-hook`'s runner (src/agents/router.ts over Claude Code's row, src/claude/router.ts) with real processes and the real sandbox:
 * a user's hook runs as the user without secret-looking variables; a project's hook runs only as
 * approved (src/claude/approval.ts), and a change to its script needs approval again; answers of
 * several hooks combine by Claude Code's rules.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalStore } from "../src/approval/store.js";
import { route as routeWith } from "../src/agents/router.js";
import { CLAUDE_CODE } from "../src/claude/dialect.js";
import type { ClaudePlan } from "../src/claude/plan.js";
import { parseClaudeSettings } from "../src/claude/settings.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { ROOT } from "./cli-run.js";
import { guardProject } from "./support/claude-guard.js";
import { quietSockets } from "./support/quiet-sockets.js";

const roots: string[] = [];
afterEach(() => { for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true }); });

function project(script: string) {
  const root = mkdtempSync(join(tmpdir(), "hookbox-claude-router-"));
  roots.push(root);
  const dir = join(root, "project");
  const plan: ClaudePlan = { project: dir, hooks: guardProject(dir, script), refused: [], approvals: join(root, "approvals"), maxOutputBytes: 1 << 20 };
  return { dir, plan, store: new ApprovalStore({ dir: plan.approvals }) };
}
const event = { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } };
const route = (plan: ClaudePlan) => routeWith(CLAUDE_CODE, plan, event, JSON.stringify(event));

describe("hookbox claude-hook's runner", () => {
  it("runs a user's hook as the user, without secret-looking variables", async () => {
    process.env.HOOKBOX_TEST_SECRET_TOKEN = "CANARY";
    try {
      const file = "/home/u/.claude/settings.json";
      const hooks = parseClaudeSettings(JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "cat >/dev/null; echo \"token=$HOOKBOX_TEST_SECRET_TOKEN dir=$CLAUDE_PROJECT_DIR\" >&2; exit 2" }] }] } }), file, "user").hooks;
      const answer = await routeWith(CLAUDE_CODE, { project: tmpdir(), hooks, refused: [], maxOutputBytes: 1 << 20 }, event, JSON.stringify(event));
      // Claude Code's wording of an exit 2: the hook's command, then its stderr.
      expect(answer).toEqual({ code: 2, stdout: "", stderr: `[${hooks[0]!.command}]: token= dir=${tmpdir()}` });
    } finally {
      delete process.env.HOOKBOX_TEST_SECRET_TOKEN;
    }
  });

  it.skipIf(!sandboxAvailability().ok)("runs a project's hook only as approved: unapproved, and changed after approval, it blocks with not_approved", async () => {
    const { dir, plan, store } = project("#!/bin/sh\ncat >/dev/null\necho \"home=$HOME uid=$(id -u) home-files=$(ls -A \"$HOME\" | wc -l)\" >&2\nexit 2\n");
    const unapproved = await route(plan);
    expect(unapproved.code).toBe(2);
    expect(unapproved.stderr).toContain("you have not approved it");
    expect(unapproved.stderr).toContain("(not_approved)");
    store.approve(dir, [await CLAUDE_CODE.fingerprint(dir, plan.hooks[0]!)]);
    // In the sandbox: its own empty home, at the host's HOME path, as uid 65534.
    expect(await route(plan)).toEqual({ code: 2, stdout: "", stderr: `[${plan.hooks[0]!.command}]: home=${homedir()} uid=65534 home-files=0` });
    writeFileSync(join(dir, ".claude", "hooks", "guard.sh"), "#!/bin/sh\nexit 0\n");
    const changed = await route(plan);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain(".claude/hooks/guard.sh differs");
    expect(changed.stderr).toContain("(not_approved)");
  });

  it.skipIf(!sandboxAvailability().ok)("runs an approved project hook with no network: a listener on the host's loopback is out of its reach (control: the same lines as your own hook, outside the sandbox, connect)", async () => {
    const server = quietSockets(createServer((socket) => socket.end("hello")));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const probe = `cat >/dev/null; if exec 3<>/dev/tcp/127.0.0.1/${port}; then echo connected >&2; else echo unreachable >&2; fi; exit 2`;
      const { dir, plan, store } = project(`#!/bin/bash\n${probe}\n`);
      store.approve(dir, [await CLAUDE_CODE.fingerprint(dir, plan.hooks[0]!)]);
      const answer = await route(plan);
      expect(answer.code).toBe(2);
      expect(answer.stderr).toContain("unreachable");
      expect(answer.stderr).not.toContain("connected");
      const mine = parseClaudeSettings(JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: probe }] }] } }), "/home/u/.claude/settings.json", "user").hooks;
      const control = await routeWith(CLAUDE_CODE, { project: tmpdir(), hooks: mine, refused: [], maxOutputBytes: 1 << 20 }, event, JSON.stringify(event));
      expect(control.stderr).toContain("connected");
    } finally {
      server.close();
    }
  });

  it.skipIf(!sandboxAvailability().ok)("an approved project hook finds the sandbox's empty home when HOME lies inside the project (the project's bind does not hide it), and a project under HOME is bound where it is (control: the same hook outside the sandbox reads the key)", async () => {
    const script = readFileSync(join(ROOT, "fixtures", "hostile", "claude-code", "reads-user-secrets.sh"), "utf8");
    const { dir, plan, store } = project(script);
    const home = join(dir, "home");
    mkdirSync(join(home, ".ssh"), { recursive: true });
    writeFileSync(join(home, ".ssh", "id_ed25519"), "CANARY-SSH-KEY");
    store.approve(dir, [await CLAUDE_CODE.fingerprint(dir, plan.hooks[0]!)]);
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      const inside = await route(plan);
      expect(inside.code).toBe(2);
      expect(inside.stderr).toMatch(/the hook read: ssh= secret= key=(\n|$)/);
      expect(inside.stderr).not.toContain("CANARY-SSH-KEY");
      // A project under HOME: the home is empty, and the project (its hook) is there, where it is.
      process.env.HOME = dirname(dir);
      const under = await route(plan);
      expect(under.stderr).toMatch(/the hook read: ssh= secret= key=(\n|$)/);
    } finally {
      process.env.HOME = saved;
    }
    const control = spawnSync("sh", [join(dir, ".claude", "hooks", "guard.sh")], { input: "{}", encoding: "utf8", env: { PATH: "/usr/bin:/bin", HOME: home } });
    expect(control.stderr).toContain("ssh=CANARY-SSH-KEY");
  });

  it("combines answers by Claude Code's rules: deny over ask over allow, contexts joined; a failure on PreToolUse blocks", () => {
    const out = (o: object) => ({ kind: "ok" as const, output: { hookSpecificOutput: { hookEventName: "PreToolUse" as const, ...o } } });
    const merged = CLAUDE_CODE.answer("PreToolUse", [out({ permissionDecision: "allow", additionalContext: "a" }), out({ permissionDecision: "deny", permissionDecisionReason: "no" }), out({ permissionDecision: "ask", additionalContext: "b" })], []);
    expect(JSON.parse(merged.stdout)).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no", additionalContext: "a\nb" } });
    const refused = CLAUDE_CODE.answer("PreToolUse", [out({ permissionDecision: "allow" })], ["a \"prompt\" hook was not run."]);
    expect(refused).toEqual({ code: 2, stdout: "", stderr: "hookbox blocked this tool call: a \"prompt\" hook was not run." });
    // Elsewhere a failure does not block: it is reported to the user.
    expect(CLAUDE_CODE.answer("PostToolUse", [], ["x was not run."])).toEqual({ code: 1, stdout: "", stderr: "hookbox: x was not run." });
  });

  it("a reason a hook gives (exit 2's stderr, a decision's reason) reaches the model cut to 1000 characters, without terminal controls, newlines kept", () => {
    const hostile = `\x1b]52;c;c2VjcmV0\x07line one\nline two\x1b[2J${"x".repeat(5000)}`;
    const blocked = CLAUDE_CODE.answer("PreToolUse", [{ kind: "block", reason: hostile }], []);
    expect(blocked.code).toBe(2);
    expect(blocked.stderr.startsWith("line one\nline two")).toBe(true);
    expect(blocked.stderr).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(blocked.stderr.length).toBeLessThanOrEqual(1000);
    expect(blocked.stderr.endsWith(" [cut by hookbox]")).toBe(true);
    const denied = CLAUDE_CODE.answer("PreToolUse", [{ kind: "ok", output: { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: hostile } } }], []);
    const reason = (JSON.parse(denied.stdout) as { hookSpecificOutput: { permissionDecisionReason: string } }).hookSpecificOutput.permissionDecisionReason;
    expect(reason.startsWith("line one\nline two")).toBe(true);
    expect(reason).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(reason.length).toBeLessThanOrEqual(1000);
  });
});
