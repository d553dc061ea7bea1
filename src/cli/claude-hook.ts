/**
 * What Claude Code runs under `hookbox claude` (./claude.ts): `hookbox claude-hook` for every
 * routed event (src/agents/router.ts over Claude Code's row, src/claude/dialect.ts) and `hookbox claude-mcp` in place of each approved project
 * MCP server (src/claude/mcp-run.ts). A module of its own, loaded alone (./main.ts), because it
 * starts on every event: it loads the router, not the launcher.
 */
import { loadPlan } from "../agents/plan.js";
import type { ClaudePlan } from "../claude/plan.js";
import { CLAUDE_CODE } from "../claude/dialect.js";
import { McpRefused, runMcpServer } from "../claude/mcp-run.js";
import { routingHook } from "./agent-hook.js";
import type { Output } from "./output.js";
import { EXIT } from "./usage-error.js";

export const CLAUDE_HOOK_HELP = `Usage: hookbox claude-hook <plan file> <sha256>
       hookbox claude-mcp <plan file> <sha256> <server>

What hookbox claude's generated settings run: claude-hook for every routed event of Claude Code
(its JSON on stdin, answered as a command hook answers), claude-mcp in place of each approved MCP
server of the project's .mcp.json (the server in the sandbox, its stdio passed through). Not for
people: see hookbox claude --help.
`;

/** `hookbox claude-hook <plan> <sha256>`: one event from Claude Code on stdin, routed by the one router over Claude Code's row. */
export const claudeHook = routingHook(CLAUDE_CODE);

/**
 * `hookbox claude-mcp <plan> <sha256> <server>`: what Claude Code starts in place of an approved
 * project MCP server (the managed route's view of `.mcp.json`): the plan checked by its sha256,
 * the server's approval checked again, then the server in the sandbox, stdio passed through.
 */
export async function claudeMcp(args: string[], _out: Output, _signal?: AbortSignal, err?: Output): Promise<number> {
  try {
    if (args.length !== 3) throw new McpRefused("usage: hookbox claude-mcp <plan file> <sha256> <server> (Claude Code runs it; see hookbox claude)");
    return await runMcpServer(loadPlan<ClaudePlan>(args[0]!, args[1]!, "hookbox claude"), args[2]!);
  } catch (e) {
    err?.write(`hookbox claude-mcp: the MCP server ${args[2] ?? ""} is not started: ${(e as Error).message}\n`);
    return EXIT.hookErrors;
  }
}
