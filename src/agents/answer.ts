/**
 * The parts of an answer every agent's row builds the same way: a hook's text as the model or the
 * person reads it (terminal controls removed, a reason cut), failures named one by one up to a
 * bound, and the merge of outputs in Claude Code's shape, which Codex CLI copies (decision,
 * stopReason, hookSpecificOutput with a permission decision won by the strictest), and the
 * PermissionRequest decision of that shape.
 */
import { z } from "zod";
import type { HookFailure } from "../contract/errors.js";
import { terminalText } from "../gates/terminal-text.js";
import { cut } from "../../worker/describe.mjs";

/** The most of one hook's reason (a block, a decision, a stop) the model reads, as for pi's hooks. */
export const MAX_REASON_CHARS = 1000;
/** The most failures named one by one in an answer: a project of many hooks must not flood the model's context (or push a guard's reason out of it). */
const MAX_NAMED_FAILURES = 10;

/** A text a hook wrote, as the model or the person reads it: terminal controls removed (newlines and tabs kept), a reason cut. */
export const hookText = (text: string, max?: number): string => terminalText(max === undefined ? text : cut(text, max), { colors: false, multiline: true });

/** The given texts as one (a reason's each cut to MAX_REASON_CHARS), or undefined when none is given. */
export function joinTexts(values: Array<string | undefined>, reasons?: boolean): string | undefined {
  const given = values.filter((v): v is string => v !== undefined).map((v) => hookText(v, reasons ? MAX_REASON_CHARS : undefined));
  return given.length > 0 ? given.join("\n") : undefined;
}

export const describeFailure = (f: HookFailure): string => `${f.message} (${f.code})`;

/** Failures as the model reads them: the first ones in full, the rest counted by code (a refused hook's reason counts as "not run"). */
export function named(failures: Array<HookFailure | string>): string[] {
  const text = (f: HookFailure | string) => (typeof f === "string" ? f : describeFailure(f));
  if (failures.length <= MAX_NAMED_FAILURES) return failures.map(text);
  const rest = new Map<string, number>();
  for (const f of failures.slice(MAX_NAMED_FAILURES)) {
    const code = typeof f === "string" ? "not run" : f.code;
    rest.set(code, (rest.get(code) ?? 0) + 1);
  }
  return [...failures.slice(0, MAX_NAMED_FAILURES).map(text), `…and ${failures.length - MAX_NAMED_FAILURES} more hooks: ${[...rest].map(([code, n]) => `${code} ×${n}`).join(", ")}.`];
}

/** The fields of Claude Code's hook output the merge reads (Codex CLI's output has the same). */
interface DecisionShape {
  continue?: boolean;
  suppressOutput?: boolean;
  stopReason?: string;
  decision?: string;
  reason?: string;
  systemMessage?: string;
  hookSpecificOutput?: object;
}

/**
 * Merge outputs of Claude Code's shape: any `continue: false` or block wins; texts are joined; a
 * permission decision is the latest of `order` any hook gave (`["allow", "ask", "deny"]`: deny over
 * ask over allow), with the reasons of the hooks that gave it.
 */
export function mergeDecisions<O extends DecisionShape>(outputs: O[], order: readonly string[], join = joinTexts): O {
  const out: DecisionShape = {};
  if (outputs.some((o) => o.continue === false)) out.continue = false;
  if (outputs.some((o) => o.suppressOutput)) out.suppressOutput = true;
  const stopReason = join(outputs.map((o) => o.stopReason), true);
  if (stopReason) out.stopReason = stopReason;
  const decision = outputs.some((o) => o.decision === "block") ? "block" : outputs.some((o) => o.decision === "approve") ? "approve" : undefined;
  if (decision) {
    out.decision = decision;
    const reason = join(outputs.filter((o) => o.decision === decision).map((o) => o.reason), true);
    if (reason) out.reason = reason;
  }
  const systemMessage = join(outputs.map((o) => o.systemMessage));
  if (systemMessage) out.systemMessage = systemMessage;
  const specifics = outputs.flatMap((o) => (o.hookSpecificOutput ? [o.hookSpecificOutput as Record<string, unknown>] : []));
  if (specifics.length > 0) {
    const s: Record<string, unknown> = Object.assign({}, ...specifics);
    const context = join(specifics.map((x) => x.additionalContext as string | undefined));
    if (context) s.additionalContext = context;
    const decisions = specifics.map((x) => x.permissionDecision).filter((d): d is string => typeof d === "string" && order.includes(d));
    if (decisions.length > 0) {
      const winner = decisions.reduce((a, b) => (order.indexOf(b) > order.indexOf(a) ? b : a));
      s.permissionDecision = winner;
      const reason = join(specifics.filter((x) => x.permissionDecision === winner).map((x) => x.permissionDecisionReason as string | undefined), true);
      if (reason) s.permissionDecisionReason = reason;
      else delete s.permissionDecisionReason;
    }
    out.hookSpecificOutput = s;
  }
  return out as O;
}

/** A PermissionRequest hook's `decision`, in Claude Code's shape, which Codex CLI copies (src/claude/output.ts, ./codex.ts). */
export const permissionRequestDecision = z.strictObject({
  behavior: z.enum(["allow", "deny"]),
  updatedInput: z.record(z.string(), z.unknown()).optional(),
  updatedPermissions: z.array(z.unknown()).optional(),
  message: z.string().optional(),
  interrupt: z.boolean().optional(),
});
