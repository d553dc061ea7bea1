/**
 * What differs between agents whose hooks hookbox routes, as one row per agent: where the agent
 * reads its settings and its managed (administrator) layer, the key of that layer that keeps every
 * non-managed hook from running, the settings keys that run code or widen what the agent may do,
 * and the command-line route used where no private mount namespace can be made. Claude Code is the
 * one row today; the launcher (launch.ts) and the router read only this table.
 */
import { CLAUDE_HOOK_EVENTS } from "./settings.js";

export interface AgentDialect {
  /** The agent's name in messages. */
  name: string;
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
  /** Hook events, in the agent's order. */
  events: readonly string[];
  /** Arguments hookbox sets itself (refused on the command line). */
  reservedArgs: readonly string[];
  /** The arguments of the route without a namespace: the agent loads no settings file, and gets `settings` (JSON) instead. */
  fallbackArgs: (settings: string) => string[];
  /** What the agent does not load on that route, for the announcement. */
  fallbackLoses: string;
}

export const CLAUDE_CODE: AgentDialect = {
  name: "Claude Code",
  program: "claude",
  managedDir: "/etc/claude-code",
  // Claude Code 2.1.328 reads managed-settings.json, then managed-settings.d/*.json sorted by name,
  // concatenating their hooks; "~" sorts after every ASCII name, so hookbox's document is read last.
  managedFile: "managed-settings.d/~hookbox.json",
  managedOnly: { allowManagedHooksOnly: true },
  planFile: "hookbox-plan.json",
  projectSettings: [".claude/settings.json", ".claude/settings.local.json"],
  powerKeys: [
    "env", "statusLine", "apiKeyHelper", "awsAuthRefresh", "awsCredentialExport", "otelHeadersHelper", "gcpAuthRefresh",
    "enableAllProjectMcpServers", "enabledMcpjsonServers", "enabledPlugins", "extraKnownMarketplaces", "pluginConfigs",
    "permissions.allow", "permissions.additionalDirectories", "permissions.defaultMode",
    "forceLoginMethod", "forceLoginOrgUUID", "fileSuggestion", "sandbox", "skipDangerousModePermissionPrompt",
  ],
  envFileEvents: ["SessionStart", "Setup", "CwdChanged", "FileChanged"],
  envFileVariable: "CLAUDE_ENV_FILE",
  projectMcp: { file: ".mcp.json", deny: (names) => ({ deniedMcpServers: names.map((serverName) => ({ serverName })) }) },
  events: CLAUDE_HOOK_EVENTS,
  reservedArgs: ["--settings", "--setting-sources"],
  fallbackArgs: (settings) => ["--setting-sources", "", "--settings", settings],
  fallbackLoses: "no CLAUDE.md memory (the project's, .claude/rules/*.md, ~/.claude/CLAUDE.md), no skills, agents, commands or output styles of the project or of ~/.claude",
};
