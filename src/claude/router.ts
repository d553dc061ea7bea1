/**
 * Claude Code's row of the one router's dialect table (src/agents/dialect.ts; the router every row
 * shares is src/agents/router.ts), read from Claude Code 2.1.328: its matching (a matcher per
 * event, and `if` permission rules: ./settings.ts), its reading of a hook's end (exit 2 with
 * stderr, plain text as context on some events: ./output.ts), a project's hook run with its
 * approved grants, recording layer and CLAUDE_ENV_FILE (./project-run.ts), and one answer by Claude
 * Code's rules: deny over defer over ask over allow, a fault on PreToolUse or PermissionRequest
 * blocking with the reason on stderr (exit 2). Also the routing hook's deadline in Claude Code's
 * unit, which the launcher (./launch.ts) writes.
 */
import { hookText, MAX_REASON_CHARS, mergeDecisions, named } from "../agents/answer.js";
import type { AgentReply, Dialect, HookAnswer, RefusedRoutedHook } from "../agents/dialect.js";
import { isProject, route, runAsUser, type RouteOptions } from "../agents/router.js";
import { routerTimeoutMs } from "../agents/routing-hook.js";
import { claudeHookFingerprint } from "./approval.js";
import { interpretRun, type ClaudeHookOutput } from "./output.js";
import type { ClaudePlan } from "./plan.js";
import { runProjectHook } from "./project-run.js";
import { CLAUDE_HOOK_EVENTS, isClaudeHookEvent, selectHooks, type ClaudeHook, type ClaudeHookEvent } from "./settings.js";

/** Permission decisions, weakest first: the latest any hook gave wins. */
const ORDER = ["allow", "ask", "defer", "deny"] as const;

const label = (hook: ClaudeHook | RefusedRoutedHook) => `${isProject(hook) ? "the project's" : "your"} Claude Code hook ${"command" in hook ? `\`${hook.command}\` (${hook.file}#${hook.at})` : `${hook.file}#${hook.at}`}`;

export const CLAUDE_CODE_HOOKS: Dialect<ClaudeHookOutput, ClaudeHook, ClaudePlan> = {
  agent: "Claude Code",
  recordAs: "claude",
  launcher: "claude",
  events: CLAUDE_HOOK_EVENTS,
  failClosed: new Set(["PreToolUse", "PermissionRequest"]),
  select: (hooks, event, input) => (isClaudeHookEvent(event) ? selectHooks(hooks, event, input) : []),
  timeoutMs: (hook) => hook.timeoutS * 1000,
  label,
  fingerprint: claudeHookFingerprint,
  async runUser(plan, hook, event, raw, signal) {
    const outcome = await runAsUser(plan, hook.command, raw, [["CLAUDE_PROJECT_DIR", plan.project]], hook.timeoutS * 1000, signal);
    return interpretRun({ name: label(hook), untrusted: false, command: hook.command }, event as ClaudeHookEvent, outcome);
  },
  runProject: (plan, hook, event, input, raw, signal) => runProjectHook(plan, hook, event as ClaudeHookEvent, input, raw, label(hook), signal),
  answer: (event, answers, refused) => combine(event, answers, refused),
  // Claude Code 2.1.328 passes a PreToolUse block's reason as it is when it is a JSON block on stdout
  // (exit 2, nothing on stderr); a stderr would be shown after this router's own command line.
  written: (event, reply) => (reply.code === 2 && event === "PreToolUse" ? { code: 2, stdout: JSON.stringify({ decision: "block", reason: reply.stderr }), stderr: "" } : reply),
  routerFailed: (event, message) => CLAUDE_CODE_HOOKS.written(event, { code: CLAUDE_CODE_HOOKS.failClosed.has(event) ? 2 : 1, stdout: "", stderr: message }),
};

/** The timeout Claude Code gives the routing hook for `hooks`, in seconds (Claude Code's unit). */
export const routerTimeoutS = (hooks: readonly { timeoutS: number }[]): number => routerTimeoutMs(hooks.map((h) => h.timeoutS * 1000)) / 1000;

/** `hookbox claude-hook`: answer one event (`input`: the JSON Claude Code wrote on stdin), always before Claude Code's deadline. */
export function routeEvent(plan: ClaudePlan, input: Record<string, unknown>, raw: string, options: RouteOptions = {}): Promise<AgentReply> {
  return route(CLAUDE_CODE_HOOKS, plan, input, raw, options);
}

/** One answer for Claude Code from every hook's, by Claude Code's rules (deny over defer over ask over allow). */
export function combine(event: string, answers: HookAnswer<ClaudeHookOutput>[], refused: string[]): AgentReply {
  const failures = named([...answers.flatMap((a) => (a.kind === "failed" ? [a.failure] : [])), ...refused]);
  // What the sandbox refused a hook that still answered: said, never blocking.
  const notices = answers.flatMap((a) => a.notices ?? []).map((n) => hookText(n));
  const blocks = answers.flatMap((a) => (a.kind === "block" ? [hookText(a.reason, MAX_REASON_CHARS)] : []));
  if (CLAUDE_CODE_HOOKS.failClosed.has(event) && failures.length > 0) {
    return { code: 2, stdout: "", stderr: [`hookbox blocked this ${event === "PreToolUse" ? "tool call" : "request"}: ${failures.join(" ")}`, ...blocks, ...notices].join("\n") };
  }
  if (blocks.length > 0) return { code: 2, stdout: "", stderr: [...blocks, ...notices].join("\n") };
  const outputs = answers.flatMap((a) => (a.kind === "ok" && a.output ? [a.output] : []));
  const texts = answers.flatMap((a) => (a.kind === "ok" && a.text ? [a.text] : []));
  if (outputs.length === 0) {
    if (failures.length > 0) return { code: 1, stdout: "", stderr: [`hookbox: ${failures.join(" ")}`, ...notices].join("\n") };
    if (notices.length > 0 && texts.length === 0) return { code: 0, stdout: JSON.stringify({ systemMessage: `hookbox: ${notices.join("\n")}` }), stderr: "" };
    return { code: 0, stdout: texts.join("\n"), stderr: notices.join("\n") };
  }
  const merged = mergeDecisions(outputs, ORDER);
  if (failures.length > 0 || notices.length > 0) merged.systemMessage = [merged.systemMessage, failures.length > 0 ? `hookbox: ${failures.join(" ")}` : "", ...notices].filter(Boolean).join("\n");
  return { code: 0, stdout: JSON.stringify(merged), stderr: "" };
}
