/**
 * What handlers may return: one strict object per event result, applied by the runner before a
 * result is used. The wire's own messages are `protocol.ts`; bridge methods are `bridge/methods.ts`.
 */
import { z } from "zod";
import { isAgentMessage, LIMITS } from "../worker/wire.mjs";
import { keySafe } from "./safe-keys.js";

// ---- event results ---------------------------------------------------------------------------

const textContent = z.strictObject({ type: z.literal("text"), text: z.string(), textSignature: z.string().optional() });
const imageContent = z.strictObject({ type: z.literal("image"), data: z.string(), mimeType: z.string() });
export const toolContent = z.discriminatedUnion("type", [textContent, imageContent]);

/**
 * An agent message: an object with a string `role`, anything else kept as is (messages are the
 * agent's, shaped by the host). A check rather than `looseObject`, which would copy every message
 * of a 1 MB history on each validation.
 */
export const agentMessage = z.custom<{ role: string; [key: string]: unknown }>(isAgentMessage, { message: "expected a message object with a string role" });

/** A hook's custom message: the same schema in a result (`before_agent_start`) and in `pi.sendMessage` (src/bridge/methods.ts). */
export const hookMessage = z.strictObject({
  customType: z.string().max(LIMITS.maxName),
  content: z.union([z.string(), z.array(toolContent).max(LIMITS.maxHandlers)]),
  display: z.boolean(),
  details: z.unknown().optional(),
  attribution: z.enum(["user", "agent"]).optional(),
});

const compactionResult = z.strictObject({
  summary: z.string(),
  shortSummary: z.string().optional(),
  firstKeptEntryId: z.string(),
  tokensBefore: z.number(),
  details: z.unknown().optional(),
  preserveData: z.record(z.string(), z.unknown()).optional(),
});

/**
 * The result schema of every event whose handlers may return something. Each passes the key gate
 * first (src/safe-keys.ts): a `__proto__`, `constructor` or `prototype` key anywhere in a result
 * (`details`, `preserveData`, a message) makes it `invalid_result`.
 */
export const resultSchemas = {
  tool_call: keySafe(z.strictObject({ block: z.boolean().optional(), reason: z.string().optional() })),
  tool_result: keySafe(z.strictObject({
    content: z.array(toolContent).optional(),
    details: z.unknown().optional(),
    isError: z.boolean().optional(),
    isWarning: z.boolean().optional(),
  })),
  context: keySafe(z.strictObject({ messages: z.array(agentMessage).optional() })),
  before_agent_start: keySafe(z.strictObject({ message: hookMessage.optional() })),
  session_before_switch: keySafe(z.strictObject({ cancel: z.boolean().optional() })),
  session_before_branch: keySafe(z.strictObject({ cancel: z.boolean().optional(), skipConversationRestore: z.boolean().optional() })),
  session_before_compact: keySafe(z.strictObject({ cancel: z.boolean().optional(), compaction: compactionResult.optional() })),
  session_before_tree: keySafe(z.strictObject({
    cancel: z.boolean().optional(),
    summary: z.strictObject({ summary: z.string(), details: z.unknown().optional() }).optional(),
  })),
  "session.compacting": keySafe(z.strictObject({
    context: z.array(z.string()).optional(),
    prompt: z.string().optional(),
    preserveData: z.record(z.string(), z.unknown()).optional(),
  })),
} as const;
export type ResultEvent = keyof typeof resultSchemas;

/** One line per problem, each naming the field: `block: expected boolean, received string`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const at = issue.path.length ? issue.path.map(String).join(".") : "(result)";
      return `${at}: ${issue.message}`;
    })
    .join("; ");
}
