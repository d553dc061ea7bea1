/**
 * What each event's payload must look like on the command line: the payload schema of its row in
 * the event table (src/contract/events.ts: `EVENTS`, and `AGENT_NOTIFICATIONS` for pi's events the
 * hook contract lacks). Fields a host adds beyond the contract pass; a field of the
 * contract that is missing or of the wrong type is named (`input: expected object, received string`).
 */
import { z } from "zod";
import { AGENT_NOTIFICATIONS, EVENTS } from "../contract/events.js";
import type { HookEventType } from "../contract/types.js";
import type { AgentNotification } from "../contract/events.js";

const schemas = new Map<string, z.ZodType>();
/** The fields of `type`'s events besides `type` (and its AbortSignals), as one object schema. */
function payloadSchema(type: HookEventType | AgentNotification): z.ZodType {
  let schema = schemas.get(type);
  const row: { payload: Record<string, z.ZodType> } = Object.hasOwn(EVENTS, type) ? EVENTS[type as HookEventType] : AGENT_NOTIFICATIONS[type as AgentNotification];
  if (!schema) schemas.set(type, (schema = z.object(row.payload)));
  return schema;
}

/**
 * Why `payload` is not a `type` event, one problem per field (`input: expected record, received
 * string; toolCallId: …`), or undefined when it is.
 */
export function payloadProblem(type: HookEventType | AgentNotification, payload: Record<string, unknown>): string | undefined {
  const parsed = payloadSchema(type).safeParse(payload);
  if (parsed.success) return undefined;
  return parsed.error.issues
    .map((issue) => `${issue.path.length ? issue.path.map(String).join(".") : "(payload)"}: ${issue.message}`)
    .join("; ");
}
