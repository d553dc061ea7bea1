/**
 * `hookbox claude [claude's arguments]`: starts the `claude` on PATH so that it loads no settings
 * file itself (`--setting-sources ""`: Claude Code 2.1.328 then reads neither the user's, the
 * project's nor the local settings) and gets one generated settings file instead (`--settings`):
 * the user's settings without their hooks, the project's permission deny and ask rules, and for
 * every event that any hook of the user's or the project's settings handles, one hook: `hookbox
 * claude-hook <plan>`, which runs those hooks by Claude Code's matching (src/claude/router.ts).
 * The project's other settings (its env, statusLine, apiKeyHelper, allow rules, ...) are not loaded,
 * and the launcher says so.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { findOnPath } from "../policy/runtime.js";
import { readClaudeSettings, CLAUDE_HOOK_EVENTS, type ParsedSettings } from "../claude/settings.js";
import { routeEvent, routerTimeoutS, type ClaudePlan } from "../claude/router.js";
import { checkProjectHooks } from "../claude/approval.js";
import { approvalCommand } from "../approval/store.js";
import type { Output } from "./render.js";
import { EXIT, UsageError } from "./usage.js";
import { otlpEnv, withOtlp } from "../observe/otlp.js";
import { launchProblems } from "../observe/launch.js";
import { DEFAULTS } from "../../worker/wire.mjs";

export const CLAUDE_HELP = `Usage: hookbox claude [claude's arguments…]

Start Claude Code (the \`claude\` on PATH) with its hooks behind hookbox's wall: Claude Code loads
no settings file itself (--setting-sources "") and gets a generated one (--settings): your
~/.claude/settings.json without its hooks, plus one hook per event that runs \`hookbox claude-hook\`.
That runs the hooks of your settings and of the project's (.claude/settings.json and
.claude/settings.local.json) with Claude Code's matching: yours as you, without secret-looking
variables; the project's only as approved by \`hookbox trust <project>\`, in the bubblewrap sandbox
(no network, the project read-only, none of your files or variables), and they may block or ask,
never rewrite a tool call or add context (effect_refused). On PreToolUse a hook that fails, times
out, prints malformed output or is refused blocks the call (fail closed).

Every other argument goes to claude unchanged; --settings and --setting-sources are hookbox's.
Alias: alias claude='npx hookbox claude'
`;

/** Settings of the project that run code or widen what Claude Code may do, which the launcher does not load. */
const NOT_LOADED = ["env", "statusLine", "apiKeyHelper", "awsAuthRefresh", "awsCredentialExport", "otelHeadersHelper", "enableAllProjectMcpServers", "enabledMcpjsonServers", "enabledPlugins", "permissions.allow", "permissions.additionalDirectories", "permissions.defaultMode", "forceLoginMethod", "outputStyle", "model"];

function claudeConfigDir(): string {
  return process.env.CLAUDE_CONFIG_DIR || join(process.env.HOME || homedir(), ".claude");
}

const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/** Run `hookbox claude`; resolves with claude's exit code. */
export async function claude(args: string[], _out: Output, _signal?: AbortSignal, err?: Output): Promise<number> {
  if (args[0] === "--help" && args.length === 1) { _out.write(CLAUDE_HELP); return EXIT.ok; }
  for (const a of args) {
    if (a === "--settings" || a.startsWith("--settings=") || a === "--setting-sources" || a.startsWith("--setting-sources=")) {
      throw new UsageError(`${a.split("=")[0]} is set by hookbox claude (it is how Claude Code is kept from running the project's hooks itself); put your settings in ~/.claude/settings.json`);
    }
  }
  const program = findOnPath("claude");
  if (!program) throw new UsageError("no `claude` on PATH: install Claude Code (npm install -g @anthropic-ai/claude-code)");
  const project = process.cwd();
  const user = readClaudeSettings(join(claudeConfigDir(), "settings.json"), "user");
  const shared = readClaudeSettings(join(project, ".claude", "settings.json"), "project");
  const local = readClaudeSettings(join(project, ".claude", "settings.local.json"), "local");
  const say = (line: string) => err?.write(`hookbox claude: ${line}\n`);
  for (const p of [user, shared, local]) for (const problem of p.problems) say(problem);
  for (const p of [shared, local]) {
    const skipped = NOT_LOADED.filter((key) => has(p.settings, key));
    const file = p === shared ? ".claude/settings.json" : ".claude/settings.local.json";
    if (skipped.length > 0) say(`the project's ${file} sets ${skipped.join(", ")}: not loaded (hookbox claude loads only its hooks, and its permission deny and ask rules)`);
  }
  if (existsSync(join(project, ".mcp.json")) && !args.includes("--strict-mcp-config")) {
    say("the project's .mcp.json names MCP servers: Claude Code starts those you approved in Claude Code itself, outside hookbox's sandbox; pass --strict-mcp-config to start none of them");
  }
  const all = [user, shared, local];
  const plan: ClaudePlan = {
    project,
    hooks: all.flatMap((p) => p.hooks),
    refused: all.flatMap((p) => p.refused),
    maxOutputBytes: DEFAULTS.shellOutputBytes,
    otel: otlpEnv(),
  };
  for (const r of plan.refused) say(`${r.file}#${r.at} is not run: ${r.reason}`);
  for (const problem of launchProblems()) say(problem);
  const pending = await pendingApprovals(plan);
  if (pending > 0) say(`${pending} of the project's Claude Code hooks ${pending === 1 ? "is" : "are"} not approved as ${pending === 1 ? "it is" : "they are"}: each blocks the tool calls it guards until you review and approve them with ${approvalCommand(project)}`);
  const dir = mkdtempSync(join(tmpdir(), "hookbox-claude-"));
  try {
    const planFile = join(dir, "plan.json");
    // Every failure and refusal of a hook, with the command that allows it, said again here when Claude Code ends.
    plan.notices = join(dir, "notices.log");
    writeFileSync(planFile, JSON.stringify(plan), { mode: 0o600 });
    const settingsFile = join(dir, "settings.json");
    writeFileSync(settingsFile, JSON.stringify(generatedSettings(user, [shared, local], plan, planFile)), { mode: 0o600 });
    return await new Promise<number>((resolve) => {
      const child = spawn(program, ["--setting-sources", "", "--settings", settingsFile, ...args], { stdio: "inherit", env: process.env });
      child.on("error", (e) => { say(`claude could not be started: ${e.message}`); resolve(EXIT.hookErrors); });
      child.on("close", (code, signal) => {
        if (existsSync(plan.notices!)) for (const line of new Set(readFileSync(plan.notices!, "utf8").split("\n").filter(Boolean))) say(line);
        resolve(code ?? (signal ? 128 : 1));
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** How many of the project's hooks the approvals store does not approve as they are now. */
async function pendingApprovals(plan: ClaudePlan): Promise<number> {
  const checks = await Promise.all(checkProjectHooks(plan.project, plan.hooks.filter((h) => h.source !== "user")));
  return checks.filter((c) => c !== undefined).length;
}

function has(settings: Record<string, unknown>, key: string): boolean {
  const [a, b] = key.split(".");
  const v = settings[a!];
  return b === undefined ? v !== undefined : typeof v === "object" && v !== null && (v as Record<string, unknown>)[b] !== undefined;
}

/** The one settings file Claude Code reads: the user's without hooks, the project's deny and ask rules, and the routing hooks. */
export function generatedSettings(user: ParsedSettings, project: ParsedSettings[], plan: ClaudePlan, planFile: string): Record<string, unknown> {
  const { hooks: _hooks, ...rest } = user.settings;
  const permissions = { ...(rest.permissions as Record<string, unknown> | undefined) };
  for (const rule of ["deny", "ask"] as const) {
    const rules = [...(Array.isArray(permissions[rule]) ? (permissions[rule] as unknown[]) : []), ...project.flatMap((p) => {
      const v = (p.settings.permissions as Record<string, unknown> | undefined)?.[rule];
      return Array.isArray(v) ? v : [];
    })];
    if (rules.length > 0) permissions[rule] = rules;
  }
  const events = CLAUDE_HOOK_EVENTS.filter((e) => plan.hooks.some((h) => h.event === e) || plan.refused.some((r) => r.event === e));
  const command = `${quote(process.execPath)} ${quote(hookboxScript())} claude-hook ${quote(planFile)}`;
  return {
    ...rest,
    ...(Object.keys(permissions).length > 0 ? { permissions } : {}),
    hooks: Object.fromEntries(events.map((e) => [e, [{ hooks: [{ type: "command", command, timeout: routerTimeoutS(plan.hooks) }] }]])),
  };
}

/** The script that started this hookbox (bin/hookbox.mjs), which the routing hook runs again. */
function hookboxScript(): string {
  return process.env.HOOKBOX_SCRIPT || process.argv[1]!;
}

/**
 * `hookbox claude-hook <plan>`: one event from Claude Code on stdin; answers as a command hook
 * does. Any failure of its own blocks on PreToolUse (exit 2), elsewhere is a non-blocking error.
 */
export async function claudeHook(args: string[], out: Output, _signal?: AbortSignal, err: Output = out): Promise<number> {
  let event = "PreToolUse";
  try {
    if (args.length !== 1) throw new Error("usage: hookbox claude-hook <plan file> (Claude Code runs it; see hookbox claude)");
    const plan = JSON.parse(readFileSync(args[0]!, "utf8")) as ClaudePlan;
    const raw = readFileSync(0, "utf8");
    const input = JSON.parse(raw) as Record<string, unknown>;
    event = String(input.hook_event_name);
    const answer = await withOtlp(() => routeEvent(plan, input, raw, { spentMs: performance.now() }), { ...process.env, ...plan.otel });
    if (answer.stdout) out.write(answer.stdout);
    if (answer.stderr) err.write(`${answer.stderr}\n`);
    return answer.code;
  } catch (e) {
    err.write(`hookbox claude-hook failed, so ${event === "PreToolUse" ? "this tool call is blocked" : "no hook ran"}: ${(e as Error).message}\n`);
    return event === "PreToolUse" || event === "PermissionRequest" ? 2 : 1;
  }
}
