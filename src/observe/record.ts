/**
 * The decision record: one shape for every hook call and every decision of the wall (a block, a
 * refusal by policy, a module not approved, a fault), wherever it was made (the library's runner,
 * `isolate()` inside an agent, `hookbox claude`'s router). The audit log stores it as one JSON line,
 * OpenTelemetry spans carry it as attributes, `hookbox log` reads it back. Every string is bounded,
 * so no hook makes a record large; what a hook wrote (inputs, outputs, reasons, its own error text)
 * is in `content`, and only when content was asked for.
 */
import { z } from "zod";
import { HOOK_ERROR_CODES } from "../contract/errors.js";

/**
 * What came of one hook call or wall decision:
 * - `allowed`: the hook ran and did not stop anything;
 * - `blocked`: the hook itself blocked the tool call (or cancelled the event);
 * - `failed`: the hook failed (`code`); in a tool call that fails closed, `blocked` is true;
 * - `refused`: the wall refused the hook or part of its answer (`effect_refused`, `not_approved`, a module that did not load);
 * - `skipped`: the hook was disabled or restarting, so the event went on without it;
 * - `dropped`: the audit log's own record of records it dropped over its rate (`dropped` is how many).
 */
export const OUTCOMES = ["allowed", "blocked", "failed", "refused", "skipped", "dropped"] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** Where the hook ran: hookbox's three modes, a hand-built hook in the host's process, a Claude Code user hook run as the user. */
export const ISOLATIONS = ["worker", "process", "sandbox", "in-process", "as-user"] as const;
export type RecordIsolation = (typeof ISOLATIONS)[number];

/** What the hook's answer did to the agent: nothing, less (block, cancel), or something else (its result or edits applied). */
export const RECORD_EFFECTS = ["observe", "restrict", "annotate", "substitute"] as const;

/** The most of one content value kept (characters of its JSON); the rest is cut with a marker. */
export const MAX_CONTENT_CHARS = 8_192;
const text = (max: number) => z.string().max(max);

export const decisionRecordSchema = z.strictObject({
  /** The record shape's version. */
  v: z.literal(1),
  /** When the call started (ISO 8601, UTC). */
  time: text(40),
  /** Who made the call: `library` (an embedder's HookRunner), `pi`, `omp` (`isolate()`), `claude` (`hookbox claude`). */
  agent: text(32),
  /** The project (working folder) the agent ran in. */
  project: text(4096).optional(),
  /** The hook: its path as configured (a Claude Code hook: `<settings file>#<index>`), and the digest of the approval it ran under, for a project's approved hook. */
  hook: z.strictObject({ path: text(4096), hash: text(128).optional() }).optional(),
  /** The event, by the agent's name for it (`tool_call`, `PreToolUse`, `load` for a module refused before any event). */
  event: text(128),
  /** The tool call the event is about. */
  tool: z.strictObject({ name: text(256).optional(), callId: text(256).optional() }).optional(),
  isolation: z.enum(ISOLATIONS).optional(),
  /** The hook's policy: a preset's name, or `custom`. */
  policy: text(64).optional(),
  effect: z.enum(RECORD_EFFECTS).optional(),
  outcome: z.enum(OUTCOMES),
  /** Whether what the event was about was stopped (the tool call did not run, the event was cancelled). */
  blocked: z.boolean(),
  /** The HookError code, for `failed`, `refused` and `skipped`. */
  code: z.enum(HOOK_ERROR_CODES).optional(),
  /** How long the hook took, in milliseconds. */
  durationMs: z.number().nonnegative().optional(),
  /** The hook's deadline for this event, in milliseconds (for a `timeout`). */
  limitMs: z.number().nonnegative().optional(),
  /** hookbox's own words for why (never text a hook wrote). */
  why: text(2_000).optional(),
  /** What would allow it: the command to type, or the grant or option to give. */
  allow: text(1_024).optional(),
  /** For `dropped`: how many records were dropped. */
  dropped: z.number().int().nonnegative().optional(),
  /** Only when content was asked for: what the hook received and answered, and its reason or error text, each cut to MAX_CONTENT_CHARS. */
  content: z.strictObject({ input: z.unknown().optional(), output: z.unknown().optional(), reason: text(MAX_CONTENT_CHARS + 16).optional() }).optional(),
});

export type DecisionRecord = z.infer<typeof decisionRecordSchema>;
/** Who receives records (`runner.onRecord`, the audit log, the OpenTelemetry bridge). */
export type RecordListener = (record: DecisionRecord) => void;

/** `s` cut to `max` characters, with a marker saying so. */
export function cutText(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}…[cut ${s.length - max}]`;
}

/** A value for `content`: itself when its JSON is small, else its JSON cut (a string). */
export function contentValue(value: unknown): unknown {
  if (value === undefined) return undefined;
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    return "[not JSON]";
  }
  if (json === undefined) return undefined;
  return json.length <= MAX_CONTENT_CHARS ? JSON.parse(json) : cutText(json, MAX_CONTENT_CHARS);
}

/** Codes whose HookError message is hookbox's own words; the others quote what the hook wrote (its throw, its output). */
const OWN_WORDS = new Set<string>(["timeout", "unresponsive", "out_of_memory", "disabled", "restarting", "effect_refused", "not_approved", "result_too_large", "load_failed"]);
export const isOwnWords = (code: string): boolean => OWN_WORDS.has(code);
