/**
 * The shell hook protocol, as pure functions: the JSON a script reads on stdin, and what its exit
 * status and stdout mean. `pre` hooks fail closed: only exit 0 allows (unless stdout blocks).
 */
import { Errors, HookFailure } from "../contract/errors.js";
import { describeIssues } from "../contract/schemas.js";
import { ruleFor } from "../runner/dispatch.js";
import type { ToolCallEventResult, ToolResultEventResult } from "../contract/types.js";
import { tail, type ShellOutcome } from "./run.js";

/** The exit status by which a `pre` hook blocks on purpose; stderr is the reason. */
export const EXIT_BLOCK = 2;

/** What a shell hook reads on stdin: one JSON object. */
export interface ShellHookInput {
  /** `tool_call` for `pre` hooks, `tool_result` for `post` hooks. */
  event: "tool_call" | "tool_result";
  toolName: string;
  toolCallId: string;
  input: Record<string, unknown>;
  /** The project folder. */
  cwd: string;
  /** `post` only: the tool's output. */
  content?: unknown[];
  /** `post` only. */
  isError?: boolean;
}

/** The stdin JSON for an event; `post` adds `content` and `isError`. */
export function shellHookInput(event: Record<string, unknown>, cwd: string): ShellHookInput {
  const base = {
    event: event.type as ShellHookInput["event"],
    toolName: String(event.toolName),
    toolCallId: String(event.toolCallId),
    input: (event.input ?? {}) as Record<string, unknown>,
    cwd,
  };
  if (event.type !== "tool_result") return base;
  return { ...base, content: (event.content ?? []) as unknown[], isError: event.isError === true };
}

/** The failure for a run that did not end with a usable exit. */
function faultOf(hookPath: string, event: string, outcome: Exclude<ShellOutcome, { kind: "exited" }>): HookFailure {
  switch (outcome.kind) {
    case "timeout":
      return new HookFailure("timeout", hookPath, event,
        `Hook "${hookPath}" did not exit within ${outcome.ms} ms on ${event} (deadlines option); its process group was killed.${outcome.stderr ? ` stderr: ${tail(outcome.stderr)}` : ""}`);
    case "too_large":
      return new HookFailure("result_too_large", hookPath, event,
        `Hook "${hookPath}" wrote more than ${outcome.limit} bytes to ${outcome.stream} on ${event} (shellHooks.maxOutputBytes); it was killed. Write less or raise the limit.`);
    case "signaled":
      return Errors.crashed(hookPath, event, `killed by ${outcome.signal}${outcome.stderr ? `; stderr: ${tail(outcome.stderr)}` : ""}`);
    case "spawn_failed":
      return Errors.crashed(hookPath, event, `could not be started (${outcome.message}); check its #! line and that it is executable`);
  }
}

/** Parse stdout: nothing (blank or `null`) is no result; anything else must be JSON valid for `event`. */
function parseStdout(hookPath: string, event: "tool_call" | "tool_result", stdout: string): Record<string, unknown> | undefined {
  const trimmed = stdout.trim();
  if (trimmed === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    throw Errors.invalidResult(hookPath, event, `stdout is not JSON (write logs to stderr, and only a JSON result to stdout): ${tail(trimmed, 200)}`);
  }
  if (value === null) return undefined;
  const parsed = ruleFor(event).schema!.safeParse(value);
  if (!parsed.success) throw Errors.invalidResult(hookPath, event, describeIssues(parsed.error));
  return parsed.data as Record<string, unknown>;
}

/**
 * What a `pre` run means: exit 0 allows (or returns the stdout JSON), exit 2 blocks with stderr as
 * the reason. Anything else throws a `HookFailure` with its code, which blocks the call (fail closed).
 */
export function interpretPre(hookPath: string, outcome: ShellOutcome): ToolCallEventResult | undefined {
  if (outcome.kind !== "exited") throw faultOf(hookPath, "tool_call", outcome);
  if (outcome.code === EXIT_BLOCK) {
    return { block: true, reason: tail(outcome.stderr) || `blocked by hook "${hookPath}" (exit ${EXIT_BLOCK})` };
  }
  if (outcome.code !== 0) throw exitFailure(hookPath, "tool_call", outcome);
  return parseStdout(hookPath, "tool_call", outcome.stdout) as ToolCallEventResult | undefined;
}

/**
 * What a `post` run means: exit 0 applies the stdout JSON overrides (`content`, `details`); any
 * other end throws a `HookFailure`, reported, and the tool's output is left as it was.
 */
export function interpretPost(hookPath: string, outcome: ShellOutcome): ToolResultEventResult | undefined {
  if (outcome.kind !== "exited") throw faultOf(hookPath, "tool_result", outcome);
  if (outcome.code !== 0) throw exitFailure(hookPath, "tool_result", outcome);
  return parseStdout(hookPath, "tool_result", outcome.stdout) as ToolResultEventResult | undefined;
}

function exitFailure(hookPath: string, event: string, outcome: { code: number; stderr: string }): HookFailure {
  const why = event === "tool_call" ? ` (a pre hook allows only on exit 0 and blocks on purpose with exit ${EXIT_BLOCK})` : "";
  return Errors.crashed(hookPath, event, `exited with code ${outcome.code}${why}${outcome.stderr.trim() ? `; stderr: ${tail(outcome.stderr)}` : ""}`);
}
