/**
 * `hookbox claude [claude's arguments]`: starts the `claude` on PATH with Claude Code's hooks routed
 * through hookbox (src/claude/launch.ts): on Linux in a private mount namespace where Claude Code
 * loads everything it usually loads but runs only hookbox's managed routing hooks; where no
 * namespace can be made, with no settings file of its own (announced). `hookbox claude-hook`
 * runs the hooks of the user's and the project's settings by Claude Code's matching
 * (src/agents/router.ts over Claude Code's row, src/agents/claude.ts).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { findOnPath } from "../policy/runtime.js";
import { readClaudeSettings } from "../claude/settings.js";
import type { ClaudePlan } from "../claude/plan.js";
import { CLAUDE_CODE_HOOKS } from "../agents/claude.js";
import { routingHook } from "./agent-hook.js";
import { pendingApprovals } from "../agents/router.js";
import { filesNamed } from "../claude/approval.js";
import { CLAUDE_CODE } from "../claude/dialect.js";
import { agentViewAvailability, fallbackLaunch, LaunchRefused, managedLaunch, projectMcpServers, type Launch } from "../claude/launch.js";
import { powerApproved, powerValues } from "../claude/power.js";
import { ApprovalStore, approvalCommand } from "../approval/store.js";
import type { Output } from "./render.js";
import { EXIT, UsageError } from "./usage.js";
import { otlpEnv } from "../observe/otlp.js";
import { launchProblems } from "../observe/launch.js";
import { DEFAULTS } from "../../worker/wire.mjs";

export const CLAUDE_HELP = `Usage: hookbox claude [claude's arguments…]

Start Claude Code (the \`claude\` on PATH) with its hooks behind hookbox's wall. On Linux it runs in
a private mount namespace (bubblewrap; no root needed) where Claude Code loads its usual settings,
memory (CLAUDE.md), rules, skills, agents and commands, but runs only hookbox's managed routing
hooks (/etc/claude-code, read-only, allowManagedHooksOnly); the project's settings files read
without their hooks and without the keys that run code or widen permissions (env, apiKeyHelper,
statusLine, permissions.allow, ...). Where no namespace can be made, Claude Code loads no settings
file (--setting-sources "", so no memory, skills or agents either; said on stderr).

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
  const pending = await pendingApprovals(CLAUDE_CODE_HOOKS, plan);
  if (pending > 0) say(`${pending} of the project's Claude Code hooks ${pending === 1 ? "is" : "are"} not approved as ${pending === 1 ? "it is" : "they are"}: each blocks the tool calls it guards until you review and approve them with ${approvalCommand(project)}`);
  // Every failure and refusal of a hook, with the command that allows it, said again here when Claude Code ends.
  const noticesDir = mkdtempSync(join(tmpdir(), "hookbox-claude-notices-"));
  plan.notices = join(noticesDir, "notices.log");
  const router = { node: process.execPath, script: hookboxScript() };
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
    const servers = projectMcpServers(dialect, project);
    if (servers.length > 0) say(`the project's ${dialect.projectMcp.file} names MCP servers (${servers.join(", ")}): not started (each is a program from the repository, which Claude Code would start with your whole environment; hookbox does not run one yet, so its managed document denies them by name)`);
    try {
      launch = managedLaunch(dialect, available.bwrap, program, args, plan, router, views, servers);
    } catch (e) {
      if (e instanceof LaunchRefused) throw new UsageError(e.message);
      throw e;
    }
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
      child.on("close", (code, signal) => {
        if (existsSync(plan.notices!)) for (const line of new Set(readFileSync(plan.notices!, "utf8").split("\n").filter(Boolean))) say(line);
        resolve(code ?? (signal ? 128 : 1));
      });
    });
  } finally {
    launch.afterExit();
    rmSync(noticesDir, { recursive: true, force: true });
  }
}

/** Whether `command`, or a project file it names, mentions `word`. */
function mentions(project: string, command: string, word: string): boolean {
  if (command.includes(word)) return true;
  return filesNamed(project, command).some((file) => {
    try { return readFileSync(file, "utf8").includes(word); } catch { return false; }
  });
}

/** The script that started this hookbox (bin/hookbox.mjs), which the routing hook runs again. */
function hookboxScript(): string {
  return process.env.HOOKBOX_SCRIPT || process.argv[1]!;
}

/** `hookbox claude-hook <plan> <sha256>`: the routing hook's entry (src/cli/agent-hook.ts) over Claude Code's row. */
export const claudeHook = routingHook(CLAUDE_CODE_HOOKS, "claude");
