/**
 * The contract's shared value shapes as zod schemas (content blocks, agent and hook messages, a
 * compaction), which the event table (src/contract/events.ts) builds its payloads and results from, and how
 * a zod error reads. The wire's own messages are `protocol.ts`; bridge methods are `bridge/methods.ts`.
 */
import { z } from "zod";
import { isAgentMessage, LIMITS } from "../../worker/wire.mjs";

const textContent = z.strictObject({ type: z.literal("text"), text: z.string(), textSignature: z.string().optional() });
export const imageContent = z.strictObject({ type: z.literal("image"), data: z.string(), mimeType: z.string() });
/**
 * A content block as pi and oh-my-pi take it: text or an image with its required fields, and the
 * block's own other fields kept as data (oh-my-pi's image `detail`, `providerFile`, `url`), as both
 * agents pass a block on.
 */
export const toolContent = z.discriminatedUnion("type", [textContent.loose(), imageContent.loose()]);

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

/**
 * What a pi tool's `execute` returns and its `onUpdate` streams: what the agents take. pi 0.73.1
 * (pi-agent-core's `AgentToolResult`: `content`, `details`, `terminate`) passes the tool's object on
 * as it is (to `tool_execution_end`, to the tool's renderers); oh-my-pi 18 (its `coerceToolResult`)
 * also reads `isError`, `useless` and `providerMetadata`, and a block's own fields (an image's
 * `detail`). So the known keys are typed and any other key is kept as data, as both agents keep it;
 * a block is text or an image as both agents require. The key gate is applied where it is parsed.
 */
export const toolResult = z.looseObject({
  content: z.array(toolContent).max(LIMITS.maxHandlers),
  details: z.unknown().optional(),
  terminate: z.boolean().optional(),
  isError: z.boolean().optional(),
  useless: z.boolean().optional(),
});

export const compactionResult = z.strictObject({
  summary: z.string(),
  shortSummary: z.string().optional(),
  firstKeptEntryId: z.string(),
  tokensBefore: z.number(),
  details: z.unknown().optional(),
  preserveData: z.record(z.string(), z.unknown()).optional(),
});

/** One line per problem, each naming the field: `block: expected boolean, received string`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const at = issue.path.length ? issue.path.map(String).join(".") : "(result)";
      return `${at}: ${issue.message}`;
    })
    .join("; ");
}
