/**
 * A project as the Claude Code router tests build it: `.claude/hooks/hook.sh` (the given script),
 * the one hook of `event` in the project's `.claude/settings.json` (or, `source: "user"`, in a
 * user's `~/.claude/settings.json`), read back as `hookbox claude` reads it, with its approval and
 * a route through the real router (src/agents/router.ts over Claude Code's row).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { hookKey } from "../../src/approval/keys.js";
import { ApprovalStore } from "../../src/approval/store.js";
import { route as routeWith } from "../../src/agents/router.js";
import { CLAUDE_CODE } from "../../src/claude/dialect.js";
import type { ClaudePlan } from "../../src/claude/plan.js";
import { parseClaudeSettings } from "../../src/claude/settings.js";
import { tempDir } from "../helpers/files.js";

export function claudeProject(event: string, script: string, options: { matcher?: string; source?: "user" | "project"; prefix?: string } = {}) {
  const root = tempDir(options.prefix ?? "hookbox-claude-project-");
  const dir = join(root, "project");
  mkdirSync(join(dir, ".claude", "hooks"), { recursive: true });
  writeFileSync(join(dir, ".claude", "hooks", "hook.sh"), script);
  chmodSync(join(dir, ".claude", "hooks", "hook.sh"), 0o755);
  const settings = { hooks: { [event]: [{ ...(options.matcher ? { matcher: options.matcher } : {}), hooks: [{ type: "command", command: "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/hook.sh", timeout: 20 }] }] } };
  const source = options.source ?? "project";
  const file = source === "user" ? join(root, "home", ".claude", "settings.json") : join(dir, ".claude", "settings.json");
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(settings));
  const parsed = parseClaudeSettings(JSON.stringify(settings), file, source);
  const plan: ClaudePlan = { project: dir, hooks: parsed.hooks, refused: [], approvals: join(root, "approvals"), maxOutputBytes: 1 << 20, notices: join(root, "notices.log") };
  const store = new ApprovalStore({ dir: plan.approvals });
  const hook = plan.hooks[0]!;
  const approve = async (...grants: string[]) => store.approve(dir, [await CLAUDE_CODE.fingerprint(dir, hook)], { [hookKey(hook)]: grants });
  const route = (input: Record<string, unknown> = {}) => {
    const full = { hook_event_name: event, session_id: "s1", cwd: dir, ...input };
    return routeWith(CLAUDE_CODE, plan, full, JSON.stringify(full));
  };
  const notices = () => (existsSync(plan.notices!) ? readFileSync(plan.notices!, "utf8") : "");
  return { root, dir, plan, hook, approve, route, notices };
}
