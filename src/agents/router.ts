/**
 * The one router of agents' command hooks (`hookbox claude-hook`, `codex-hook`, `gemini-hook`): for
 * one event the agent sends, select the user's and the project's hooks by the agent's matching, run
 * them in parallel, each with its deadline and bounded output, and answer the agent once, always
 * before the agent's deadline for the router, all by the agent's row (./dialect.ts). The user's
 * hooks run as the user without secret-looking variables; the project's only as approved (`hookbox
 * trust`), in the bubblewrap sandbox, held to `restrict`. On a fail-closed event any failure blocks
 * the call. Every hook's run and every refusal is a decision record (src/observe/launch.ts).
 */
import { appendFileSync } from "node:fs";
import { describeThrown, Errors, HookFailure } from "../contract/errors.js";
import { terminalText } from "../gates/terminal-text.js";
import { verifyPinnedEach } from "../approval/store.js";
import type { Approved } from "../contract/approved.js";
import { SECRET_NAME } from "../policy/policy.js";
import { runShellHook, type ShellOutcome } from "../shell/run.js";
import { PROJECT_HOOK_POLICY } from "../approval/command-hook.js";
import { hookKey } from "../approval/keys.js";
import { hookRecorder } from "../observe/hook-recorder.js";
import { childEnv } from "../../worker/child-env.mjs";
import { claimOnce } from "./once.js";
import { routerTimeoutMs } from "./routing-hook.js";
import { SHELL } from "./sandbox.js";
import { describeFailure } from "./answer.js";
import type { AgentReply, Dialect, HookAnswer, RoutedHook, RoutePlan } from "./dialect.js";

/** How long before the agent's deadline the watchdog answers (at most a quarter of the timeout): node's exit and the agent's read fit in it. */
const WATCHDOG_LEAD_MS = 5_000;

export interface RouteOptions {
  /** Time already spent in this process before the call (the router's own start-up), in ms: the watchdog counts from the agent's start of it. */
  spentMs?: number;
}

export const isProject = (hook: { source: string }): boolean => hook.source !== "user";

/**
 * The approval check of each of the project's `hooks` (undefined for the user's): the store read
 * once, every file hashed once whichever hooks name it, stopped by `signal`; a failure, or the
 * approval's digest.
 */
export function approvalChecks<H extends RoutedHook>(d: Pick<Dialect<never, H, never>, "agent" | "fingerprint">, project: string, hooks: readonly H[], options: { approvals?: string; signal?: AbortSignal } = {}): Array<Promise<HookFailure | Approved> | undefined> {
  const project_ = hooks.filter(isProject);
  const checks = verifyPinnedEach(project, project_.map((hook) => ({
    path: hookKey(hook), policy: PROJECT_HOOK_POLICY, noun: `a ${d.agent} hook`, pinned: (reader) => d.fingerprint(project, hook, reader),
  })), options);
  return hooks.map((hook) => (isProject(hook) ? checks[project_.indexOf(hook)] : undefined));
}

/** How many of the plan's project hooks the approvals store does not approve as they are now (the launcher says so at start). */
export async function pendingApprovals<H extends RoutedHook>(d: Pick<Dialect<never, H, never>, "agent" | "fingerprint">, plan: Pick<RoutePlan<H>, "project" | "hooks" | "approvals">): Promise<number> {
  const checks = await Promise.all(approvalChecks(d, plan.project, plan.hooks, plan.approvals ? { approvals: plan.approvals } : {}));
  return checks.filter((c) => c instanceof HookFailure).length;
}

/**
 * Answer one event (`input`: the JSON the agent wrote on stdin, `raw` its text), always before the
 * agent's deadline: a watchdog armed first answers with what the hooks answered so far and a
 * `timeout` for each one still running (on a fail-closed event: blocked), and stops them. The
 * user's hooks start at once; the project's start as their approval checks pass, which run
 * concurrently.
 */
export async function route<O extends object, H extends RoutedHook, P extends RoutePlan<H>>(d: Dialect<O, H, P>, plan: P, input: Record<string, unknown>, raw: string, options: RouteOptions = {}): Promise<AgentReply> {
  const event = String(input.hook_event_name);
  if (!d.events.includes(event)) return d.answer(event, [], []);
  const timeoutMs = plan.timeoutS !== undefined ? plan.timeoutS * 1000 : routerTimeoutMs(plan.hooks.map((h) => d.timeoutMs(h)));
  const stop = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), Math.max(0, timeoutMs - Math.min(WATCHDOG_LEAD_MS, timeoutMs / 4) - (options.spentMs ?? 0)));
  });
  try {
    const hooks = d.select(plan.hooks, event, input).filter((h) => claimOnce(h, input));
    const refused = d.select(plan.refused, event, input);
    const record = hookRecorder(d.recordAs, d.failClosed, plan.project, event, input);
    const checks = approvalChecks(d, plan.project, hooks, { ...(plan.approvals ? { approvals: plan.approvals } : {}), signal: stop.signal });
    const answers: Array<HookAnswer<O> | undefined> = hooks.map(() => undefined);
    const runs = hooks.map(async (hook, i) => {
      // A fault of hookbox's own (a sandbox that cannot start) is that hook's failure, never the whole answer's.
      answers[i] = await record.run(hook, d.timeoutMs(hook), runOne(d, plan, hook, event, input, raw, checks[i], stop.signal)
        .catch((err: unknown): HookAnswer<O> => ({ kind: "failed", failure: Errors.crashed(d.label(hook), event, `hookbox could not run it: ${describeThrown(err)}`) })));
    });
    const outcome = await Promise.race([Promise.all(runs).then(() => "done" as const), late]);
    if (outcome === "late") {
      stop.abort();
      const seconds = Math.round(timeoutMs / 1000);
      answers.forEach((a, i) => {
        const name = d.label(hooks[i]!);
        if (a === undefined) answers[i] = { kind: "failed", failure: new HookFailure("timeout", name, event, `${name} had not answered when hookbox's router had to answer ${d.agent} (its deadline for the router is ${seconds} s, after which it would let the call through); it was stopped.`) };
      });
    }
    record.refused(refused);
    const answer = d.answer(event, answers as HookAnswer<O>[], refused.map((r) => `${d.label(r)} was not run: ${r.reason}.`));
    tellLauncher(plan, answers as HookAnswer<O>[]);
    return answer;
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
}

async function runOne<O extends object, H extends RoutedHook, P extends RoutePlan<H>>(d: Dialect<O, H, P>, plan: P, hook: H, event: string, input: Record<string, unknown>, raw: string,
  check: Promise<HookFailure | Approved> | undefined, signal: AbortSignal): Promise<HookAnswer<O>> {
  if (!check) return d.runUser(plan, hook, event, raw, signal);
  const verdict = await check;
  if (verdict instanceof HookFailure) return { kind: "failed", failure: verdict };
  signal.throwIfAborted();
  return { ...await d.runProject(plan, hook, event, input, raw, signal), approved: verdict.digest };
}

/** Run a user's hook as the user: the user's variables without secret-looking ones, then `vars` (the agent's project folder variables, the definition's own). */
export function runAsUser(plan: Pick<RoutePlan, "project" | "maxOutputBytes">, command: string, raw: string, vars: ReadonlyArray<readonly [string, string]>, timeoutMs: number, signal: AbortSignal): Promise<ShellOutcome> {
  const env = childEnv([...Object.entries(process.env).filter(([k]) => !SECRET_NAME.test(k)), ...vars]);
  return runShellHook(SHELL, raw, { cwd: plan.project, env, timeoutMs, maxOutputBytes: plan.maxOutputBytes, args: ["-c", command], signal });
}

/** Failures and notices also reach the launcher's stderr (it prints `plan.notices` when the agent ends). */
function tellLauncher(plan: Pick<RoutePlan, "notices">, answers: HookAnswer<unknown>[]): void {
  if (!plan.notices) return;
  const lines = answers.flatMap((a) => [...(a.kind === "failed" ? [describeFailure(a.failure)] : []), ...(a.notices ?? [])]);
  if (lines.length === 0) return;
  try { appendFileSync(plan.notices, lines.map((l) => `${terminalText(l, { colors: false })}\n`).join("")); } catch { /* the launcher is gone */ }
}
