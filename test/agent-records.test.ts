/**
 * The one router (src/agents/router.ts) makes every routed hook's run a decision record, for every
 * agent's row: appended to the audit log ($XDG_STATE_HOME/hookbox) under the row's name, a project's
 * approved hook carrying the digest of the approval it ran under (`hook.hash`), one not approved
 * refused (not_approved) and blocking the call, the user's own carrying no hash. Real hooks, the
 * real sandbox.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalStore } from "../src/approval/store.js";
import { CODEX } from "../src/agents/codex.js";
import { GEMINI } from "../src/agents/gemini.js";
import { agentHookFingerprint } from "../src/agents/command-hooks.js";
import { route } from "../src/agents/router.js";
import type { AgentHook, AgentPlan, CommandDialect } from "../src/agents/dialect.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { readAuditLog } from "../src/observe/read-log.js";

const root = mkdtempSync(join(tmpdir(), "hookbox-agent-records-"));
const state = join(root, "state");
const saved = process.env.XDG_STATE_HOME;
beforeAll(() => { process.env.XDG_STATE_HOME = state; });
afterAll(() => {
  if (saved === undefined) delete process.env.XDG_STATE_HOME; else process.env.XDG_STATE_HOME = saved;
  rmSync(root, { recursive: true, force: true });
});

const ROWS: Array<{ d: CommandDialect<object>; event: string; tool: string; folder: string }> = [
  { d: CODEX as CommandDialect<object>, event: "PreToolUse", tool: "Bash", folder: ".codex" },
  { d: GEMINI as CommandDialect<object>, event: "BeforeTool", tool: "run_shell_command", folder: ".gemini" },
];

describe.skipIf(!sandboxAvailability().ok)("decision records of the routed agents", () => {
  for (const { d, event, tool, folder } of ROWS) {
    it(`${d.agent}: each hook's run is a record under "${d.recordAs}"; an approved project hook's carries its approval's digest, an unapproved one's is refused and blocks, the user's carries none`, async () => {
      const project = join(root, d.recordAs);
      mkdirSync(join(project, folder, "hooks"), { recursive: true });
      const hook = (name: string, source: AgentHook["source"], at: number): AgentHook => {
        const script = join(project, folder, "hooks", `${name}.sh`);
        writeFileSync(script, "#!/bin/sh\ncat >/dev/null\nexit 0\n");
        chmodSync(script, 0o755);
        return { source, file: join(project, folder, "settings.json"), at: `hooks.${event}[0].hooks[${at}]`, event, matcher: tool, command: script, name, timeoutMs: 5_000 };
      };
      const approved = hook("approved", "project", 0);
      const unapproved = hook("unapproved", "project", 1);
      const user = { ...hook("user", "user", 2), file: join(root, "home", "settings.json") };
      const plan: AgentPlan = { project, hooks: [approved, unapproved, user], refused: [], approvals: join(root, "approvals"), maxOutputBytes: 1 << 20 };
      const approval = await agentHookFingerprint(d, project, approved);
      new ApprovalStore({ dir: plan.approvals }).approve(project, [approval]);
      const input = { hook_event_name: event, tool_name: tool, tool_input: { command: "ls" } };
      const answer = await route(d, plan, input, JSON.stringify(input));
      expect(answer.code).toBe(2);
      const records = readAuditLog(join(state, "hookbox")).records.filter((r) => r.agent === d.recordAs);
      expect(records.map((r) => [r.hook?.path.split("#")[1], r.outcome, r.code ?? null, r.hook?.hash ?? null, r.isolation])).toEqual(expect.arrayContaining([
        [approved.at, "allowed", null, approval.digest, "sandbox"],
        [unapproved.at, "refused", "not_approved", null, "sandbox"],
        [user.at, "allowed", null, null, "as-user"],
      ]));
      expect(records).toHaveLength(3);
      expect(approval.digest).toMatch(/^[0-9a-f]{64}$/);
    });
  }
});
