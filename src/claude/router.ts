/**
 * What `hookbox claude-hook` does for one event Claude Code routes to it: select the hooks of the
 * user's and the project's settings that Claude Code's matching selects, run them (in parallel,
 * as Claude Code does), each with its deadline and bounded output, and answer Claude Code with one
 * exit status, stdout and stderr. The user's hooks run as the user, without secret-looking
 * variables; the project's (`.claude/settings.json`, `.claude/settings.local.json`) only as approved
 * (`hookbox trust`), in the bubblewrap sandbox: no network, the project read-only, an empty home,
 * none of the user's variables. On PreToolUse any failure blocks the call (fail closed), with the
 * reason the model reads on stderr (exit 2).
 */
import { appendFileSync, existsSync } from "node:fs";
import { describeThrown, Errors, HookFailure } from "../contract/errors.js";
import { terminalText } from "../gates/terminal-text.js";
import { SECRET_NAME } from "../policy/policy.js";
import { runShellHook } from "../shell/run.js";
import { claudeRecorder } from "../observe/launch.js";
import { childEnv } from "../../worker/child-env.mjs";
import { cut } from "../../worker/describe.mjs";
import type { Approved } from "../approval/store.js";
import { checkProjectHooks } from "./approval.js";
import { claimOnce } from "./once.js";
import { interpretRun, type ClaudeHookOutput, type HookAnswer } from "./output.js";
import type { ClaudePlan } from "./plan.js";
import { runProjectHook } from "./project-run.js";
import { isClaudeHookEvent, selectHooks, type ClaudeHook, type ClaudeHookEvent, type RefusedHook } from "./settings.js";

export type { ClaudePlan } from "./plan.js";

/** Claude Code's reading of a command hook's end: exit 2 blocks (stderr to the model), 0 reads stdout. */
export interface RouterAnswer { code: 0 | 1 | 2; stdout: string; stderr: string }

/** Events where a failed hook blocks (fail closed): the call it guards does not run. */
const FAIL_CLOSED = new Set<string>(["PreToolUse", "PermissionRequest"]);
const SHELL = existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";

const isProject = (hook: { source: string }) => hook.source !== "user";
const label = (hook: ClaudeHook | RefusedHook) => `${isProject(hook) ? "the project's" : "your"} Claude Code hook ${"command" in hook ? `\`${hook.command}\` (${hook.file}#${hook.at})` : `${hook.file}#${hook.at}`}`;

/** Margin over the slowest hook's timeout for the routing hook's own (what Claude Code is given), so a hook's own deadline passes first. */
export const ROUTER_MARGIN_S = 30;
/** The timeout Claude Code gives the routing hook for `hooks`: when it passes, Claude Code cancels the router, a non-blocking error (fail open). */
export const routerTimeoutS = (hooks: readonly { timeoutS: number }[]): number => Math.max(0, ...hooks.map((h) => h.timeoutS)) + ROUTER_MARGIN_S;
/** How long before Claude Code's deadline the watchdog answers (at most a quarter of the timeout): node's exit and Claude Code's read fit in it. */
const WATCHDOG_LEAD_MS = 5_000;

export interface RouteOptions {
  /** Time already spent in this process before the call (the router's own start-up), in ms: the watchdog counts from Claude Code's start of it. */
  spentMs?: number;
}

/**
 * Answer one event (`input`: the JSON Claude Code wrote on stdin), always before Claude Code's
 * deadline: a watchdog armed first answers with what the hooks answered so far and a `timeout`
 * for each one still running (on PreToolUse and PermissionRequest: blocked), and stops them.
 * The user's hooks start at once; the project's start as their approval checks pass, which run
 * concurrently, each file read once (src/claude/approval.ts's checkProjectHooks).
 */
export async function routeEvent(plan: ClaudePlan, input: Record<string, unknown>, raw: string, options: RouteOptions = {}): Promise<RouterAnswer> {
  const event = String(input.hook_event_name);
  if (!isClaudeHookEvent(event)) return { code: 0, stdout: "", stderr: "" };
  const timeoutMs = (plan.timeoutS ?? routerTimeoutS(plan.hooks)) * 1000;
  const stop = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), Math.max(0, timeoutMs - Math.min(WATCHDOG_LEAD_MS, timeoutMs / 4) - (options.spentMs ?? 0)));
  });
  try {
    const hooks = selectHooks(plan.hooks, event, input).filter((h) => claimOnce(h, input));
    const refused = selectHooks(plan.refused.filter((r) => isClaudeHookEvent(r.event)), event, input);
    // Every hook's run and every refusal is a decision record (the audit log; spans with OpenTelemetry): src/observe/launch.ts.
    const record = claudeRecorder(plan.project, event, input);
    const project = hooks.filter(isProject);
    const checks = checkProjectHooks(plan.project, project, { ...(plan.approvals ? { approvals: plan.approvals } : {}), signal: stop.signal });
    const answers: Array<HookAnswer | undefined> = hooks.map(() => undefined);
    const runs = hooks.map(async (hook, i) => {
      const check = isProject(hook) ? checks[project.indexOf(hook)] : undefined;
      // A fault of hookbox's own (a sandbox that cannot start) is that hook's failure, never the whole answer's.
      answers[i] = await record.run(hook, runOne(plan, hook, event, input, raw, check, stop.signal)
        .catch((err: unknown): HookAnswer => ({ kind: "failed", failure: Errors.crashed(label(hook), event, `hookbox could not run it: ${describeThrown(err)}`) })));
    });
    const outcome = await Promise.race([Promise.all(runs).then(() => "done" as const), late]);
    if (outcome === "late") {
      stop.abort();
      const seconds = Math.round(timeoutMs / 1000);
      answers.forEach((a, i) => {
        if (a === undefined) answers[i] = { kind: "failed", failure: new HookFailure("timeout", label(hooks[i]!), event, `${label(hooks[i]!)} had not answered when hookbox's router had to answer Claude Code (its deadline for the router is ${seconds} s, after which it would let the call through); it was stopped.`) };
      });
    }
    record.refused(refused);
    const answer = combine(event, answers as HookAnswer[], refused.map((r) => `${label(r)} was not run: ${r.reason}.`));
    tellLauncher(plan, answers as HookAnswer[]);
    return answer;
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
}

/** Failures and notices also reach the launcher's stderr (it prints `plan.notices` when Claude Code ends). */
function tellLauncher(plan: ClaudePlan, answers: HookAnswer[]): void {
  if (!plan.notices) return;
  const lines = answers.flatMap((a) => [...(a.kind === "failed" ? [describe(a.failure)] : []), ...(a.notices ?? [])]);
  if (lines.length === 0) return;
  try { appendFileSync(plan.notices, lines.map((l) => `${terminalText(l, { colors: false })}\n`).join("")); } catch { /* the launcher is gone */ }
}

async function runOne(plan: ClaudePlan, hook: ClaudeHook, event: ClaudeHookEvent, input: Record<string, unknown>, raw: string,
  check: Promise<HookFailure | Approved> | undefined, signal: AbortSignal): Promise<HookAnswer> {
  const name = label(hook);
  const untrusted = isProject(hook);
  const timeoutMs = hook.timeoutS * 1000;
  if (!untrusted) {
    const env = childEnv([...Object.entries(process.env).filter(([k]) => !SECRET_NAME.test(k)), ["CLAUDE_PROJECT_DIR", plan.project]]);
    const outcome = await runShellHook(SHELL, raw, { cwd: plan.project, env, timeoutMs, maxOutputBytes: plan.maxOutputBytes, args: ["-c", hook.command], signal });
    return interpretRun({ name, untrusted, command: hook.command }, event, outcome);
  }
  const verdict = await check;
  if (verdict instanceof HookFailure) return { kind: "failed", failure: verdict };
  signal.throwIfAborted();
  return { ...await runProjectHook(plan, hook, event, input, raw, name, signal), ...(verdict ? { approved: verdict.digest } : {}) };
}

const ORDER = ["allow", "ask", "defer", "deny"] as const;

/** One answer for Claude Code from every hook's, by Claude Code's rules (deny over defer over ask over allow). */
export function combine(event: string, answers: HookAnswer[], refused: string[]): RouterAnswer {
  const failures = named([...answers.flatMap((a) => (a.kind === "failed" ? [a.failure] : [])), ...refused]);
  // What the sandbox refused a hook that still answered: said, never blocking.
  const notices = answers.flatMap((a) => a.notices ?? []).map((n) => hookText(n));
  const blocks = answers.flatMap((a) => (a.kind === "block" ? [hookText(a.reason, MAX_REASON_CHARS)] : []));
  if (FAIL_CLOSED.has(event) && failures.length > 0) {
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
  const merged = merge(outputs);
  if (failures.length > 0 || notices.length > 0) merged.systemMessage = [merged.systemMessage, failures.length > 0 ? `hookbox: ${failures.join(" ")}` : "", ...notices].filter(Boolean).join("\n");
  return { code: 0, stdout: JSON.stringify(merged), stderr: "" };
}

const describe = (f: HookFailure) => `${f.message} (${f.code})`;
/** The most failures named one by one in an answer: a project of many hooks must not flood the model's context (or push a guard's reason out of it). */
const MAX_NAMED_FAILURES = 10;
/** Failures as the model reads them: the first ones in full, the rest counted by code. */
function named(failures: Array<HookFailure | string>): string[] {
  const text = (f: HookFailure | string) => (typeof f === "string" ? f : describe(f));
  if (failures.length <= MAX_NAMED_FAILURES) return failures.map(text);
  const rest = new Map<string, number>();
  for (const f of failures.slice(MAX_NAMED_FAILURES)) {
    const code = typeof f === "string" ? "not run" : f.code;
    rest.set(code, (rest.get(code) ?? 0) + 1);
  }
  return [...failures.slice(0, MAX_NAMED_FAILURES).map(text), `…and ${failures.length - MAX_NAMED_FAILURES} more hooks: ${[...rest].map(([code, n]) => `${code} ×${n}`).join(", ")}.`];
}
/** The most of one hook's reason (a block, a decision, a stop) the model reads, as for pi's hooks. */
const MAX_REASON_CHARS = 1000;
/** A text a hook wrote, as the model or the person reads it: terminal controls removed (newlines and tabs kept), a reason cut. */
const hookText = (text: string, max?: number) => terminalText(max === undefined ? text : cut(text, max), { colors: false, multiline: true });
const join = (values: Array<string | undefined>, max?: number) => {
  const given = values.filter((v): v is string => v !== undefined).map((v) => hookText(v, max));
  return given.length > 0 ? given.join("\n") : undefined;
};

function merge(outputs: ClaudeHookOutput[]): ClaudeHookOutput {
  const out: Record<string, unknown> = {};
  if (outputs.some((o) => o.continue === false)) out.continue = false;
  if (outputs.some((o) => o.suppressOutput)) out.suppressOutput = true;
  const stopReason = join(outputs.map((o) => o.stopReason), MAX_REASON_CHARS);
  if (stopReason) out.stopReason = stopReason;
  const decision = outputs.some((o) => o.decision === "block") ? "block" : outputs.some((o) => o.decision === "approve") ? "approve" : undefined;
  if (decision) {
    out.decision = decision;
    const reason = join(outputs.filter((o) => o.decision === decision).map((o) => o.reason), MAX_REASON_CHARS);
    if (reason) out.reason = reason;
  }
  const systemMessage = join(outputs.map((o) => o.systemMessage));
  if (systemMessage) out.systemMessage = systemMessage;
  const specifics = outputs.flatMap((o) => (o.hookSpecificOutput ? [o.hookSpecificOutput as Record<string, unknown>] : []));
  if (specifics.length > 0) {
    const s: Record<string, unknown> = Object.assign({}, ...specifics);
    const context = join(specifics.map((x) => x.additionalContext as string | undefined));
    if (context) s.additionalContext = context;
    const decisions = specifics.map((x) => x.permissionDecision).filter((d): d is (typeof ORDER)[number] => typeof d === "string");
    if (decisions.length > 0) {
      const winner = decisions.reduce((a, b) => (ORDER.indexOf(b) > ORDER.indexOf(a) ? b : a));
      s.permissionDecision = winner;
      const reason = join(specifics.filter((x) => x.permissionDecision === winner).map((x) => x.permissionDecisionReason as string | undefined), MAX_REASON_CHARS);
      if (reason) s.permissionDecisionReason = reason;
      else delete s.permissionDecisionReason;
    }
    out.hookSpecificOutput = s;
  }
  return out as ClaudeHookOutput;
}
