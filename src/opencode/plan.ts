/**
 * What `hookbox opencode` hands the trusted plugin it loads into opencode (a file only the user can
 * read, named by HOOKBOX_OPENCODE_PLAN): the plugins opencode would have loaded, in its order, and
 * how to run them.
 */
import type { PluginUnit } from "./discovery.js";

export interface OpencodePlan {
  /** The worktree's root (what a project's plugin may read, read-only, in its sandbox). */
  project: string;
  /** The opencode binary, which is Bun with BUN_BE_BUN=1: the plugins' runtime. */
  bun: string;
  /** src/opencode/child.mjs (or its built copy). */
  child: string;
  /** The approvals folder (default: the user's config folder). */
  approvals?: string;
  /** Each hook call's deadline, in ms. */
  deadlineMs: number;
  plugins: PluginUnit[];
}

/** The policy a project's opencode plugin is approved for and runs under. */
export const OPENCODE_PROJECT_POLICY = "untrusted";
export const DEFAULT_DEADLINE_MS = 5000;
/** Loading a plugin (Bun's start, the import, its `server()`): a longer deadline than a hook's. */
export const LOAD_DEADLINE_MS = 15_000;
