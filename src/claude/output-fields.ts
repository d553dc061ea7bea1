/**
 * Every field of a Claude Code hook's JSON answer, as Claude Code 2.1.328 validates it (its zod
 * schema of a hook's output, in its binary: test/claude-output-fields.test.ts reads it and compares),
 * each with its schema and its effect class, once: `observe` (nothing changes), `restrict` (the agent
 * does less: block, deny, ask, stop, with a reason), `annotate` (text for the model or the user
 * beside the agent's own: the grant `effects:annotate`), `continue` (the agent goes on where it would
 * stop: `effects:continue`), `substitute` (the agent does or reads something else: never granted to
 * a project's hook). A class may depend on the value (`permissionDecision: "deny"` restricts,
 * `"allow"` substitutes) and on the event (a block stops a tool call, but makes a Stop go on).
 * The schema of ./output.ts and the effect gate are both built from these rows.
 */
import { z } from "zod";
import type { ClaudeHookEvent } from "./settings.js";

export type FieldEffect = "observe" | "restrict" | "annotate" | "continue" | "substitute";
/** One field: its schema, its class (or how its value and the event decide it), and why, said when a project's hook is refused it. */
export interface OutputField {
  schema: z.ZodType;
  effect: FieldEffect | ((value: unknown, event: string) => FieldEffect);
  why: string;
  /** Claude Code requires it (its schema has no `.optional()`). */
  required?: true;
}
const field = (schema: z.ZodType, effect: OutputField["effect"], why: string, required?: true): OutputField => ({ schema, effect, why, ...(required ? { required } : {}) });

/** Events where saying no (exit 2, `decision: "block"`) stops something from happening; elsewhere it makes the agent go on (Stop) or feeds the model text. */
export const BLOCK_STOPS: ReadonlySet<string> = new Set(["PreToolUse", "PermissionRequest", "UserPromptSubmit", "UserPromptExpansion", "PreCompact", "PreModelSwitch", "ConfigChange", "Elicitation", "ElicitationResult", "WorktreeCreate", "TaskCreated"]);
/** Events where a block, or added context, makes the agent go on rather than stop. */
export const CONTINUES: ReadonlySet<string> = new Set(["Stop", "SubagentStop"]);
/** Events where a block feeds the model the hook's text (its reason beside the tool's result). */
const BLOCK_ANNOTATES: ReadonlySet<string> = new Set(["PostToolUse", "PostToolUseFailure"]);

/** What a block means on `event`. */
export const blockEffect = (event: string): FieldEffect =>
  BLOCK_STOPS.has(event) ? "restrict" : CONTINUES.has(event) ? "continue" : BLOCK_ANNOTATES.has(event) ? "annotate" : "substitute";

const record = z.record(z.string(), z.unknown());
const text = z.string();
const says = (...restricting: string[]) => (value: unknown): FieldEffect => (restricting.includes(value as string) ? "restrict" : "substitute");
const context = field(text, "annotate", "it adds text to the model's context");
// Claude Code 2.1.328 delivers a Stop's or SubagentStop's additionalContext to the model "and the conversation continues so the model can act on it".
const goOn = field(text, "continue", "the agent goes on to act on it instead of stopping");
const watchPaths = field(z.array(text), "substitute", "it makes the agent watch files and run FileChanged hooks on them");
const suppressOriginalPrompt = field(z.boolean(), "restrict", "it leaves the prompt out of a block's message");
const elicitation = {
  action: field(z.enum(["accept", "decline", "cancel"]), says("decline", "cancel"), "it answers the MCP server's request for the user"),
  content: field(record, "substitute", "it answers the MCP server's request for the user"),
};

/** The fields of the answer itself, beside `hookSpecificOutput`. */
export const TOP_FIELDS: Readonly<Record<string, OutputField>> = {
  continue: field(z.boolean(), (v) => (v === false ? "restrict" : "observe"), "it stops the agent"),
  suppressOutput: field(z.boolean(), "observe", "it hides the hook's stdout from the transcript"),
  stopReason: field(text, "restrict", "the reason of a stop"),
  decision: field(z.enum(["approve", "block"]), (v, event) => (v === "approve" ? "substitute" : blockEffect(event)),
    "it grants a permission, or makes the agent go on or feeds the model the hook's text"),
  reason: field(text, "restrict", "the reason of a block"),
  systemMessage: field(text, "annotate", "it speaks to the user in Claude Code's name"),
  terminalSequence: field(text, "substitute", "it writes to the user's terminal"),
};

/** Each event's `hookSpecificOutput` fields (besides `hookEventName`), keyed by the events of ./settings.ts (an event Claude Code gives no such output has no row). */
export const SPECIFIC_FIELDS = {
  PreToolUse: {
    updatedInput: field(record, "substitute", "it rewrites the tool's input"),
    additionalContext: context,
    // Claude Code reads it only from an SDK host's own hook; from any other it would put a hook's words on the user's permission card.
    permissionDisplay: field(z.unknown(), "substitute", "it words the user's permission card"),
    permissionDecision: field(z.enum(["allow", "deny", "ask", "defer"]), says("deny", "ask"), "it grants a permission or takes the decision away"),
    permissionDecisionReason: field(text, "restrict", "the reason of a decision"),
  },
  UserPromptSubmit: {
    additionalContext: context,
    sessionTitle: field(text, "substitute", "it renames the session"),
    suppressOriginalPrompt,
  },
  UserPromptExpansion: { additionalContext: context, suppressOriginalPrompt },
  SessionStart: {
    additionalContext: context,
    initialUserMessage: field(text, "substitute", "it sends a message in the user's name"),
    sessionTitle: field(text, "substitute", "it renames the session"),
    watchPaths,
    reloadSkills: field(z.boolean(), "substitute", "it loads skills the hook installed"),
  },
  Setup: { additionalContext: context },
  PreModelSwitch: {
    permissionDecision: field(z.enum(["allow", "deny", "ask"]), says("deny", "ask"), "it grants the switch without the user's confirmation"),
    permissionDecisionReason: field(text, "restrict", "the reason of a decision"),
  },
  PostModelSwitch: { additionalContext: context },
  SubagentStart: { additionalContext: context },
  PostToolUse: {
    additionalContext: context,
    updatedToolOutput: field(z.unknown(), "substitute", "it replaces the tool's result the model reads"),
    updatedMCPToolOutput: field(z.unknown(), "substitute", "it replaces the tool's result the model reads"),
    classifierContext: field(text, "substitute", "the permission classifier may weigh it as the user's intent"),
  },
  PostToolUseFailure: { additionalContext: context },
  PostToolBatch: { additionalContext: context },
  Stop: { additionalContext: goOn },
  SubagentStop: { additionalContext: goOn },
  // Claude Code 2.1.328 then tells the model "The PermissionDenied hook indicated you may retry this tool call." (after an
  // auto-mode classifier's denial): a sentence for the model; the retried call is checked again.
  PermissionDenied: { retry: field(z.boolean(), (v) => (v === true ? "annotate" : "observe"), "it tells the model it may retry the denied call") },
  Notification: { additionalContext: context },
  PermissionRequest: {
    decision: field(z.discriminatedUnion("behavior", [
      z.strictObject({ behavior: z.literal("allow"), updatedInput: record.optional(), updatedPermissions: z.array(z.unknown()).optional() }),
      z.strictObject({ behavior: z.literal("deny"), message: text.optional(), interrupt: z.boolean().optional() }),
    ]), (v) => ((v as { behavior?: string }).behavior === "deny" ? "restrict" : "substitute"), "it grants a permission (and may rewrite the input or add rules)", true),
  },
  Elicitation: elicitation,
  ElicitationResult: elicitation,
  CwdChanged: { watchPaths },
  FileChanged: { watchPaths },
  WorktreeCreate: { worktreePath: field(text, "substitute", "it chooses the folder the agent works in", true) },
  // Display-only in Claude Code: what the user sees of the model's message instead of what it wrote.
  MessageDisplay: { displayContent: field(text, "substitute", "it changes what the user reads of the model's message") },
} satisfies Partial<Record<ClaudeHookEvent, Readonly<Record<string, OutputField>>>>;
export type SpecificEvent = keyof typeof SPECIFIC_FIELDS;

/**
 * What Claude Code also accepts and hookbox does not route, and why: the first line `{"async": true}`
 * sends the hook to the background (Claude Code reads its later answer); hookbox runs no async hook,
 * as it runs none set `async: true` in the settings, and refuses the answer by name.
 */
export const NOT_ROUTED_FIELDS: Readonly<Record<string, string>> = {
  async: "an async answer (the hook goes on in the background), which hookbox does not run: make the hook answer before it exits",
  asyncTimeout: "the deadline of an async answer, which hookbox does not run",
};

/** The class of `value` in `row` on `event`. */
export const effectOf = (f: OutputField, value: unknown, event: string): FieldEffect => (typeof f.effect === "function" ? f.effect(value, event) : f.effect);

const shape = (row: Readonly<Record<string, OutputField>>) =>
  Object.fromEntries(Object.entries(row).map(([k, f]) => [k, f.required ? f.schema : f.schema.optional()]));

const specificSchemas = Object.entries(SPECIFIC_FIELDS).map(([event, row]) => z.strictObject({ hookEventName: z.literal(event), ...shape(row) }));

/** The JSON a command hook may print on stdout (exit 0), as Claude Code 2.1.328 defines it (strict: an unknown field is refused, named). */
export const claudeHookOutputSchema = z.strictObject({
  ...shape(TOP_FIELDS),
  hookSpecificOutput: z.discriminatedUnion("hookEventName", specificSchemas as unknown as [z.ZodObject, ...z.ZodObject[]]).optional(),
}) as unknown as z.ZodType<ClaudeHookOutput>;

/** A hook's answer, parsed. */
export interface ClaudeHookOutput {
  continue?: boolean;
  suppressOutput?: boolean;
  stopReason?: string;
  decision?: "approve" | "block";
  reason?: string;
  systemMessage?: string;
  terminalSequence?: string;
  hookSpecificOutput?: { hookEventName: string } & Record<string, unknown>;
}
