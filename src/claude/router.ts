/**
 * The routing members of Claude Code's row (./dialect.ts, the one row that says what Claude Code is
 * to hookbox; the router every row shares is src/agents/router.ts), read from Claude Code
 * 2.1.328: its matching (a matcher per event, and `if` permission rules: ./settings.ts), its
 * reading of a hook's end (exit 2 with stderr, plain text as context on some events: ./output.ts),
 * a project's hook run with its approved grants, recording layer and CLAUDE_ENV_FILE
 * (./project-run.ts), and one answer by Claude Code's rules: deny over defer over ask over allow, a
 * fault on a fail-closed event blocking with the reason on stderr (exit 2). Also the routing hook's
 * deadline in Claude Code's unit, which the launcher (./launch.ts) writes.
 */
import { hookText, MAX_REASON_CHARS, mergeDecisions, named } from "../agents/answer.js";
import type { AgentReply, Dialect, HookAnswer, RefusedRoutedHook } from "../agents/dialect.js";
import { isProject, runAsUser } from "../agents/router.js";
import { routerTimeoutMs } from "../agents/routing-hook.js";
import { claudeHookFingerprint } from "./approval.js";
import { interpretRun, type ClaudeHookOutput } from "./output.js";
import type { ClaudePlan } from "./plan.js";
import { runProjectHook } from "./project-run.js";
import { isClaudeHookEvent, selectHooks, type ClaudeHook, type ClaudeHookEvent } from "./settings.js";

/** Permission decisions, weakest first: the latest any hook gave wins. */
const ORDER = ["allow", "ask", "defer", "deny"] as const;

const label = (hook: ClaudeHook | RefusedRoutedHook) => `${isProject(hook) ? "the project's" : "your"} Claude Code hook ${"command" in hook ? `\`${hook.command}\` (${hook.file}#${hook.at})` : `${hook.file}#${hook.at}`}`;

type ClaudeRouterRow = Dialect<ClaudeHookOutput, ClaudeHook, ClaudePlan>;
/** What Claude Code's row holds besides the routing members, which `claudeDialect` adds. */
export type ClaudeRowData = Pick<ClaudeRouterRow, "agent" | "recordAs" | "launcher" | "events" | "failClosed" | "projectDirVars" | "approvableForm">;
/** The routing members `claudeDialect` adds. */
export type ClaudeRouting = Omit<ClaudeRouterRow, keyof ClaudeRowData>;

/** Claude Code's row: its data (./dialect.ts), and the routing members read by Claude Code's rules. */
export function claudeDialect<D extends ClaudeRowData>(data: D): D & ClaudeRouterRow {
  const d: D & ClaudeRouterRow = {
    ...data,
    select: (hooks, event, input) => (isClaudeHookEvent(event) ? selectHooks(hooks, event, input) : []),
    timeoutMs: (hook) => hook.timeoutS * 1000,
    label,
    fingerprint: (project, hook, reader) => claudeHookFingerprint(data, project, hook, reader),
    async runUser(plan, hook, event, raw, signal) {
      const outcome = await runAsUser(plan, hook.command, raw, data.projectDirVars.map((v) => [v, plan.project] as const), hook.timeoutS * 1000, signal);
      return interpretRun({ name: label(hook), untrusted: false, command: hook.command }, event as ClaudeHookEvent, outcome);
    },
    runProject: (plan, hook, event, input, raw, signal) => runProjectHook(data, plan, hook, event as ClaudeHookEvent, input, raw, label(hook), signal),
    answer: (event, answers, refused) => combine(data.failClosed, event, answers, refused),
    // Claude Code 2.1.328 passes a PreToolUse block's reason as it is when it is a JSON block on stdout
    // (exit 2, nothing on stderr); a stderr would be shown after this router's own command line.
    written: (event, reply) => (reply.code === 2 && event === "PreToolUse" ? { code: 2, stdout: JSON.stringify({ decision: "block", reason: reply.stderr }), stderr: "" } : reply),
    routerFailed: (event, message) => d.written(event, { code: data.failClosed.has(event) ? 2 : 1, stdout: "", stderr: message }),
  };
  return d;
}

/** The timeout Claude Code gives the routing hook for `hooks`, in seconds (Claude Code's unit). */
export const routerTimeoutS = (hooks: readonly { timeoutS: number }[]): number => routerTimeoutMs(hooks.map((h) => h.timeoutS * 1000)) / 1000;

/** One answer for Claude Code from every hook's, by Claude Code's rules (deny over defer over ask over allow). */
function combine(failClosed: ReadonlySet<string>, event: string, answers: HookAnswer<ClaudeHookOutput>[], refused: string[]): AgentReply {
  const failures = named([...answers.flatMap((a) => (a.kind === "failed" ? [a.failure] : [])), ...refused]);
  // What the sandbox refused a hook that still answered: said, never blocking.
  const notices = answers.flatMap((a) => a.notices ?? []).map((n) => hookText(n));
  const blocks = answers.flatMap((a) => (a.kind === "block" ? [hookText(a.reason, MAX_REASON_CHARS)] : []));
  if (failClosed.has(event) && failures.length > 0) {
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
  // What the user reads in place of the model's words: through the terminal-text gate, as every other text a hook wrote.
  const shown = merged.hookSpecificOutput;
  if (typeof shown?.displayContent === "string") merged.hookSpecificOutput = { ...shown, displayContent: hookText(shown.displayContent) };
  if (failures.length > 0 || notices.length > 0) merged.systemMessage = [merged.systemMessage, failures.length > 0 ? `hookbox: ${failures.join(" ")}` : "", ...notices].filter(Boolean).join("\n");
  return { code: 0, stdout: JSON.stringify(merged), stderr: "" };
}
