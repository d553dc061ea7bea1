/**
 * One run of a project's Claude Code hook, once approved, in the bubblewrap sandbox with the
 * grants its approval carries (./granted.ts), its answer held to the effects it was granted
 * (./output.ts), a Stop hook's `effects:continue` bounded per session, and what the sandbox refused
 * it reported once per hook and grant, each with the command that grants it.
 */
import { Errors, HookFailure, pathList } from "../contract/errors.js";
import { ApprovalStore, projectKey } from "../approval/store.js";
import { sandboxAvailability, sandboxLauncher } from "../isolation/bubblewrap/bwrap.js";
import { CONTINUE_LIMIT, grantCommand, parseGrants, type Grant } from "../policy/grants.js";
import { runShellHook, type ShellOutcome } from "../shell/run.js";
import { filesNamed } from "../approval/command-hook.js";
import { hookKey, isHookKey, isMcpKey } from "../approval/keys.js";
import { grantedSandbox, type GrantedSandbox, type SandboxRefusal } from "./granted.js";
import { NeedsStore } from "../approval/needs.js";
import { interpretRun, type HookAnswer } from "./output.js";
import type { ClaudeHook, ClaudeHookEvent } from "./settings.js";
import type { ClaudePlan } from "./plan.js";
import type { Dialect } from "../agents/dialect.js";
import { SANDBOX_MEMORY_MB, SHELL } from "../agents/sandbox.js";
import { SANDBOX_PATH, SYSTEM_READS } from "../isolation/bubblewrap/system-reads.js";

/** Where a killed sandbox has no cgroup to read: how long its processes are given to end before its granted folders are walked. */
const KILLED_GRACE_MS = 200;
/** The most refusals one run reports (each once per hook and kind). */
const MAX_NOTICES = 20;

/** A short name for the hook in the text it adds: the project file it runs, else where it is defined. */
function shortName(project: string, hook: ClaudeHook, projectDirVars: readonly string[]): string {
  const root = projectKey(project);
  const file = filesNamed(root, hook.command, projectDirVars)[0];
  return file ? `hook ${file.slice(root.length + 1)}` : `hook ${hook.at}`;
}

/** Every grant approved for the project's Claude Code hooks and MCP servers, so a command built from them takes none away. */
export function projectGrants(store: ApprovalStore, project: string): string[] {
  const modules = store.read().projects[projectKey(project)]?.modules ?? {};
  return [...new Set(Object.entries(modules).filter(([k]) => isHookKey(k) || isMcpKey(k)).flatMap(([, m]) => m.grants ?? []))];
}

/**
 * Run the project's `hook` on `event`, once the router checked its approval (src/agents/router.ts's
 * approvalChecks); `d`: Claude Code's row (the variables that name the project); `name`: how messages call it; `signal` stops it (the router's watchdog).
 */
export async function runProjectHook(d: Pick<Dialect, "projectDirVars">, plan: ClaudePlan, hook: ClaudeHook, event: ClaudeHookEvent, input: Record<string, unknown>, raw: string, name: string, signal?: AbortSignal): Promise<HookAnswer> {
  const store = new ApprovalStore(plan.approvals ? { dir: plan.approvals } : {});
  const key = hookKey(hook);
  const avail = sandboxAvailability();
  if (!avail.ok) return { kind: "failed", failure: Errors.crashed(name, event, `it must run in the sandbox, which cannot be built here: ${avail.reason}`) };
  const approved = store.grants(plan.project, key);
  let grants: Grant[];
  try {
    grants = parseGrants(approved, plan.project);
  } catch (err) {
    return { kind: "failed", failure: Errors.notApproved(name, `its approval carries a grant hookbox does not give (${(err as Error).message}); run hookbox trust again`) };
  }
  const allow = (grant: string) => grantCommand(projectKey(plan.project), [...projectGrants(store, plan.project), grant]);
  const base = {
    project: plan.project, ...(plan.projectSource ? { projectSource: plan.projectSource } : {}), systemReads: SYSTEM_READS, path: SANDBOX_PATH, memoryMb: SANDBOX_MEMORY_MB,
    // HOME names the user's HOME path, where the sandbox mounts its own empty home (sandboxHome).
    env: { LANG: "C.UTF-8", HOME: process.env.HOME, ...Object.fromEntries(d.projectDirVars.map((v) => [v, plan.project])) },
  };
  const label = { name, untrusted: true, command: hook.command, granted: new Set(approved), allow, short: shortName(plan.project, hook, d.projectDirVars) };
  let ran = await runIn(await grantedSandbox(base, grants, event, input), plan, hook, raw, signal);
  // Why try first: a probe would cost every event a namespace; where the layer cannot be made, the hook runs on a read-only project.
  if ("outcome" in ran && ran.layerFailed) ran = await runIn(await grantedSandbox(base, grants, event, input, false), plan, hook, raw, signal);
  if (!("outcome" in ran)) return { kind: "failed", failure: Errors.crashed(name, event, `it did not run: ${ran.tooLarge}`) };
  const { outcome, refusals, notGiven, planted } = ran;
  let answer = interpretRun(label, event, outcome);
  // Why after the answer is read and before it is applied: Claude Code waits on the hook, so nothing read the folder in between.
  if (planted.removed.length > 0) answer = { kind: "failed", failure: Errors.planted(name, event, planted.removed, ...planted.left.length > 0 ? [`hookbox could not remove ${pathList(planted.left)} (remove it yourself) and did not apply the hook's answer`] : []) };
  else if (planted.tooLarge) answer = { kind: "failed", failure: Errors.crashed(name, event, planted.tooLarge) };
  const needs = new NeedsStore(plan.approvals ? { dir: plan.approvals } : {});
  answer = boundContinue(answer, needs, event, input, key, name);
  // A refusal no grant allows is kept by its kind and top folder, so a hook writing many files is told once per folder.
  const kindOf = (r: SandboxRefusal) => r.grant ?? `refused:${r.kind}:${r.what.split("/")[0]}`;
  const fresh = new Set(needs.record(plan.project, key, refusals.map(kindOf)));
  const told = new Set<string>();
  const notices = [
    ...notGiven.map((g) => `${name}: the grant ${g} was not given on this call.`),
    ...refusals.filter((r) => fresh.has(kindOf(r)) && !told.has(kindOf(r)) && told.add(kindOf(r))).map((r) => describeRefusal(name, r, allow)),
  ].slice(0, MAX_NOTICES);
  return notices.length > 0 ? { ...answer, notices } : answer;
}

type Ran = { outcome: ShellOutcome; refusals: SandboxRefusal[]; notGiven: string[]; layerFailed: boolean; planted: ReturnType<GrantedSandbox["planted"]> };

/** One run in `box`, what its sandbox refused and what it planted (read before the box is removed); not run when a granted folder is too large to walk. */
async function runIn(box: GrantedSandbox, plan: ClaudePlan, hook: ClaudeHook, raw: string, signal: AbortSignal | undefined): Promise<Ran | { tooLarge: string }> {
  if (box.tooLarge) { await box.close(); return { tooLarge: box.tooLarge }; }
  const launcher = sandboxLauncher(box.spec);
  try {
    const line = launcher.wrap(box.argv([SHELL, "-c", hook.command]));
    const outcome = await runShellHook(line.command, raw, { cwd: plan.project, env: line.env, timeoutMs: hook.timeoutS * 1000, maxOutputBytes: plan.maxOutputBytes, args: line.args, ...(signal ? { signal } : {}) });
    const layerFailed = outcome.kind === "exited" && outcome.code === 95 && box.layerFailed();
    // Why wait: a run killed (its deadline, too much output) is answered before its sandbox's last processes are gone, and one could still write.
    if (outcome.kind !== "exited" && !(await launcher.emptied())) await new Promise((r) => setTimeout(r, KILLED_GRACE_MS));
    return { outcome, refusals: layerFailed ? [] : box.refusals("stderr" in outcome ? outcome.stderr : ""), notGiven: box.notGiven, layerFailed, planted: box.planted() };
  } finally {
    launcher.afterDeath?.();
    await box.close();
  }
}

const VERB = { write: "wrote", exec: "ran", network: "reached for" } as const;
const DONE = { write: "the sandbox discarded the write", exec: "it is not on the sandbox's PATH", network: "the sandbox refused the connection" } as const;

function describeRefusal(name: string, r: SandboxRefusal, allow: (grant: string) => string): string {
  const what = r.what === "into the read-only project" ? `${name} wrote into the read-only project: the write was refused` : `${name} ${VERB[r.kind]} ${r.what}: ${DONE[r.kind]}`;
  return r.grant ? `${what} (reported once). To allow it: ${allow(r.grant)}` : `${what}; ${r.why} (reported once).`;
}

/** A Stop hook that keeps the agent going past CONTINUE_LIMIT times in a session: refused, the agent stops. */
function boundContinue(answer: HookAnswer, needs: NeedsStore, event: string, input: Record<string, unknown>, key: string, name: string): HookAnswer {
  // A Stop's additionalContext keeps the agent going too (Claude Code 2.1.328: "the conversation continues so the model can act on it").
  const continues = answer.kind === "block" || (answer.kind === "ok" && (answer.output?.decision === "block" || answer.output?.hookSpecificOutput?.additionalContext !== undefined));
  if (!continues || (event !== "Stop" && event !== "SubagentStop")) return answer;
  const before = needs.continued(String(input.session_id ?? "no-session"), key);
  if (before < CONTINUE_LIMIT) return answer;
  return { kind: "failed", failure: new HookFailure("effect_refused", name, event, `${name} kept the agent going ${CONTINUE_LIMIT} times this session, the bound of effects:continue; this time the agent stops.`) };
}
