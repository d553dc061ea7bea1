/**
 * The plan the launcher hands every `hookbox claude-hook` run: which hooks, the approvals folder,
 * the bounds and the routing hook's timeout. Its own file so that the router and what it calls
 * (./project-run.ts) both read it without importing each other.
 */
import type { ClaudeHook, RefusedHook } from "./settings.js";

/** What the launcher hands every `claude-hook` run (a file only the user can read). */
export interface ClaudePlan {
  project: string;
  hooks: ClaudeHook[];
  refused: RefusedHook[];
  /** The approvals folder (default: the user's config folder). */
  approvals?: string;
  /** Largest stdout, and largest stderr, of one hook, in bytes. */
  maxOutputBytes: number;
  /** A file the launcher prints on its stderr when Claude Code ends: every failure and refusal, with what to do. */
  notices?: string;
  /** The launcher's OTEL_EXPORTER_OTLP_* variables, which Claude Code does not pass to hooks: the router exports its spans with them (src/observe/otlp.ts). */
  otel?: Record<string, string>;
  /** The routing hook's timeout Claude Code was given, in seconds (default: routerTimeoutS(hooks)). */
  timeoutS?: number;
}
