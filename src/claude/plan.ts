/**
 * The plan the launcher hands every `hookbox claude-hook` run: which hooks, the approvals folder,
 * the bounds and the routing hook's timeout. Its own file so that the router and what it calls
 * (./project-run.ts) both read it without importing each other. Its sha256 is part of the routing
 * hook's command, which lives where the model cannot write (the read-only managed settings file, or
 * Claude Code's own arguments on the fallback route), so a plan rewritten on disk is refused (the
 * call blocked), never followed.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
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
  /** Where the project reads without the read-only views of the managed route (a hook's recording layer is made from it). */
  projectSource?: string;
}

/** The plan's text and its sha256 (hex); any launcher's plan (`hookbox codex` and `gemini` pin theirs the same way). */
export function planText(plan: object): { text: string; sha256: string } {
  const text = JSON.stringify(plan);
  return { text, sha256: sha256(text) };
}

const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

/** Read the plan `launcher` wrote at `file`; throws, naming the file, if its sha256 is not `expected`. */
export function loadPlan<P = ClaudePlan>(file: string, expected: string, launcher = "hookbox claude"): P {
  const bytes = readFileSync(file);
  const actual = sha256(bytes);
  if (actual !== expected) throw new Error(`the plan ${file} is not the one ${launcher} wrote (sha256 ${actual.slice(0, 12)}…, expected ${expected.slice(0, 12)}…): it was changed after the start; restart ${launcher}`);
  return JSON.parse(bytes.toString("utf8")) as P;
}
