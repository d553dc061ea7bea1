/**
 * What Claude Code is to hookbox, as one row: its row of the one router's dialect table
 * (src/agents/dialect.ts: its events, what fails closed, how it names the project to a hook and how
 * a hook that cannot be approved should be written, with the routing members that read Claude
 * Code's own rules from ./router.ts), and what its launcher (./launch.ts) reads: where the agent
 * reads its settings and its managed (administrator) layer, the key of that layer that keeps every
 * non-managed hook from running, the settings keys that run code or widen what the agent may do,
 * and the command-line route used where no private mount namespace can be made. Read from Claude
 * Code 2.1.328.
 */
import type { Dialect } from "../agents/dialect.js";
import type { ClaudeHookOutput } from "./output.js";
import type { ClaudePlan } from "./plan.js";
import { claudeDialect, type ClaudeRouting } from "./router.js";
import { CLAUDE_HOOK_EVENTS, type ClaudeHook } from "./settings.js";

/** Claude Code's row: the router's members and the launcher's. */
export interface ClaudeDialect extends Dialect<ClaudeHookOutput, ClaudeHook, ClaudePlan> {
  /** The program on PATH. */
  program: string;
  /** The folder of the agent's managed settings on Linux. */
  managedDir: string;
  /** The file of that folder hookbox provides (the agent merges it with the machine's own managed files). */
  managedFile: string;
  /** What hookbox's managed file sets besides the routing hooks: only managed hooks run. */
  managedOnly: Record<string, unknown>;
  /** Where the plan the router follows is bound read-only, inside the managed folder. */
  planFile: string;
  /** The project's settings files, relative to the project. */
  projectSettings: readonly string[];
  /** Settings keys (dotted) of a project's file that run code or widen what the agent may do: kept only once approved. */
  powerKeys: readonly string[];
  /** Events on which the agent hands hooks a file whose `export` lines it sources before every shell command. */
  envFileEvents: readonly string[];
  /** That file's variable. */
  envFileVariable: string;
  /** The project's file of MCP servers (each one a program from the repository), and how the managed document denies them by name. */
  projectMcp: { file: string; deny: (names: string[]) => Record<string, unknown> };
  /** Arguments hookbox sets itself (refused on the command line). */
  reservedArgs: readonly string[];
  /** The arguments of the route without a namespace: the agent loads no settings file, and gets `settings` (JSON) instead. */
  fallbackArgs: (settings: string) => string[];
  /** What the agent does not load on that route, for the announcement. */
  fallbackLoses: string;
}

export const CLAUDE_CODE: ClaudeDialect = claudeDialect<Omit<ClaudeDialect, keyof ClaudeRouting>>({
  agent: "Claude Code",
  recordAs: "claude",
  launcher: "claude",
  program: "claude",
  events: CLAUDE_HOOK_EVENTS,
  failClosed: new Set(["PreToolUse", "PermissionRequest"]),
  projectDirVars: ["CLAUDE_PROJECT_DIR"],
  approvableForm: 'put what it runs in a script of the project and name it: bash "$CLAUDE_PROJECT_DIR"/.claude/hooks/<name>.sh',
  managedDir: "/etc/claude-code",
  // Claude Code 2.1.328 reads managed-settings.json, then managed-settings.d/*.json sorted by name,
  // concatenating their hooks; "~" sorts after every ASCII name, so hookbox's document is read last.
  managedFile: "managed-settings.d/~hookbox.json",
  managedOnly: { allowManagedHooksOnly: true },
  planFile: "hookbox-plan.json",
  projectSettings: [".claude/settings.json", ".claude/settings.local.json"],
  // Every key of Claude Code's own list of settings that run a command (its binary holds it; test/claude-power-keys.test.ts reads it), then those that widen what it may do.
  powerKeys: [
    "env", "statusLine", "subagentStatusLine", "apiKeyHelper", "proxyAuthHelper", "awsAuthRefresh", "awsCredentialExport", "otelHeadersHelper", "gcpAuthRefresh",
    "processWrapper", "policyHelper", "policyHelpers", "ripgrep",
    "enableAllProjectMcpServers", "enabledMcpjsonServers", "enabledPlugins", "extraKnownMarketplaces", "pluginConfigs",
    "permissions.allow", "permissions.additionalDirectories", "permissions.defaultMode",
    "forceLoginMethod", "forceLoginOrgUUID", "fileSuggestion", "sandbox", "skipDangerousModePermissionPrompt",
  ],
  envFileEvents: ["SessionStart", "Setup", "CwdChanged", "FileChanged"],
  envFileVariable: "CLAUDE_ENV_FILE",
  projectMcp: { file: ".mcp.json", deny: (names) => ({ deniedMcpServers: names.map((serverName) => ({ serverName })) }) },
  reservedArgs: ["--settings", "--setting-sources"],
  fallbackArgs: (settings) => ["--setting-sources", "", "--settings", settings],
  fallbackLoses: "no CLAUDE.md memory (the project's, .claude/rules/*.md, ~/.claude/CLAUDE.md), no skills, agents, commands or output styles of the project or of ~/.claude",
});
