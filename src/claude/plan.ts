/**
 * The plan `hookbox claude` hands every `claude-hook` (and `claude-mcp`) run: every launcher's plan
 * (src/agents/plan.ts: written, pinned by its sha256 and checked the same way) with what only
 * Claude Code's launcher adds, the project's source behind its read-only views and its approved
 * MCP servers.
 */
import type { Plan } from "../agents/plan.js";
import type { ClaudeHook, RefusedHook } from "./settings.js";

/** What `hookbox claude` hands every `claude-hook` run. */
export interface ClaudePlan extends Plan<ClaudeHook, RefusedHook> {
  /** Where the project reads without the read-only views of the managed route (a hook's recording layer is made from it). */
  projectSource?: string;
  /** The project's approved stdio MCP servers by name, each as its `.mcp.json` wrote it (`hookbox claude-mcp` runs one: ./mcp-run.ts). */
  mcp?: Record<string, { file: string; entry: Record<string, unknown> }>;
}

