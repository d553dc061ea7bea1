/**
 * How a handler's failure reads on the host: its code (a hook cannot name its own), its text, the
 * thrown value as `cause`, and what a blocked tool call says. The runner's error shaping, in one place.
 */
import { Errors, HOOK_ERROR_CODES, HookFailure, type HookErrorCode } from "../contract/errors.js";
import { terminalText } from "../gates/terminal-text.js";
import type { HookUnit } from "./hook.js";
import type { WireError } from "../contract/protocol.js";
import type { ToolCallEventResult } from "../contract/types.js";

/**
 * A handler error from a worker is always `handler_threw`: a hook cannot name its own fault. A
 * trusted in-process hook (a hand-built LoadedHook, the shell-hook adapter) may throw a
 * `HookFailure` whose code is kept.
 */
export function stepFailure(unit: HookUnit, type: string, e: WireError): HookFailure {
  const code = e.code as HookErrorCode | undefined;
  if (!unit.hook.sandbox && code && code !== "handler_threw" && (HOOK_ERROR_CODES as readonly string[]).includes(code)) {
    return new HookFailure(code, unit.hook.path, type, e.message, e.stack);
  }
  const failure = Errors.handlerThrew(unit.hook.path, type, e.code ? `${e.message} [${e.code}]` : e.message, e.stack);
  failure.cause = thrownValue(e);
  return failure;
}

/** What the handler threw, rebuilt on the host: the value itself, or an Error with its name, message, stack and code. */
export function thrownValue(e: WireError): unknown {
  if (e.name === undefined) return e.value;
  // The rebuilt error's text passes the terminal-text gate, as the failure's does (src/contract/errors.ts).
  const error = new Error(terminalText(e.message, { colors: false, multiline: true }));
  error.name = terminalText(e.name, { colors: false });
  if (e.stack) error.stack = terminalText(e.stack, { colors: false, multiline: true });
  if (e.code) (error as Error & { code?: string }).code = e.code;
  return error;
}

/**
 * The original's `emitToolCall` rejects with what the handler threw: the text is the Error's own
 * message, or `String(value)` for anything else; the thrown value stays reachable as `cause`.
 */
export function asThrownInToolCall(failure: HookFailure): HookFailure {
  if (!("cause" in failure)) return failure;
  const thrown = failure.cause;
  const text = thrown instanceof Error ? thrown.message : String(thrown);
  const out = Errors.handlerThrew(failure.hookPath, failure.event, text, failure.stack);
  out.cause = thrown;
  return out;
}

const FAILURE_BLOCKS = new WeakSet<object>();

/** The result a tool call gets when a hook failed and fails closed. */
export function blocked(failure: HookFailure): ToolCallEventResult {
  const result = { block: true as const, reason: `Blocked because hook "${failure.hookPath}" failed (${failure.code}): ${failure.message}` };
  FAILURE_BLOCKS.add(result);
  return result;
}

/** Whether `value` is a block `blocked()` made of a failure (not a hook's own). */
export const isFailureBlock = (value: unknown): boolean => typeof value === "object" && value !== null && FAILURE_BLOCKS.has(value);
