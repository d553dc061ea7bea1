/**
 * Errors are data with a code. One factory per code; each message says what happened, names the
 * hook, and says what to do next. Check errors by `code`, never by `instanceof` across threads.
 */
import { terminalText } from "../gates/terminal-text.js";
import { cut } from "../../worker/describe.mjs";

/** Error text is shown on terminals without styling: every control sequence removed (src/gates/terminal-text.ts). */
const PLAIN = { colors: false, multiline: true } as const;

/** Every kind of failure hookbox reports. The README documents each one. */
export const HOOK_ERROR_CODES = [
  "load_failed",
  "handler_threw",
  "invalid_result",
  "bad_argument",
  "result_too_large",
  "timeout",
  "unresponsive",
  "crashed",
  "out_of_memory",
  "disabled",
  "restarting",
  "protocol_violation",
  "effect_refused",
  "not_approved",
] as const;
export type HookErrorCode = (typeof HOOK_ERROR_CODES)[number];

/** The codes of a call that did not run because the hook cannot take calls now: skipped, and reported once by the hook's sandbox, not per skip. */
export const isSkip = (code: HookErrorCode): boolean => code === "disabled" || code === "restarting";

/** What `onError` listeners receive. */
export interface HookError {
  /** The hook's path as configured (or `command:<name>` for a command the host ran). */
  hookPath: string;
  /** The event type, `load`, `command`, `render` or `worker`. */
  event: string;
  /** A readable message: what happened and what to do. */
  error: string;
  code: HookErrorCode;
  /** The worker-side stack, pointing into the hook's file, when there is one. */
  stack?: string;
}

/** An Error that carries a `HookErrorCode`; thrown by `emitToolCall` and returned by the sandbox. */
export class HookFailure extends Error {
  readonly code: HookErrorCode;
  readonly hookPath: string;
  readonly event: string;
  constructor(code: HookErrorCode, hookPath: string, event: string, message: string, stack?: string) {
    // Why gated here: a failure's text is often the hook's (what it threw), and embedders print it.
    super(terminalText(message, PLAIN));
    this.name = "HookFailure";
    this.code = code;
    this.hookPath = hookPath;
    this.event = event;
    if (stack) this.stack = terminalText(stack, PLAIN);
  }
  toHookError(): HookError {
    const e: HookError = { hookPath: this.hookPath, event: this.event, error: this.message, code: this.code };
    if (this.stack) e.stack = this.stack;
    return e;
  }
}

/** Readable text for anything thrown: an Error's message, a string, or a JSON rendering of other values. */
export { describeThrown } from "../../worker/describe.mjs";

const name = (hookPath: string) => `Hook "${hookPath}"`;
/** Paths a hook chose (what it planted), as a message names them: the first 5, each at most 200 characters, and how many more. */
export const pathList = (paths: readonly string[]): string =>
  `${paths.slice(0, 5).map((p) => cut(p, 200)).join(", ")}${paths.length > 5 ? ` and ${paths.length - 5} more` : ""}`;
/** `worker` is the event of faults outside any request. */
const during = (event: string) => (event === "worker" ? "outside any event" : `during ${event}`);

/** One factory per code. */
export const Errors = {
  loadFailed: (hookPath: string, reason: string, stack?: string) =>
    new HookFailure("load_failed", hookPath, "load", `Failed to load hook: ${reason}`, stack),
  handlerThrew: (hookPath: string, event: string, message: string, stack?: string) =>
    new HookFailure("handler_threw", hookPath, event, message, stack),
  invalidResult: (hookPath: string, event: string, detail: string) =>
    new HookFailure("invalid_result", hookPath, event,
      `${name(hookPath)} returned an invalid result for ${event}, which was not applied: ${detail}`),
  invalidEdit: (hookPath: string, event: string, field: string, detail: string) =>
    new HookFailure("invalid_result", hookPath, event,
      `${name(hookPath)} edited event.${field} in place during ${event} to a value that is not valid, which was not applied: ${detail}`),
  /** Bridge arguments a hook sent that are not JSON data (too deep, a cycle, a BigInt): the host method was not called. */
  badArgument: (hookPath: string, method: string, detail: string) =>
    new HookFailure("bad_argument", hookPath, method,
      `${name(hookPath)} called ${method} with arguments that are not JSON data, so it was not called: ${detail}. Pass plain data (no BigInt, cycles or nesting deeper than 64 levels).`),
  resultTooLarge: (hookPath: string, event: string, bytes: number, limit: number) =>
    new HookFailure("result_too_large", hookPath, event,
      `${name(hookPath)} sent ${bytes} bytes on ${event}, over the ${limit}-byte limit (the maxMessageBytes option); it was refused. Return less data or raise the limit.`),
  timeout: (hookPath: string, event: string, ms: number) =>
    new HookFailure("timeout", hookPath, event,
      `${name(hookPath)} did not settle ${event} within ${ms} ms of its own time (deadlines option); the result was dropped and the runner went on.`),
  /** A `timeout` whose request waited on UI prompts for more than `maxPausedMs` in all. */
  pausedTooLong: (hookPath: string, event: string, ms: number) =>
    new HookFailure("timeout", hookPath, event,
      `${name(hookPath)} kept ${event} waiting on UI prompts for more than ${ms} ms in all (the maxPausedMs option); the result was dropped and the runner went on.`),
  unresponsive: (hookPath: string, event: string, ms: number) =>
    new HookFailure("unresponsive", hookPath, event,
      `${name(hookPath)} stopped answering for ${ms} ms ${during(event)} (its event loop is blocked, e.g. a synchronous loop); its worker was terminated.`),
  crashed: (hookPath: string, event: string, detail: string, stack?: string) =>
    new HookFailure("crashed", hookPath, event, `${name(hookPath)} crashed ${during(event)}: ${detail}`, stack),
  outOfMemory: (hookPath: string, event: string) =>
    new HookFailure("out_of_memory", hookPath, event,
      `${name(hookPath)} hit its memory limit ${during(event)} (resourceLimits); its worker was ended. Raise the resourceLimits option if the hook really needs more.`),
  disabled: (hookPath: string, event: string, why: string) =>
    new HookFailure("disabled", hookPath, event, `${name(hookPath)} is disabled (${why}); ${event} skipped it. Fix the hook and reload it.`),
  /** A skip while the hook's worker restarts: it answers again once the new worker has loaded. */
  restarting: (hookPath: string, event: string, last: string) =>
    new HookFailure("restarting", hookPath, event,
      `${name(hookPath)} is restarting after its worker failed (${last}); ${event} skipped it. It answers again once its new worker has loaded.`),
  /** A render whose lines went over the UI's bounds (src/isolation/render-guard.ts): cut, not refused. */
  renderTooLarge: (hookPath: string, lines: number, chars: number, width: number) =>
    new HookFailure("result_too_large", hookPath, "render",
      `${name(hookPath)} rendered more than ${lines} lines or a line over ${chars} characters (for a width of ${width}); the UI was given the render cut to that bound, with a marker. Reported once.`),
  /** A `timeout`: the hook's renders took more of the host's time than its budget; it renders by default from now on. */
  renderBudget: (hookPath: string, spentMs: number, budgetMs: number) =>
    new HookFailure("timeout", hookPath, "render",
      `${name(hookPath)} kept the host blocked in its renderers for ${spentMs} ms within one second, over the ${budgetMs} ms budget (the renderBudgetMs option); its messages and components use default rendering from now on (reload the hook to restore them). Reported once.`),
  /**
   * A result field or in-place edit above what the hook's `policy.effects` grants (src/runner/effects.ts):
   * not applied. `kept`: what happened instead (the agent's own value was kept, the tool call was blocked).
   */
  effectRefused: (hookPath: string, event: string, field: string, effect: string, grant: string, kept: string) =>
    new HookFailure("effect_refused", hookPath, event,
      `${name(hookPath)} set ${field} during ${event}, ${effect === "annotate" ? "an" : "a"} ${effect} effect on the agent, which its policy.effects "${grant}" does not grant; it was not applied (${kept}). policy.effects: "${effect}" grants it, for a hook you trust to change what the agent does.`),
  /** An agent member above what the hook's `policy.effects` grants (worker/extension-members.mjs `MEMBER_EFFECTS`): not run. */
  memberRefused: (hookPath: string, member: string, effect: string, grant: string) =>
    new HookFailure("effect_refused", hookPath, member,
      `${name(hookPath)} called ${member}, a ${effect} effect on the agent, which its policy.effects "${grant}" does not grant; it was refused. policy.effects: "${effect}" grants it, for a hook you trust to change what the agent does.`),
  /**
   * An `effect_refused`: what a hook made in a folder it may write under a name git or an agent
   * takes up (src/policy/planted.ts), which hookbox removed; its answer was not applied.
   */
  planted: (hookPath: string, event: string, paths: readonly string[], done = "hookbox removed it and did not apply the hook's answer") =>
    new HookFailure("effect_refused", hookPath, event,
      `${name(hookPath)} made ${pathList(paths)} in a folder it may write ${during(event)}: a name git or an agent takes up (it runs code or reads instructions from it), which no grant opens. ${done}; write under another name.`),
  /** A project's module the user has not approved as it is now (or whose approvals cannot be read): not loaded. */
  notApproved: (hookPath: string, reason: string) =>
    new HookFailure("not_approved", hookPath, "load", `${name(hookPath)} was not loaded: ${reason}`),
  protocolViolation: (hookPath: string, detail: string, event = "worker") =>
    new HookFailure("protocol_violation", hookPath, event,
      `${name(hookPath)} sent a message outside the protocol, which was dropped: ${detail}`),
} as const;
