/**
 * The router of an agent's command hooks (`hookbox gemini-hook`): for one event the agent sends,
 * select the user's and the project's hooks by the agent's matching, run them in parallel, each
 * with its deadline and bounded output, and answer the agent once, all by the agent's row of the
 * dialect table (src/agents/dialect.ts). The user's hooks run as the user without secret-looking
 * variables; the project's only as approved (`hookbox trust`), in the bubblewrap sandbox, held to
 * `restrict`. On a fail-closed event any failure blocks the call.
 */
import { Errors, HookFailure } from "../contract/errors.js";
import { terminalText } from "../gates/terminal-text.js";
import { ApprovalStore, FingerprintError, PinReader, pinnedFingerprint, projectKey, type Fingerprint } from "../approval/store.js";
import { sandboxAvailability, sandboxLauncher, type SandboxSpec } from "../isolation/bubblewrap/bwrap.js";
import { SECRET_NAME } from "../policy/policy.js";
import { runShellHook, type ShellOutcome } from "../shell/run.js";
import { claudeHookPins, CLAUDE_PROJECT_POLICY } from "../claude/approval.js";
import { APPROVABLE_FORM } from "../claude/command-pins.js";
import { SANDBOX_MEMORY_MB, SANDBOX_PATH, SHELL, SYSTEM_READS } from "../claude/project-run.js";
import { cut } from "../../worker/describe.mjs";
import type { AgentHook, AgentReply, Dialect, RefusedAgentHook } from "./dialect.js";

/** What the launcher hands every routing run (a file only the user can read). */
export interface AgentPlan {
  project: string;
  hooks: AgentHook[];
  refused: RefusedAgentHook[];
  approvals?: string;
  maxOutputBytes: number;
}

type Answer<O> = { kind: "ok"; output?: O } | { kind: "block"; reason: string } | { kind: "failed"; failure: HookFailure };

const MAX_REASON_CHARS = 1000;
const hookText = (text: string, max?: number) => terminalText(max === undefined ? text : cut(text, max), { colors: false, multiline: true });
const tail = (s: string, max = 2_000) => (s.length > max ? `…${s.slice(-max)}` : s).trim();
const isProject = (hook: { source: string }) => hook.source !== "user";
const label = (d: Dialect<never>, hook: AgentHook | RefusedAgentHook) => `${isProject(hook) ? "the project's" : "your"} ${d.agent} hook ${hook.file}#${hook.at}`;

/** The approvals store's key of a project's hook: where it is defined. */
export const agentHookKey = (hook: Pick<AgentHook, "file" | "at">): string => `${hook.file}#${hook.at}`;

/** What an approval pins: the definition, every project file its command names (as bash parses it), and their folders below the root. */
export async function agentHookFingerprint(d: Dialect<never>, project: string, hook: AgentHook, reader: PinReader = new PinReader()): Promise<Fingerprint> {
  const root = projectKey(project);
  const vars = d.projectDirVars.length > 0 ? new RegExp(`\\$\\{?(${d.projectDirVars.join("|")})\\}?`, "g") : undefined;
  // As a Claude Code hook's: what bash can reach, or why it cannot be approved as it stands (src/claude/command-pins.ts).
  const { files, folders, refusals } = claudeHookPins(root, { command: vars ? hook.command.replace(vars, root) : hook.command });
  if (refusals.length > 0) throw new FingerprintError(`its command cannot be approved as it stands: ${refusals.join("; ")}; ${APPROVABLE_FORM}`);
  const definition = { agent: d.agent, event: hook.event, matcher: hook.matcher ?? null, command: hook.command, timeoutMs: hook.timeoutMs, env: hook.env ?? null };
  return pinnedFingerprint(agentHookKey(hook), definition, { root, files, folders }, CLAUDE_PROJECT_POLICY, reader);
}

/** Whether the approvals store approves a project's hook as it is now (undefined) or why not. */
export function notApproved(d: Dialect<never>, plan: Pick<AgentPlan, "project" | "approvals">, hook: AgentHook): Promise<HookFailure | undefined> {
  const store = new ApprovalStore(plan.approvals ? { dir: plan.approvals } : {});
  return store.checkPinned(plan.project, { path: agentHookKey(hook), policy: CLAUDE_PROJECT_POLICY, pinned: () => agentHookFingerprint(d, plan.project, hook), noun: `a ${d.agent} hook` });
}

/** The hooks of `event` whose matcher selects this input, by the agent's rule. */
export function selectAgentHooks<H extends { event: string; matcher?: string }>(d: Dialect<never>, hooks: H[], event: string, input: Record<string, unknown>): H[] {
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

/** Answer one event (`input`: the JSON the agent wrote on stdin, `raw` its text). */
export async function routeAgentEvent<O>(d: Dialect<O>, plan: AgentPlan, input: Record<string, unknown>, raw: string): Promise<AgentReply> {
  const event = String(input.hook_event_name);
  if (!d.events.includes(event)) return d.reply({ warnings: [] });
  const dn = d as unknown as Dialect<never>;
  const hooks = selectAgentHooks(dn, plan.hooks, event, input);
  const refused = selectAgentHooks(dn, plan.refused, event, input).map((r) => `${label(dn, r)} was not run: ${r.reason}.`);
  const answers = await Promise.all(hooks.map((hook) => runAgentHook(d, plan, hook, raw)));
  const failures = [...answers.flatMap((a) => (a.kind === "failed" ? [`${a.failure.message} (${a.failure.code})`] : [])), ...refused];
  const blocks = answers.flatMap((a) => (a.kind === "block" ? [hookText(a.reason, MAX_REASON_CHARS)] : []));
  if (d.failClosed.has(event) && failures.length > 0) return d.reply({ blocked: [`hookbox blocked this call: ${failures.join(" ")}`, ...blocks].join("\n") });
  if (blocks.length > 0) return d.reply({ blocked: blocks.join("\n") });
  const outputs = answers.flatMap((a) => (a.kind === "ok" && a.output ? [a.output] : []));
  const join = (values: Array<string | undefined>, reasons?: boolean) => {
    const given = values.filter((v): v is string => v !== undefined).map((v) => hookText(v, reasons ? MAX_REASON_CHARS : undefined));
    return given.length > 0 ? given.join("\n") : undefined;
  };
  return d.reply({ ...(outputs.length > 0 ? { output: d.merge(outputs, join) } : {}), warnings: failures });
}

async function runAgentHook<O>(d: Dialect<O>, plan: AgentPlan, hook: AgentHook, raw: string): Promise<Answer<O>> {
  const dn = d as unknown as Dialect<never>;
  const name = label(dn, hook);
  const dirs = d.projectDirVars.map((v) => [v, plan.project] as [string, string]);
  const options = { cwd: plan.project, timeoutMs: hook.timeoutMs, maxOutputBytes: plan.maxOutputBytes };
  if (!isProject(hook)) {
    const env = Object.fromEntries([...Object.entries(process.env).filter(([k]) => !SECRET_NAME.test(k)), ...dirs, ...Object.entries(hook.env ?? {})]);
    return interpretAgentRun(d, name, false, hook.event, await runShellHook(SHELL, raw, { ...options, env, args: ["-c", hook.command] }));
  }
  const refusal = await notApproved(dn, plan, hook);
  if (refusal) return { kind: "failed", failure: refusal };
  const avail = sandboxAvailability();
  if (!avail.ok) return { kind: "failed", failure: Errors.crashed(name, hook.event, `it must run in the sandbox, which cannot be built here: ${avail.reason}`) };
  const spec: SandboxSpec = {
    readOnly: [...SYSTEM_READS, plan.project],
    // The definition's own variables, then the sandbox's: a project cannot move PATH or HOME.
    env: { ...hook.env, ...Object.fromEntries(dirs), PATH: SANDBOX_PATH, LANG: "C.UTF-8", HOME: process.env.HOME },
    chdir: plan.project,
    memoryMb: SANDBOX_MEMORY_MB,
  };
  const launcher = sandboxLauncher(spec);
  try {
    const line = launcher.wrap([SHELL, "-c", hook.command]);
    return interpretAgentRun(d, name, true, hook.event, await runShellHook(line.command, raw, { ...options, env: line.env, args: line.args }));
  } finally {
    launcher.afterDeath?.();
  }
}

/** Read a finished run by the agent's rules, then hold a project's hook to `restrict`. Exported for the dialect tests. */
export function interpretAgentRun<O>(d: Dialect<O>, name: string, untrusted: boolean, event: string, outcome: ShellOutcome): Answer<O> {
  const fail = (failure: HookFailure): Answer<O> => ({ kind: "failed", failure });
  const refuse = (field: string, why: string) => fail(new HookFailure("effect_refused", name, event,
    `${name} answered ${field} during ${event}, a substitute effect (${why}), which a project's hook does not get (policy.effects "restrict": it may block, deny or stop, with a reason); it was not applied.`));
  switch (outcome.kind) {
    case "timeout": return fail(new HookFailure("timeout", name, event, `${name} did not exit within its timeout (${outcome.ms / 1000} s) on ${event}; its process group was killed.`));
    case "too_large": return fail(new HookFailure("result_too_large", name, event, `${name} wrote more than ${outcome.limit} bytes to ${outcome.stream} on ${event}; it was killed.`));
    case "signaled": return fail(Errors.crashed(name, event, `killed by ${outcome.signal}`));
    case "spawn_failed": return fail(Errors.crashed(name, event, `could not be started (${outcome.message})`));
  }
  if (d.exitBlocks.has(outcome.code)) {
    if (untrusted && !d.blockStops.has(event)) return refuse(`exit ${outcome.code}`, `on ${event} it makes the agent go on or feeds the model the hook's text`);
    return { kind: "block", reason: tail(outcome.stderr) || tail(outcome.stdout) || `${name} blocked (exit ${outcome.code})` };
  }
  if (outcome.code !== 0) return fail(Errors.crashed(name, event, `exited with code ${outcome.code}${outcome.stderr.trim() ? `; stderr: ${tail(outcome.stderr, 500)}` : ""}`));
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
  const parsed = d.output.safeParse(value);
  if (!parsed.success) return fail(Errors.invalidResult(name, event, `not a ${d.agent} hook output: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(output)"}: ${i.message}`).join("; ")}`));
  if (untrusted) {
    const field = d.substitution.call(d, event, parsed.data);
    if (field) return refuse(field.name, field.why);
  }
  return { kind: "ok", output: parsed.data };
}
