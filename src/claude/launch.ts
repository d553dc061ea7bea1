/**
 * How `hookbox claude` starts the agent, on one of two routes (docs/claude-code.md):
 *
 * - managed (Linux, the default): the agent with its usual settings sources, in a private mount
 *   namespace where its managed folder holds hookbox's read-only document (every non-managed hook
 *   off, one routing hook per event), the plan beside it, and the project's settings files read
 *   as read-only views without their hooks and their power keys; the project's `.mcp.json` too,
 *   holding only its approved servers, each stdio one started as `hookbox claude-mcp` (./mcp.ts).
 * - fallback (no namespace can be made): the agent loads no settings file (so no memory, skills or
 *   agents either) and gets one generated on its command line: the user's settings without hooks,
 *   the project's deny and ask rules, and the routing hooks; the plan sits in a private temp folder.
 *
 * On both, the routing hook's command carries the plan's sha256 (src/agents/plan.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentViewLaunch, type FileView } from "../isolation/bubblewrap/agent-view.js";

export { agentViewAvailability } from "../isolation/bubblewrap/agent-view.js";
import type { ClaudeDialect } from "./dialect.js";
import { withoutKeys } from "../agents/dotted.js";
import { mcpView as projectMcpView, type McpServer } from "./mcp.js";
import { planText } from "../agents/plan.js";
import type { ClaudePlan } from "./plan.js";
import { routingCommand, type Hookbox } from "../agents/routing-hook.js";
import { routerTimeoutS } from "./router.js";
import { viewTarget } from "../agents/view-target.js";
import type { SkillView } from "./skill-view.js";

export { LaunchRefused } from "../agents/view-target.js";
import type { ParsedSettings } from "./settings.js";


/** Where the managed route also shows the project, without its views. */
const PROJECT_COPY = "/etc/.hookbox-project";

/** A started route: `afterSpawn` once the agent was spawned (or failed to), `afterExit` once it ended. */
export interface Launch { route: "managed" | "fallback"; command: string; args: string[]; stdio: Array<"inherit" | number>; afterSpawn(): void; afterExit(): void }

/** The settings fragment with one routing hook for every event the plan has a hook (or a refused hook) for. */
export function routingHooks(dialect: ClaudeDialect, plan: ClaudePlan, router: Hookbox, planFile: string, sha256: string): Record<string, unknown> {
  const events = dialect.events.filter((e) => plan.hooks.some((h) => h.event === e) || plan.refused.some((r) => r.event === e));
  const command = routingCommand(dialect, router, planFile, sha256);
  return Object.fromEntries(events.map((e) => {
    // Claude Code shows one routing hook's statusMessage while it runs: the event's hooks' own, joined.
    const status = [...new Set(plan.hooks.filter((h) => h.event === e && h.statusMessage).map((h) => h.statusMessage!))].join("; ");
    return [e, [{ hooks: [{ type: "command", command, timeout: plan.timeoutS ?? routerTimeoutS(plan.hooks), ...(status ? { statusMessage: status } : {}) }] }]];
  }));
}

/** A project settings file as the agent reads it on the managed route: no hooks (hookbox runs them), its power keys only if approved. */
export function projectView(dialect: ClaudeDialect, parsed: ParsedSettings, powerApproved: boolean): Record<string, unknown> {
  if (parsed.problems.length > 0) return {};
  return withoutKeys(parsed.settings, ["hooks", ...(powerApproved ? [] : dialect.powerKeys)]);
}

/** What the managed route does with the project's MCP servers: a view of its file holding the approved ones, the rest denied by name. */
export interface McpLaunch { file?: string; document?: Record<string, unknown>; approved: McpServer[]; denied: string[] }

/**
 * The managed route. `projectFiles`: each existing project settings file with its parse, and whether
 * its power keys are approved; `skills`: the project's skills, commands and agents shown without their
 * power parts (./skill-view.ts).
 */
export function managedLaunch(dialect: ClaudeDialect, bwrap: string, program: string, args: string[], plan: ClaudePlan, router: Hookbox, projectFiles: Array<{ path: string; parsed: ParsedSettings; powerApproved: boolean }>, mcp: McpLaunch, skills: SkillView[] = []): Launch {
  const mcpView = mcp.file && mcp.document ? mcp.file : undefined;
  // A project hook's (or server's) recording layer cannot be made from a folder holding the views: it reads this copy.
  const source = projectFiles.length > 0 || mcpView || skills.length > 0 ? { source: plan.project, path: PROJECT_COPY } : undefined;
  const stdio = mcp.approved.filter((s) => s.kind === "stdio");
  plan = { ...plan, ...(source ? { projectSource: source.path } : {}), ...(stdio.length > 0 ? { mcp: Object.fromEntries(stdio.map((s) => [s.name, { file: s.file, entry: s.entry }])) } : {}) };
  const { text, sha256 } = planText(plan);
  const planFile = `${dialect.managedDir}/${dialect.planFile}`;
  const managed = { ...dialect.managedOnly, ...(mcp.denied.length > 0 ? dialect.projectMcp.deny(mcp.denied) : {}), hooks: routingHooks(dialect, plan, router, planFile, sha256) };
  // Each approved stdio server starts as `hookbox claude-mcp`, which checks the plan by its sha256, as the routing hook does.
  const wrap = (name: string) => ({ command: router.node, args: [router.script, "claude-mcp", planFile, sha256, name] });
  const files: FileView[] = [
    // First, so that a settings view on the same file (a link) is bound last and wins.
    ...skills.map((f) => ({ path: viewTarget(dialect.launcher, f.root, f.path, f.kind.label), content: f.content })),
    { path: `${dialect.managedDir}/${dialect.managedFile}`, content: JSON.stringify(managed, null, 2) },
    { path: planFile, content: text },
    ...projectFiles.map((f) => ({ path: viewTarget(dialect.launcher, plan.project, f.path), content: JSON.stringify(projectView(dialect, f.parsed, f.powerApproved), null, 2) })),
    ...(mcpView ? [{ path: viewTarget(dialect.launcher, plan.project, mcpView), content: JSON.stringify(projectMcpView(mcp.document!, mcp.approved, wrap), null, 2) }] : []),
  ];
  const view = agentViewLaunch(bwrap, files, program, args, source ? [source] : []);
  return { route: "managed", command: view.command, args: view.args, stdio: view.stdio, afterSpawn: view.close, afterExit: () => {} };
}

/** The fallback route: `user` without hooks, the project's deny and ask rules, the routing hooks; the plan in a private temp folder. */
export function fallbackLaunch(dialect: ClaudeDialect, program: string, args: string[], plan: ClaudePlan, router: Hookbox, user: ParsedSettings, project: ParsedSettings[]): Launch {
  const dir = mkdtempSync(join(tmpdir(), "hookbox-claude-"));
  const { text, sha256 } = planText(plan);
  const planFile = join(dir, "plan.json");
  writeFileSync(planFile, text, { mode: 0o600 });
  const settings = fallbackSettings(user, project, routingHooks(dialect, plan, router, planFile, sha256));
  return { route: "fallback", command: program, args: [...dialect.fallbackArgs(JSON.stringify(settings)), ...args], stdio: ["inherit", "inherit", "inherit"], afterSpawn: () => {}, afterExit: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The one settings document of the fallback route. */
export function fallbackSettings(user: ParsedSettings, project: ParsedSettings[], hooks: Record<string, unknown>): Record<string, unknown> {
  const { hooks: _hooks, ...rest } = user.settings;
  const permissions = { ...(rest.permissions as Record<string, unknown> | undefined) };
  for (const rule of ["deny", "ask"] as const) {
    const rules = [...(Array.isArray(permissions[rule]) ? (permissions[rule] as unknown[]) : []), ...project.flatMap((p) => {
      const v = (p.settings.permissions as Record<string, unknown> | undefined)?.[rule];
      return Array.isArray(v) ? v : [];
    })];
    if (rules.length > 0) permissions[rule] = rules;
  }
  return { ...rest, ...(Object.keys(permissions).length > 0 ? { permissions } : {}), hooks };
}
