/**
 * A Claude Code hook's answer: its exit status, stderr and stdout (plain text or one JSON object),
 * as Claude Code 2.1.328 reads them, parsed with zod (an unknown field or a malformed value is
 * refused, named), and held to what the hook's origin may do: a project's hook (`untrusted`,
 * effects `"restrict"`) may say no (block, deny, ask, stop) and give its reason, never make the
 * agent do something else (an edited tool input, added context, a permission granted, a turn forced
 * to continue) unless its approval grants that class: such an answer is `effect_refused`. Each
 * field's schema and class is one row of ./output-fields.ts.
 */
import { Errors, HookFailure } from "../contract/errors.js";
import { tail, unanswered, type ShellOutcome } from "../shell/run.js";
import { ANNOTATE_MAX_CHARS } from "../policy/grants.js";
import { cut } from "../../worker/describe.mjs";
import type { ClaudeHookEvent } from "./settings.js";
import { BLOCK_STOPS, claudeHookOutputSchema, NOT_ROUTED_FIELDS, effectOf, SPECIFIC_FIELDS, TOP_FIELDS, blockEffect, type ClaudeHookOutput, type FieldEffect, type OutputField } from "./output-fields.js";

export { claudeHookOutputSchema, type ClaudeHookOutput } from "./output-fields.js";

/** Events whose plain stdout on exit 0 Claude Code adds to the model's context. */
const STDOUT_IS_CONTEXT = new Set<string>(["UserPromptSubmit", "SessionStart", "Setup", "SubagentStart"]);

/** What one hook's run means for the event. */
export type HookAnswer = (
  | { kind: "ok"; output?: ClaudeHookOutput; text?: string }
  | { kind: "block"; reason: string }
  | { kind: "failed"; failure: HookFailure }
) & { notices?: string[]; approved?: string };

/** The exit statuses Claude Code reads as an answer: 0, and 2 (a block). */
const CLAUDE_READS: ReadonlySet<number> = new Set([0, 2]);

/**
 * A label for a hook in messages: where it is defined, and `command`, its own command (how Claude
 * Code names it). `granted`: the effects its approval grants above "restrict" (`effects:annotate`,
 * `effects:continue`); `allow(grant)`: the command that would grant one, for the refusal; `short`:
 * its name in the text it adds for the model.
 */
export interface HookLabel { name: string; untrusted: boolean; command?: string; granted?: ReadonlySet<string>; allow?: (grant: string) => string; short?: string }

/** The grant that lets a project's hook have an effect of `cls`, when one can. */
const GRANTS: Partial<Record<FieldEffect, string>> = { annotate: "effects:annotate", continue: "effects:continue" };
const labelled = (hook: HookLabel, text: string) => `[${hook.short ?? hook.name}] ${cut(text, ANNOTATE_MAX_CHARS)}`;

/** Read a finished run as Claude Code would, then apply the effects rule for an untrusted hook. */
export function interpretRun(hook: HookLabel, event: ClaudeHookEvent, outcome: ShellOutcome): HookAnswer {
  const fail = (failure: HookFailure): HookAnswer => ({ kind: "failed", failure });
  const failure = unanswered(hook.name, event, outcome, CLAUDE_READS);
  if (failure || outcome.kind !== "exited") return fail(failure!);
  if (outcome.code === 2) {
    // Claude Code's reading: `[command]: stderr`; without stderr, the reason of a JSON answer on stdout; else it names the command.
    const stderr = tail(outcome.stderr);
    const reason = stderr ? (hook.command ? `[${hook.command}]: ${stderr}` : stderr) : jsonReason(outcome.stdout) || `[${hook.command ?? hook.name}]: No stderr output`;
    if (hook.untrusted && !BLOCK_STOPS.has(event)) {
      const grant = GRANTS[blockEffect(event)];
      if (!grant || !hook.granted?.has(grant)) return fail(refused(hook, event, "exit 2", `on ${event} it would make the agent go on or feed the model the hook's text`, grant));
      // Labelled with the hook's name already: its stderr as it is.
      return { kind: "block", reason: labelled(hook, stderr || reason) };
    }
    return { kind: "block", reason };
  }
  const text = outcome.stdout.trim();
  if (!text.startsWith("{")) {
    if (text !== "" && hook.untrusted && STDOUT_IS_CONTEXT.has(event)) {
      if (!hook.granted?.has("effects:annotate")) return fail(refused(hook, event, "stdout", "Claude Code adds it to the model's context", GRANTS.annotate));
      return { kind: "ok", text: labelled(hook, text) };
    }
    return { kind: "ok", ...(text ? { text } : {}) };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return fail(Errors.invalidResult(hook.name, event, `stdout starts with "{" but is not JSON (${(err as Error).message}): ${tail(text, 200)}`));
  }
  const unrouted = typeof value === "object" && value !== null ? Object.keys(value).find((k) => Object.hasOwn(NOT_ROUTED_FIELDS, k)) : undefined;
  if (unrouted) return fail(Errors.invalidResult(hook.name, event, `its answer's ${unrouted} is ${NOT_ROUTED_FIELDS[unrouted]}`));
  const parsed = claudeHookOutputSchema.safeParse(value);
  if (!parsed.success) {
    return fail(Errors.invalidResult(hook.name, event, `not a Claude Code hook output: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(output)"}: ${i.message}`).join("; ")}`));
  }
  const output = parsed.data;
  if (output.hookSpecificOutput && output.hookSpecificOutput.hookEventName !== event) {
    return fail(Errors.invalidResult(hook.name, event, `hookSpecificOutput.hookEventName is "${output.hookSpecificOutput.hookEventName}" during ${event}`));
  }
  if (hook.untrusted) {
    const field = substitution(event, output, hook.granted ?? new Set());
    if (field) return fail(refused(hook, event, field.name, field.why, field.grant));
    return { kind: "ok", output: annotated(hook, output) };
  }
  return { kind: "ok", output };
}

/** The reason a JSON answer on stdout gives (`reason`, `permissionDecisionReason`, `stopReason`), if any. */
function jsonReason(stdout: string): string | undefined {
  const text = stdout.trim();
  if (!text.startsWith("{")) return undefined;
  let value: unknown;
  try { value = JSON.parse(text); } catch { return undefined; }
  if (typeof value !== "object" || value === null) return undefined;
  const o = value as Record<string, unknown>;
  const specific = (typeof o.hookSpecificOutput === "object" && o.hookSpecificOutput !== null ? o.hookSpecificOutput : {}) as Record<string, unknown>;
  const found = [o.reason, specific.permissionDecisionReason, o.stopReason].find((v) => typeof v === "string" && v.trim() !== "");
  return found === undefined ? undefined : tail(found as string);
}

/** A granted hook's added text, each labelled with its name and bounded. */
function annotated(hook: HookLabel, output: ClaudeHookOutput): ClaudeHookOutput {
  const out = { ...output };
  if (out.systemMessage !== undefined) out.systemMessage = labelled(hook, out.systemMessage);
  if (out.decision === "block" && out.reason !== undefined) out.reason = labelled(hook, out.reason);
  const s = out.hookSpecificOutput;
  if (s && typeof s.additionalContext === "string") out.hookSpecificOutput = { ...s, additionalContext: labelled(hook, s.additionalContext) };
  return out;
}

/** The first field of an untrusted hook's output above "restrict" that its grants do not cover, or undefined. */
function substitution(event: ClaudeHookEvent, output: ClaudeHookOutput, granted: ReadonlySet<string>): { name: string; why: string; grant?: string } | undefined {
  const specific = output.hookSpecificOutput;
  const rows: Array<[string, Readonly<Record<string, OutputField>>, Record<string, unknown>]> = [["", TOP_FIELDS, output as Record<string, unknown>]];
  if (specific) rows.push(["hookSpecificOutput.", (SPECIFIC_FIELDS as Record<string, Record<string, OutputField>>)[specific.hookEventName] ?? {}, specific]);
  for (const [prefix, row, values] of rows) {
    for (const [key, f] of Object.entries(row)) {
      const value = values[key];
      if (value === undefined) continue;
      const cls = effectOf(f, value, event);
      if (cls === "observe" || cls === "restrict") continue;
      const grant = GRANTS[cls];
      if (grant && granted.has(grant)) continue;
      return { name: `${prefix}${key}${said(f, value)}`, why: f.why, ...(grant ? { grant } : {}) };
    }
  }
  return undefined;
}

/** The value a class depends on, as messages name it (`permissionDecision "allow"`, `decision.behavior "allow"`). */
function said(f: OutputField, value: unknown): string {
  if (typeof f.effect !== "function") return "";
  if (typeof value === "string") return ` "${value}"`;
  const behavior = (value as { behavior?: unknown }).behavior;
  return typeof behavior === "string" ? `.behavior "${behavior}"` : "";
}

function refused(hook: HookLabel, event: string, field: string, why: string, grant: string | undefined): HookFailure {
  const kept = event === "PreToolUse" ? "the tool call was blocked" : "the hook's answer was dropped";
  const then = grant
    ? ` To allow it, grant ${grant}: ${hook.allow ? hook.allow(grant) : `npx hookbox trust <project> --grant ${grant}`}`
    : " No grant allows it for a project's hook.";
  return new HookFailure("effect_refused", hook.name, event,
    `${hook.name} answered ${field} during ${event}, a ${grant ? grant.slice("effects:".length) : "substitute"} effect (${why}), which a project's hook does not get unless granted (policy.effects "restrict": it may block, deny or ask, with a reason); it was not applied (${kept}).${then}`);
}
