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
import type { HookFailure } from "../contract/errors.js";
import { terminalText } from "../gates/terminal-text.js";
import { SECRET_NAME } from "../policy/policy.js";
import { runShellHook } from "../shell/run.js";
import { claudeRecorder } from "../observe/launch.js";
import { childEnv } from "../../worker/child-env.mjs";
import { cut } from "../../worker/describe.mjs";
import { interpretRun, type ClaudeHookOutput, type HookAnswer } from "./output.js";
import { runProjectHook } from "./project-run.js";
import { isClaudeHookEvent, selectHooks, type ClaudeHook, type ClaudeHookEvent, type RefusedHook } from "./settings.js";

/** What the launcher hands every `claude-hook` run (a file only the user can read). */
export interface ClaudePlan {
  project: string;
  hooks: ClaudeHook[];
  refused: RefusedHook[];
  /** The approvals folder (default: the user's config folder). */
  approvals?: string;
  /** Largest stdout, and largest stderr, of one hook, in bytes. */
  maxOutputBytes: number;
  /** A file the launcher prints on its stderr when Claude Code ends: every failure and refusal, with what to do. */
  notices?: string;
  /** The launcher's OTEL_EXPORTER_OTLP_* variables, which Claude Code does not pass to hooks: the router exports its spans with them (src/observe/otlp.ts). */
  otel?: Record<string, string>;
}

/** Claude Code's reading of a command hook's end: exit 2 blocks (stderr to the model), 0 reads stdout. */
export interface RouterAnswer { code: 0 | 1 | 2; stdout: string; stderr: string }

/** Events where a failed hook blocks (fail closed): the call it guards does not run. */
const FAIL_CLOSED = new Set<string>(["PreToolUse", "PermissionRequest"]);
const SHELL = existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";

const isProject = (hook: { source: string }) => hook.source !== "user";
const label = (hook: ClaudeHook | RefusedHook) => `${isProject(hook) ? "the project's" : "your"} Claude Code hook ${hook.file}#${hook.at}`;

/** Answer one event (`input`: the JSON Claude Code wrote on stdin). */
export async function routeEvent(plan: ClaudePlan, input: Record<string, unknown>, raw: string): Promise<RouterAnswer> {
  const event = String(input.hook_event_name);
  if (!isClaudeHookEvent(event)) return { code: 0, stdout: "", stderr: "" };
  const hooks = selectHooks(plan.hooks, event, input);
  const refused = selectHooks(plan.refused.filter((r) => isClaudeHookEvent(r.event)), event, input);
  // Every hook's run and every refusal is a decision record (the audit log; spans with OpenTelemetry): src/observe/launch.ts.
  const record = claudeRecorder(plan.project, event, input);
  const answers = await Promise.all(hooks.map((hook) => record.run(hook, runOne(plan, hook, event, input, raw))));
  record.refused(refused);
  const answer = combine(event, answers, refused.map((r) => `${label(r)} was not run: ${r.reason}.`));
  tellLauncher(plan, answers);
  return answer;
}

/** Failures and notices also reach the launcher's stderr (it prints `plan.notices` when Claude Code ends). */
function tellLauncher(plan: ClaudePlan, answers: HookAnswer[]): void {
  if (!plan.notices) return;
  const lines = answers.flatMap((a) => [...(a.kind === "failed" ? [describe(a.failure)] : []), ...(a.notices ?? [])]);
  if (lines.length === 0) return;
  try { appendFileSync(plan.notices, lines.map((l) => `${terminalText(l, { colors: false })}\n`).join("")); } catch { /* the launcher is gone */ }
}

async function runOne(plan: ClaudePlan, hook: ClaudeHook, event: ClaudeHookEvent, input: Record<string, unknown>, raw: string): Promise<HookAnswer> {
  const name = label(hook);
  const untrusted = isProject(hook);
  const timeoutMs = hook.timeoutS * 1000;
  if (!untrusted) {
    const env = childEnv([...Object.entries(process.env).filter(([k]) => !SECRET_NAME.test(k)), ["CLAUDE_PROJECT_DIR", plan.project]]);
    const outcome = await runShellHook(SHELL, raw, { cwd: plan.project, env, timeoutMs, maxOutputBytes: plan.maxOutputBytes, args: ["-c", hook.command] });
    return interpretRun({ name, untrusted }, event, outcome);
  }
  return runProjectHook(plan, hook, event, input, raw, name);
}

const ORDER = ["allow", "ask", "defer", "deny"] as const;

/** One answer for Claude Code from every hook's, by Claude Code's rules (deny over defer over ask over allow). */
export function combine(event: string, answers: HookAnswer[], refused: string[]): RouterAnswer {
  const failures = [...answers.flatMap((a) => (a.kind === "failed" ? [describe(a.failure)] : [])), ...refused];
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
