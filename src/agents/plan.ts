/**
 * The plan a launcher hands every routing run (`hookbox claude-hook`, `codex-hook`, `gemini-hook`):
 * which hooks, the approvals folder, the bounds and the routing hook's timeout. Its own file so
 * that the router and what it calls (a row's project run) both read it without importing each
 * other. Its sha256 is part of the routing hook's command, which lives where the model cannot write
 * (a read-only settings or requirements view, or Claude Code's own arguments on its fallback
 * route), so a plan rewritten on disk is refused (the call blocked), never followed.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

/** What a launcher hands every routing run (a file only the user can read): ./router.ts reads it. */
export interface Plan<Hook, Refused> {
  project: string;
  hooks: Hook[];
  refused: Refused[];
  /** The approvals folder (default: the user's config folder). */
  approvals?: string;
  /** Largest stdout, and largest stderr, of one hook, in bytes. */
  maxOutputBytes: number;
  /** A file the launcher prints on its stderr when the agent ends: every failure and refusal, with what to do. */
  notices?: string;
  /** The launcher's OTEL_EXPORTER_OTLP_* variables, which an agent need not pass to hooks (Claude Code does not): the router exports its spans with them (src/observe/otlp.ts). */
  otel?: Record<string, string>;
  /** The routing hook's timeout the agent was given, in seconds (default: routerTimeoutMs of the hooks' timeouts). */
  timeoutS?: number;
}

/** The plan's text and its sha256 (hex); every launcher pins its plan this way. */
export function planText(plan: object): { text: string; sha256: string } {
  const text = JSON.stringify(plan);
  return { text, sha256: sha256(text) };
}

const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

/** Read the plan `launcher` wrote at `file`; throws, naming the file, if its sha256 is not `expected`. */
export function loadPlan<P>(file: string, expected: string, launcher: string): P {
  const bytes = readFileSync(file);
  const actual = sha256(bytes);
  if (actual !== expected) throw new Error(`the plan ${file} is not the one ${launcher} wrote (sha256 ${actual.slice(0, 12)}…, expected ${expected.slice(0, 12)}…): it was changed after the start; restart ${launcher}`);
  return JSON.parse(bytes.toString("utf8")) as P;
}
