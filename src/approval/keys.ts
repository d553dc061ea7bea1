/**
 * The keys of the approvals store for what a project's settings define, each spelled here once
 * with the predicate that recognises it: a command hook (Claude Code's, Codex CLI's, Gemini CLI's)
 * by where it is defined, `<settings file>#hooks.<event>[i].hooks[j]`; a project MCP server, which
 * is approved as a command hook is, `<.mcp.json>#mcpServers.<name>`. A module's key is its path.
 * A leaf: the settings readers name each hook's place with it without loading the approval checks.
 */

/**
 * The hook's key in the approvals store, its path in decision records (src/observe/launch.ts) and
 * what names its `once` marker (src/agents/once.ts): where it is defined. Messages name a hook by
 * the same `file#at` (labels, "is not run"), spelled where they are written.
 */
export const hookKey = (hook: { file: string; at: string }): string => `${hook.file}#${hook.at}`;

/** Where in its settings file a command hook is defined: the `index`th hook of the `group`th group of `event` (every agent's settings reader spells it so). */
export const hookAt = (event: string, group: number, index: number): string => `hooks.${event}[${group}].hooks[${index}]`;

/**
 * Whether a key of the approvals store is a command hook's (`hookKey` of a `hookAt`), not a
 * module's (its path) nor an MCP server's: it ends with where the hook is defined.
 */
export const isHookKey = (key: string): boolean => /#hooks\.[^#[\]/]+\[\d+\]\.hooks\[\d+\]$/.test(key);

/** A project MCP server's key in the approvals store (src/claude/mcp.ts): the file that defines it and its name. */
export const mcpKey = (server: { file: string; name: string }): string => `${server.file}#mcpServers.${server.name}`;

/**
 * Whether a key of the approvals store is an MCP server's (`mcpKey`): a server's name is free
 * text, so what is checked is the marker after the JSON file that defines it.
 */
export const isMcpKey = (key: string): boolean => /\.json#mcpServers\./.test(key);

/** The key of what a project's file gives an agent beyond its hooks (its power keys, an env file, a skill's shell): one per file (./power-item.ts). */
export const powerKey = (file: string): string => `${file}#power`;
