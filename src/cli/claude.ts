/**
 * `hookbox claude [claude's arguments]`: starts the `claude` on PATH with Claude Code's hooks routed
 * through hookbox (src/claude/launch.ts): on Linux in a private mount namespace where Claude Code
 * loads everything it usually loads but runs only hookbox's managed routing hooks; where no
 * namespace can be made, with no settings file of its own (announced). What Claude Code then runs
 * (`hookbox claude-hook`, `hookbox claude-mcp`) is ./claude-hook.ts: the one router
 * (src/agents/router.ts) over Claude Code's row (src/claude/dialect.ts).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { findOnPath } from "../policy/runtime.js";
import { readClaudeSettings, type ClaudeHook } from "../claude/settings.js";
import type { ClaudePlan } from "../claude/plan.js";
import { thisHookbox } from "../agents/routing-hook.js";
import { pendingApprovals } from "../agents/router.js";
import { filesNamed } from "../approval/command-hook.js";
import { hookKey } from "../approval/keys.js";
import { CLAUDE_CODE } from "../claude/dialect.js";
import { agentViewAvailability, fallbackLaunch, managedLaunch, type Launch, type McpLaunch } from "../claude/launch.js";
import { checkMcpServers, describeMcpServer, readProjectMcp } from "../claude/mcp.js";
import { powerApproved, powerValues } from "../claude/power.js";
import { projectSkillViews } from "../claude/skill-view.js";
import { viewApproval } from "../claude/skill-approval.js";
import { ApprovalStore, approvalCommand, projectKey } from "../approval/store.js";
import type { Output } from "./output.js";
import { EXIT, UsageError } from "./usage-error.js";
import { otlpEnv } from "../observe/otlp.js";
import { launchProblems } from "../observe/launch.js";
import { DEFAULTS } from "../../worker/wire.mjs";

export const CLAUDE_HELP = `Usage: hookbox claude [claude's arguments…]

Start Claude Code (the \`claude\` on PATH) with its hooks behind hookbox's wall. On Linux it runs in
a private mount namespace (bubblewrap; no root needed) where Claude Code loads its usual settings,
memory (CLAUDE.md), rules, skills, agents and commands, but runs only hookbox's managed routing
hooks (/etc/claude-code, read-only, allowManagedHooksOnly); the project's settings files read
without their hooks and without the keys that run code or widen permissions (env, apiKeyHelper,
statusLine, permissions.allow, ...), and the project's .mcp.json read with only its servers approved
by \`hookbox trust\`, each stdio one started in the bubblewrap sandbox (the rest denied by name).
Where no namespace can be made, Claude Code loads no settings file (--setting-sources "", so no
memory, skills, agents or project MCP servers either; said on stderr).

\`hookbox claude-hook\` runs the hooks of your settings and of the project's (.claude/settings.json
and .claude/settings.local.json) with Claude Code's matching: yours as you, without secret-looking
variables; the project's only as approved by \`hookbox trust <project>\`, in the bubblewrap sandbox
(no network, the project read-only, none of your files or variables), and they may block or ask,
never rewrite a tool call or add context (effect_refused). On PreToolUse a hook that fails, times
out, prints malformed output or is refused blocks the call (fail closed).

Every other argument goes to claude unchanged; --settings and --setting-sources are hookbox's.
HOOKBOX_NO_NAMESPACE=1 takes the route without a namespace.
Alias: alias claude='npx hookbox claude'
`;

function claudeConfigDir(): string {
  return process.env.CLAUDE_CONFIG_DIR || join(process.env.HOME || homedir(), ".claude");
}

/** Run `hookbox claude`; resolves with claude's exit code. */
export async function claude(args: string[], _out: Output, _signal?: AbortSignal, err?: Output): Promise<number> {
  const dialect = CLAUDE_CODE;
  if (args[0] === "--help" && args.length === 1) { _out.write(CLAUDE_HELP); return EXIT.ok; }
  for (const a of args) {
    if (dialect.reservedArgs.some((r) => a === r || a.startsWith(`${r}=`))) {
      throw new UsageError(`${a.split("=")[0]} is set by hookbox claude (it is how Claude Code is kept from running the project's hooks itself); put your settings in ~/.claude/settings.json`);
    }
  }
  const program = findOnPath(dialect.program);
  if (!program) throw new UsageError("no `claude` on PATH: install Claude Code (npm install -g @anthropic-ai/claude-code)");
  const project = process.cwd();
  const user = readClaudeSettings(join(claudeConfigDir(), "settings.json"), "user");
  const projectFiles = dialect.projectSettings.map((rel) => ({ rel, path: join(project, rel), parsed: readClaudeSettings(join(project, rel), rel.endsWith(".local.json") ? "local" : "project") }));
  const say = (line: string) => err?.write(`hookbox claude: ${line}\n`);
  for (const p of [user, ...projectFiles.map((f) => f.parsed)]) for (const problem of p.problems) say(problem);
  const all = [user, ...projectFiles.map((f) => f.parsed)];
  const plan: ClaudePlan = {
    project,
    hooks: all.flatMap((p) => p.hooks),
    refused: all.flatMap((p) => p.refused),
    maxOutputBytes: DEFAULTS.shellOutputBytes,
    otel: otlpEnv(),
  };
  const fatal = plan.refused.filter((r) => r.fatal);
  if (fatal.length > 0) throw new UsageError(fatal.map((r) => `${r.file}#${r.at}: ${r.reason}; hookbox claude does not start while it is there (a guard it cannot select as Claude Code would): fix or remove the rule`).join("\n"));
  for (const r of plan.refused) say(`${r.file}#${r.at} is not run: ${r.reason}`);
  for (const h of plan.hooks) {
    if (h.source === "user" || !dialect.envFileEvents.includes(h.event) || !mentions(project, h.command, dialect.envFileVariable)) continue;
    say(`${h.file}#${h.at} (\`${h.command}\`) writes to $${dialect.envFileVariable}, which hookbox does not give a project's hook (its exports would reach every command the model runs): it runs without it`);
  }
  for (const problem of launchProblems()) say(problem);
  // Hooks never approved are found from the store alone, and said now; whether an approved one changed needs its
  // command parsed and its files hashed, which runs beside Claude Code's start and is said when it ends.
  const { never, approved } = approvalsFound(plan);
  const pendingLine = (n: number) => `${n} of the project's Claude Code hooks ${n === 1 ? "is" : "are"} not approved as ${n === 1 ? "it is" : "they are"}: each blocks the tool calls it guards until you review and approve them with ${approvalCommand(project)}`;
  if (never > 0) say(pendingLine(never));
  // Every failure and refusal of a hook, with the command that allows it, said again here when Claude Code ends.
  const noticesDir = mkdtempSync(join(tmpdir(), "hookbox-claude-notices-"));
  plan.notices = join(noticesDir, "notices.log");
  const router = thisHookbox();
  const available = agentViewAvailability();
  let launch: Launch;
  if (available.ok) {
    const store = new ApprovalStore();
    const views = await Promise.all(projectFiles.filter((f) => existsSync(f.path)).map(async (f) => {
      const values = powerValues(dialect, f.parsed.settings);
      const keys = Object.keys(values);
      const approved = keys.length > 0 && await powerApproved(store, project, f.path, values);
      if (keys.length > 0 && !approved) say(`the project's ${f.rel} sets ${keys.join(", ")}: not loaded (they run code or widen what Claude Code may do) until you review and approve them with ${approvalCommand(project)}`);
      return { ...f, powerApproved: approved };
    }));
    const mcp = await projectMcp(project, store, say);
    const skills = await Promise.all(projectSkillViews(project).map(async (f) => {
      const { approved, changed } = await viewApproval(store, project, f);
      if (approved) return { ...f, content: f.original };
      const them = f.power.length > 1 ? "them" : "it";
      say(`the project's ${f.rel} has ${f.power.join(" and ")}: shown to Claude Code without ${them} (${f.kind.why}); ${changed ? "it changed since you approved it: review it and approve it again" : `review ${them} and approve`} with ${approvalCommand(project)}`);
      return f;
    }));
    launch = managedLaunch(dialect, available.bwrap, program, args, plan, router, views, mcp, skills);
  } else {
    say(`no private mount namespace (${available.reason}), so Claude Code runs with --setting-sources "": it loads ${dialect.fallbackLoses}, and of the project's settings only the permission deny and ask rules`);
    for (const f of projectFiles) {
      const skipped = Object.keys(powerValues(dialect, f.parsed.settings));
      if (skipped.length > 0) say(`the project's ${f.rel} sets ${skipped.join(", ")}: not loaded`);
    }
    if (existsSync(join(project, dialect.projectMcp.file))) say(`the project's ${dialect.projectMcp.file} names MCP servers: not started (Claude Code reads no project settings on this route)`);
    launch = fallbackLaunch(dialect, program, args, plan, router, user, projectFiles.map((f) => f.parsed));
  }
  try {
    return await new Promise<number>((resolve) => {
      let child;
      try {
        child = spawn(launch.command, launch.args, { stdio: launch.stdio, env: process.env });
      } finally {
        launch.afterSpawn();
      }
      child.on("error", (e) => { say(`claude could not be started: ${e.message}`); resolve(EXIT.hookErrors); });
      // A check that cannot run says nothing here: the router refuses each such hook by name when it runs.
      const changed = pendingApprovals(CLAUDE_CODE, { ...plan, hooks: approved }).catch(() => 0);
      child.on("close", async (code, signal) => {
        const n = await changed;
        if (n > 0) say(pendingLine(n).replace("not approved as", "changed since you approved, so not approved as"));
        if (existsSync(plan.notices!)) for (const line of new Set(readFileSync(plan.notices!, "utf8").split("\n").filter(Boolean))) say(line);
        resolve(code ?? (signal ? 128 : 1));
      });
    });
  } finally {
    launch.afterExit();
    rmSync(noticesDir, { recursive: true, force: true });
  }
}

/**
 * The project's MCP servers on the managed route: each approved one started (a stdio one in the
 * sandbox), every other denied by name, with why and the command that approves it.
 */
async function projectMcp(project: string, store: ApprovalStore, say: (line: string) => void): Promise<McpLaunch> {
  const found = readProjectMcp(project, CLAUDE_CODE.projectMcp.file);
  for (const problem of found.problems) say(problem);
  let verdicts: Array<{ message: string; code: string } | undefined>;
  try {
    verdicts = await checkMcpServers(store, project, found.servers);
  } catch (e) {
    verdicts = found.servers.map(() => ({ message: `its approval could not be checked (${(e as Error).message})`, code: "not_approved" }));
  }
  const approved = found.servers.filter((_, i) => verdicts[i] === undefined);
  found.servers.forEach((s, i) => {
    const why = verdicts[i];
    if (why) say(`the project's MCP server ${s.name} (${describeMcpServer(project, s)}) is not started: ${why.message.replace(/^.*? was not loaded: /, "")} (${why.code})`);
  });
  // Claude Code reads the files from / down, a nearer server replacing one of the same name: the project's replaces any above.
  const above = found.above.filter((s) => !found.servers.some((p) => p.name === s.name));
  for (const s of above) say(`the MCP server ${s.name} of ${s.file}, above the project, is denied by name: hookbox trust approves the project's own servers only`);
  return { ...(found.file ? { file: found.file } : {}), ...(found.document ? { document: found.document } : {}), approved, denied: [...new Set([...found.servers.filter((s) => !approved.includes(s)), ...above].map((s) => s.name))] };
}

/** Whether `command`, or a project file it names, mentions `word`. */
function mentions(project: string, command: string, word: string): boolean {
  if (command.includes(word)) return true;
  return filesNamed(project, command, CLAUDE_CODE.projectDirVars).some((file) => {
    try { return readFileSync(file, "utf8").includes(word); } catch { return false; }
  });
}

/** The project's hooks the approvals store has no approval for (`never`, a count), and those it has one for. */
function approvalsFound(plan: ClaudePlan): { never: number; approved: ClaudeHook[] } {
  const hooks = plan.hooks.filter((h) => h.source !== "user");
  let modules: Record<string, unknown> = {};
  try {
    modules = new ApprovalStore(plan.approvals ? { dir: plan.approvals } : {}).read().projects[projectKey(plan.project)]?.modules ?? {};
  } catch { /* a corrupt store approves nothing: every hook is refused by name when it runs */ }
  const approved = hooks.filter((h) => Object.hasOwn(modules, hookKey(h)));
  return { never: hooks.length - approved.length, approved };
}
