/**
 * The routing members of a command-hook agent's row (Codex CLI, Gemini CLI), from its data
 * (./dialect.ts `CommandDialect`): matching by the row's matcher table, a user's hook run as the
 * user with the row's project variables and the definition's own, a project's in the bubblewrap
 * sandbox, a hook's end read by the row's exit statuses and output schema and held to `restrict`,
 * and the answers merged and written back by the row's `merge` and `reply`.
 */
import { Errors, HookFailure } from "../contract/errors.js";
import { FingerprintError, PinReader, pinnedFingerprint, projectKey, type Fingerprint } from "../approval/store.js";
import { sandboxAvailability, sandboxLauncher, type SandboxSpec } from "../isolation/bubblewrap/bwrap.js";
import { runShellHook, tail, unanswered, type ShellOutcome } from "../shell/run.js";
import { commandHookPins, PROJECT_HOOK_POLICY } from "../approval/command-hook.js";
import { hookKey } from "../approval/keys.js";
import { hookText, joinTexts, MAX_REASON_CHARS, named } from "./answer.js";
import { SANDBOX_MEMORY_MB, SHELL } from "./sandbox.js";
import { SANDBOX_PATH, SYSTEM_READS } from "../isolation/bubblewrap/system-reads.js";
import { isProject, runAsUser } from "./router.js";
import type { AgentHook, AgentPlan, CommandDialect, Dialect, HookAnswer, RefusedRoutedHook } from "./dialect.js";

/** A command-hook agent's row without the routing members, which `commandDialect` adds. */
export type CommandData<O> = Omit<CommandDialect<O>, keyof Omit<Dialect<O, AgentHook, AgentPlan>, "agent" | "recordAs" | "launcher" | "events" | "failClosed" | "projectDirVars" | "approvableForm">>;

/** What an approval pins: the definition, every project file its command names (as bash parses it), and their folders below the root. */
export async function agentHookFingerprint(d: Pick<CommandData<never>, "agent" | "projectDirVars" | "approvableForm">, project: string, hook: AgentHook, reader: PinReader = new PinReader()): Promise<Fingerprint> {
  const root = projectKey(project);
  // As a Claude Code hook's: what bash can reach, or why it cannot be approved as it stands (src/approval/command-pins.ts).
  const { files, folders, refusals } = commandHookPins(root, hook, d.projectDirVars);
  if (refusals.length > 0) throw new FingerprintError(`its command cannot be approved as it stands: ${refusals.join("; ")}; ${d.approvableForm}`);
  const definition = { agent: d.agent, event: hook.event, matcher: hook.matcher ?? null, command: hook.command, timeoutMs: hook.timeoutMs, env: hook.env ?? null };
  return pinnedFingerprint(hookKey(hook), definition, { root, files, folders }, PROJECT_HOOK_POLICY, reader);
}

/** The hooks of `event` whose matcher selects this input, by the agent's rule. */
export function selectAgentHooks<H extends { event: string; matcher?: string }>(d: Pick<CommandData<never>, "matchers">, hooks: readonly H[], event: string, input: Record<string, unknown>): H[] {
  const rule = d.matchers[event];
  return hooks.filter((h) => {
    if (h.event !== event) return false;
    const matcher = h.matcher?.trim();
    if (!rule || !matcher || matcher === "*") return true;
    const value = input[rule.field];
    if (typeof value !== "string") return true;
    if (!rule.regex) return matcher === value;
    try {
      return new RegExp(matcher).test(value);
    } catch {
      return matcher === value;
    }
  });
}

/** The row of a command-hook agent: its data, and the routing members read from it. */
export function commandDialect<O>(data: CommandData<O>): CommandDialect<O> {
  const d: CommandDialect<O> = {
    ...data,
    select: (hooks, event, input) => selectAgentHooks(data, hooks, event, input),
    timeoutMs: (hook) => hook.timeoutMs,
    label: (hook: AgentHook | RefusedRoutedHook) => `${isProject(hook) ? "the project's" : "your"} ${data.agent} hook ${hook.file}#${hook.at}`,
    fingerprint: (project, hook, reader) => agentHookFingerprint(data, project, hook, reader),
    async runUser(plan, hook, event, raw, signal) {
      const vars = [...data.projectDirVars.map((v) => [v, plan.project] as const), ...Object.entries(hook.env ?? {})];
      return interpretAgentRun(d, d.label(hook), false, event, await runAsUser(plan, hook.command, raw, vars, hook.timeoutMs, signal));
    },
    runProject: (plan, hook, event, _input, raw, signal) => runSandboxed(d, plan, hook, event, raw, signal),
    written: (_event, reply) => reply,
    routerFailed: (event, message) => (data.failClosed.has(event) ? data.reply({ blocked: message }) : data.reply({ warnings: [message] })),
    answer(event, answers, refused) {
      const failures = named([...answers.flatMap((a) => (a.kind === "failed" ? [a.failure] : [])), ...refused]);
      const blocks = answers.flatMap((a) => (a.kind === "block" ? [hookText(a.reason, MAX_REASON_CHARS)] : []));
      if (data.failClosed.has(event) && failures.length > 0) return data.reply({ blocked: [`hookbox blocked this call: ${failures.join(" ")}`, ...blocks].join("\n") });
      if (blocks.length > 0) return data.reply({ blocked: blocks.join("\n") });
      const outputs = answers.flatMap((a) => (a.kind === "ok" && a.output ? [a.output] : []));
      return data.reply({ ...(outputs.length > 0 ? { output: data.merge(outputs, joinTexts) } : {}), warnings: failures });
    },
  };
  return d;
}

/** A project's hook in the sandbox: no network, the project read-only, the user's HOME path empty, none of the user's variables. */
async function runSandboxed<O>(d: CommandDialect<O>, plan: AgentPlan, hook: AgentHook, event: string, raw: string, signal: AbortSignal): Promise<HookAnswer<O>> {
  const name = d.label(hook);
  const avail = sandboxAvailability();
  if (!avail.ok) return { kind: "failed", failure: Errors.crashed(name, event, `it must run in the sandbox, which cannot be built here: ${avail.reason}`) };
  const spec: SandboxSpec = {
    readOnly: [...SYSTEM_READS, plan.project],
    // The definition's own variables, then the sandbox's: a project cannot move PATH or HOME.
    env: { ...hook.env, ...Object.fromEntries(d.projectDirVars.map((v) => [v, plan.project])), PATH: SANDBOX_PATH, LANG: "C.UTF-8", HOME: process.env.HOME },
    chdir: plan.project,
    memoryMb: SANDBOX_MEMORY_MB,
  };
  const launcher = sandboxLauncher(spec);
  try {
    const line = launcher.wrap([SHELL, "-c", hook.command]);
    return interpretAgentRun(d, name, true, event, await runShellHook(line.command, raw, { cwd: plan.project, timeoutMs: hook.timeoutMs, maxOutputBytes: plan.maxOutputBytes, env: line.env, args: line.args, signal }));
  } finally {
    launcher.afterDeath?.();
  }
}

/** Read a finished run by the agent's rules, then hold a project's hook to `restrict`. Exported for the dialect tests. */
export function interpretAgentRun<O>(d: CommandData<O>, name: string, untrusted: boolean, event: string, outcome: ShellOutcome): HookAnswer<O> {
  const fail = (failure: HookFailure): HookAnswer<O> => ({ kind: "failed", failure });
  const refuse = (field: string, why: string) => fail(new HookFailure("effect_refused", name, event,
    `${name} answered ${field} during ${event}, a substitute effect (${why}), which a project's hook does not get (policy.effects "restrict": it may block, deny or stop, with a reason); it was not applied.`));
  const failure = unanswered(name, event, outcome, new Set([0, ...d.exitBlocks]));
  if (failure || outcome.kind !== "exited") return fail(failure!);
  if (d.exitBlocks.has(outcome.code)) {
    if (untrusted && !d.blockStops.has(event)) return refuse(`exit ${outcome.code}`, `on ${event} it makes the agent go on or feeds the model the hook's text`);
    return { kind: "block", reason: tail(outcome.stderr) || tail(outcome.stdout) || `${name} blocked (exit ${outcome.code})` };
  }
  const text = outcome.stdout.trim();
  if (text === "") return { kind: "ok" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    if (/^[[{]/.test(text)) return fail(Errors.invalidResult(name, event, `stdout starts as JSON but is not (${(e as Error).message}): ${tail(text, 200)}`));
    if (untrusted) return refuse("plain text", `${d.agent} shows it to the user in its own name`);
    return { kind: "ok", output: { systemMessage: text } as O };
  }
  const parsed = (d.eventOutput?.[event] ?? d.output).safeParse(value);
  if (!parsed.success) return fail(Errors.invalidResult(name, event, `not a ${d.agent} hook output: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(output)"}: ${i.message}`).join("; ")}`));
  if (untrusted) {
    const field = d.substitution.call(d, event, parsed.data);
    if (field) return refuse(field.name, field.why);
  }
  // A null the agent reads as absent is parsed to undefined: dropped here, so that in the merge it does not cover another hook's value.
  return { kind: "ok", output: JSON.parse(JSON.stringify(parsed.data)) as O };
}
