/**
 * What each event's payload must look like on the command line: one zod schema per event of the
 * contract, following `types.ts`. Fields a host adds beyond the contract pass; a field of the
 * contract that is missing or of the wrong type is named (`input: expected object, received string`).
 */
import { z } from "zod";
import type { HookEventType } from "../types.js";

const text = z.object({ type: z.literal("text"), text: z.string(), textSignature: z.string().optional() });
const image = z.object({ type: z.literal("image"), data: z.string(), mimeType: z.string() });
const content = z.array(z.discriminatedUnion("type", [text, image]));
const message = z.looseObject({ role: z.string() });
const messages = z.array(message);
const entry = z.looseObject({ type: z.string(), id: z.string() });
const reason = z.enum(["new", "resume", "fork"]);
const file = z.string().optional();
const compaction = z.looseObject({ summary: z.string(), firstKeptEntryId: z.string(), tokensBefore: z.number() });
const action = z.enum(["context-full", "handoff"]);
const toolResult = z.looseObject({ role: z.literal("toolResult"), toolCallId: z.string(), toolName: z.string(), content, isError: z.boolean() });

/** The fields of each event besides `type`. */
export const payloadSchemas = {
  session_start: z.object({}),
  session_before_switch: z.object({ reason, targetSessionFile: file }),
  session_switch: z.object({ reason, previousSessionFile: file }),
  session_before_branch: z.object({ entryId: z.string() }),
  session_branch: z.object({ previousSessionFile: file }),
  session_before_compact: z.object({
    preparation: z.looseObject({
      firstKeptEntryId: z.string(), messagesToSummarize: messages, turnPrefixMessages: messages, recentMessages: messages,
      isSplitTurn: z.boolean(), tokensBefore: z.number(), previousSummary: z.string().optional(),
    }),
    branchEntries: z.array(entry),
    customInstructions: z.string().optional(),
  }),
  "session.compacting": z.object({ sessionId: z.string(), messages }),
  session_compact: z.object({ compactionEntry: compaction.extend({ type: z.literal("compaction"), id: z.string() }), fromExtension: z.boolean() }),
  session_before_tree: z.object({
    preparation: z.looseObject({
      targetId: z.string(), oldLeafId: z.string().nullable(), commonAncestorId: z.string().nullable(),
      entriesToSummarize: z.array(entry), userWantsSummary: z.boolean(),
    }),
  }),
  session_tree: z.object({ newLeafId: z.string().nullable(), oldLeafId: z.string().nullable(), summaryEntry: entry.optional(), fromExtension: z.boolean().optional() }),
  session_shutdown: z.object({}),
  context: z.object({ messages }),
  before_agent_start: z.object({ prompt: z.string(), images: z.array(image).optional() }),
  agent_start: z.object({}),
  agent_end: z.object({ messages }),
  turn_start: z.object({ turnIndex: z.number(), timestamp: z.number() }),
  turn_end: z.object({ turnIndex: z.number(), message, toolResults: z.array(toolResult) }),
  auto_compaction_start: z.object({ reason: z.enum(["threshold", "overflow", "idle"]), action }),
  auto_compaction_end: z.object({
    action, result: compaction.optional(), aborted: z.boolean(), willRetry: z.boolean(), errorMessage: z.string().optional(), skipped: z.boolean().optional(),
  }),
  auto_retry_start: z.object({ attempt: z.number(), maxAttempts: z.number(), delayMs: z.number(), errorMessage: z.string() }),
  auto_retry_end: z.object({ success: z.boolean(), attempt: z.number(), finalError: z.string().optional() }),
  ttsr_triggered: z.object({ rules: z.array(z.looseObject({ name: z.string(), path: z.string(), content: z.string() })) }),
  todo_reminder: z.object({
    todos: z.array(z.looseObject({ id: z.string(), content: z.string(), status: z.enum(["pending", "in_progress", "completed", "abandoned"]) })),
    attempt: z.number(), maxAttempts: z.number(),
  }),
  tool_call: z.object({ toolName: z.string(), toolCallId: z.string(), input: z.record(z.string(), z.unknown()) }),
  tool_result: z.object({
    toolName: z.string(), toolCallId: z.string(), input: z.record(z.string(), z.unknown()), content,
    details: z.unknown().optional(), isError: z.boolean().optional(), isWarning: z.boolean().optional(),
  }),
} satisfies Record<HookEventType, z.ZodType>;

/**
 * Why `payload` is not a `type` event, one problem per field (`input: expected record, received
 * string; toolCallId: …`), or undefined when it is.
 */
export function payloadProblem(type: HookEventType, payload: Record<string, unknown>): string | undefined {
  const parsed = payloadSchemas[type].safeParse(payload);
  if (parsed.success) return undefined;
  return parsed.error.issues
    .map((issue) => `${issue.path.length ? issue.path.map(String).join(".") : "(payload)"}: ${issue.message}`)
    .join("; ");
}
