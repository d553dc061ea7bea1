/**
 * A Claude Code hook's answer: its exit status, stderr and stdout (plain text or one JSON object),
 * as Claude Code 2.1.328 reads them, parsed with zod (an unknown field or a malformed value is
 * refused, named), and held to what the hook's origin may do: a project's hook (`untrusted`,
 * effects `"restrict"`) may say no (block, deny, ask, stop) and give its reason, never make the
 * agent do something else (an edited tool input, added context, a permission granted, a turn forced
 * to continue): such an answer is `effect_refused`.
 */
import { z } from "zod";
import { Errors, HookFailure } from "../contract/errors.js";
import { tail, unanswered, type ShellOutcome } from "../shell/run.js";
import { ANNOTATE_MAX_CHARS } from "../policy/grants.js";
import { cut } from "../../worker/describe.mjs";
import type { ClaudeHookEvent } from "./settings.js";
import { permissionRequestDecision } from "../agents/answer.js";

const record = z.record(z.string(), z.unknown());
const specific = {
  PreToolUse: z.strictObject({
    hookEventName: z.literal("PreToolUse"),
    permissionDecision: z.enum(["allow", "deny", "ask", "defer"]).optional(),
    permissionDecisionReason: z.string().optional(),
    updatedInput: record.optional(),
    additionalContext: z.string().optional(),
  }),
  PermissionRequest: z.strictObject({
    hookEventName: z.literal("PermissionRequest"),
    decision: permissionRequestDecision.optional(),
  }),
  UserPromptSubmit: z.strictObject({ hookEventName: z.literal("UserPromptSubmit"), additionalContext: z.string().optional(), sessionTitle: z.string().optional(), suppressOriginalPrompt: z.boolean().optional() }),
  SessionStart: z.strictObject({ hookEventName: z.literal("SessionStart"), additionalContext: z.string().optional(), initialUserMessage: z.string().optional(), sessionTitle: z.string().optional(), watchPaths: z.array(z.string()).optional(), reloadSkills: z.boolean().optional() }),
  PostToolUse: z.strictObject({ hookEventName: z.literal("PostToolUse"), additionalContext: z.string().optional(), updatedMCPToolOutput: z.unknown().optional() }),
  PostToolUseFailure: z.strictObject({ hookEventName: z.literal("PostToolUseFailure"), additionalContext: z.string().optional() }),
  SubagentStart: z.strictObject({ hookEventName: z.literal("SubagentStart"), additionalContext: z.string().optional() }),
  Setup: z.strictObject({ hookEventName: z.literal("Setup"), additionalContext: z.string().optional() }),
  PostModelSwitch: z.strictObject({ hookEventName: z.literal("PostModelSwitch"), additionalContext: z.string().optional() }),
  PreModelSwitch: z.strictObject({ hookEventName: z.literal("PreModelSwitch"), permissionDecision: z.enum(["allow", "deny", "ask"]).optional(), permissionDecisionReason: z.string().optional() }),
} as const;
/** The events whose `hookSpecificOutput` hookbox knows; another event's is refused as unknown. */
export const SPECIFIC_OUTPUT_EVENTS = Object.keys(specific) as Array<keyof typeof specific>;

/** The JSON a command hook may print on stdout (exit 0), as Claude Code 2.1.328 defines it. */
export const claudeHookOutputSchema = z.strictObject({
  continue: z.boolean().optional(),
  suppressOutput: z.boolean().optional(),
  stopReason: z.string().optional(),
  decision: z.enum(["approve", "block"]).optional(),
  reason: z.string().optional(),
  systemMessage: z.string().optional(),
  terminalSequence: z.string().optional(),
  hookSpecificOutput: z.discriminatedUnion("hookEventName", [
    specific.PreToolUse, specific.PermissionRequest, specific.UserPromptSubmit, specific.SessionStart, specific.PostToolUse,
    specific.PostToolUseFailure, specific.SubagentStart, specific.Setup, specific.PostModelSwitch, specific.PreModelSwitch,
  ]).optional(),
});
export type ClaudeHookOutput = z.infer<typeof claudeHookOutputSchema>;

/** Events where saying no (exit 2, `decision: "block"`) stops something from happening; elsewhere it makes the agent go on (Stop) or feeds the model text. */
const BLOCK_STOPS = new Set<string>(["PreToolUse", "PermissionRequest", "UserPromptSubmit", "UserPromptExpansion", "PreCompact", "PreModelSwitch", "ConfigChange", "Elicitation", "ElicitationResult", "WorktreeCreate", "TaskCreated"]);
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

/** Events where a block makes the agent go on (`effects:continue`) rather than adding text (`effects:annotate`). */
const CONTINUES = new Set<string>(["Stop", "SubagentStop"]);
/** The grant that lets a project's hook say `field` on `event`, when one can. */
const grantFor = (event: string, field: string): string | undefined =>
  field === "exit 2" || field === "decision \"block\"" ? (CONTINUES.has(event) ? "effects:continue" : ["PostToolUse", "PostToolUseFailure"].includes(event) ? "effects:annotate" : undefined)
    : ["stdout", "systemMessage", "hookSpecificOutput.additionalContext"].includes(field) ? "effects:annotate" : undefined;
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
      const grant = grantFor(event, "exit 2");
      if (!grant || !hook.granted?.has(grant)) return fail(refused(hook, event, "exit 2", `on ${event} it would make the agent go on or feed the model the hook's text`));
      // Labelled with the hook's name already: its stderr as it is.
      return { kind: "block", reason: labelled(hook, stderr || reason) };
    }
    return { kind: "block", reason };
  }
  const text = outcome.stdout.trim();
  if (!text.startsWith("{")) {
    if (text !== "" && hook.untrusted && STDOUT_IS_CONTEXT.has(event)) {
      if (!hook.granted?.has("effects:annotate")) return fail(refused(hook, event, "stdout", "Claude Code adds it to the model's context"));
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
    if (field) return fail(refused(hook, event, field.name, field.why));
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
  const s = out.hookSpecificOutput as Record<string, unknown> | undefined;
  if (s && typeof s.additionalContext === "string") out.hookSpecificOutput = { ...s, additionalContext: labelled(hook, s.additionalContext) } as ClaudeHookOutput["hookSpecificOutput"];
  return out;
}

/** The first field of an untrusted hook's output above "restrict", or undefined. */
function substitution(event: ClaudeHookEvent, output: ClaudeHookOutput, granted: ReadonlySet<string>): { name: string; why: string } | undefined {
  const s = output.hookSpecificOutput as Record<string, unknown> | undefined;
  const given = (name: string) => { const g = grantFor(event, name); return g !== undefined && granted.has(g); };
  if (output.decision === "approve") return { name: "decision \"approve\"", why: "it grants a permission" };
  if (output.decision === "block" && !BLOCK_STOPS.has(event) && !given("decision \"block\"")) return { name: "decision \"block\"", why: `on ${event} it would make the agent go on or feed the model the hook's text` };
  if (output.systemMessage !== undefined && !given("systemMessage")) return { name: "systemMessage", why: "it speaks to the user in Claude Code's name" };
  if (output.terminalSequence !== undefined) return { name: "terminalSequence", why: "it writes to the user's terminal" };
  if (!s) return undefined;
  for (const key of ["updatedInput", "additionalContext", "updatedMCPToolOutput", "initialUserMessage", "sessionTitle", "watchPaths", "reloadSkills", "updatedPermissions"]) {
    if (s[key] !== undefined && !given(`hookSpecificOutput.${key}`)) return { name: `hookSpecificOutput.${key}`, why: key === "updatedInput" ? "it rewrites the tool's input" : "it changes what the agent does or reads" };
  }
  const decision = s.permissionDecision;
  if (decision === "allow" || decision === "defer") return { name: `hookSpecificOutput.permissionDecision "${decision}"`, why: "it grants a permission or takes the decision away" };
  const behavior = (s.decision as { behavior?: string; updatedInput?: unknown } | undefined);
  if (behavior?.behavior === "allow") return { name: "hookSpecificOutput.decision.behavior \"allow\"", why: "it grants a permission" };
  if (behavior?.updatedInput !== undefined) return { name: "hookSpecificOutput.decision.updatedInput", why: "it rewrites the tool's input" };
  return undefined;
}

function refused(hook: HookLabel, event: string, field: string, why: string): HookFailure {
  const kept = event === "PreToolUse" ? "the tool call was blocked" : "the hook's answer was dropped";
  const grant = grantFor(event, field);
  const then = grant
    ? ` To allow it, grant ${grant}: ${hook.allow ? hook.allow(grant) : `npx hookbox trust <project> --grant ${grant}`}`
    : " No grant allows it for a project's hook.";
  return new HookFailure("effect_refused", hook.name, event,
    `${hook.name} answered ${field} during ${event}, a ${grant ? grant.slice("effects:".length) : "substitute"} effect (${why}), which a project's hook does not get unless granted (policy.effects "restrict": it may block, deny or ask, with a reason); it was not applied (${kept}).${then}`);
}
