/**
 * What the host accepts as a worker's answer to one of its requests, checked once, here, where the
 * request's kind is known: a handler's error is `handler_threw`; a value must be JSON data within
 * `maxMessageBytes`, measured again (the worker's own check is not trusted); an emit's reply must
 * be `emitReplySchema` (each result in it is checked against its event's schema by the runner).
 */
import { Errors, type HookFailure } from "../contract/errors.js";
import { emitReplySchema, type WireError } from "../contract/protocol.js";
import { describeIssues } from "../contract/schemas.js";
import { measure } from "../../worker/wire.mjs";

/** Why the answer to `request` is refused, or undefined when its value is the request's result. */
export function replyFailure(hookPath: string, request: { kind: string; event: string }, ok: boolean, value: unknown,
  error: WireError | undefined, maxMessageBytes: number): HookFailure | undefined {
  if (!ok) {
    const e = error ?? { message: "the handler failed without a message" };
    return Errors.handlerThrew(hookPath, request.event, e.message, e.stack);
  }
  // The result sits 3 levels down an emit reply ({ steps: [{ r }] }).
  const { bytes, issue } = measure(value, maxMessageBytes, 3);
  if (issue) return Errors.invalidResult(hookPath, request.event, `it is not JSON data: ${issue}`);
  if (bytes > maxMessageBytes) return Errors.resultTooLarge(hookPath, request.event, bytes, maxMessageBytes);
  // No value (every handler returned nothing) is an empty reply, of any kind.
  if (request.kind === "emit" && value !== undefined) {
    const parsed = emitReplySchema.safeParse(value);
    if (!parsed.success) return Errors.protocolViolation(hookPath, `bad ${request.event} reply: ${describeIssues(parsed.error)}`, request.event);
  }
  return undefined;
}
