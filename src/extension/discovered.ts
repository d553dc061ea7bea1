/**
 * `isolateDiscovered()`: one extension that isolates everything the agent would have loaded by
 * itself. The agent runs with its own discovery off (`pi --no-extensions -e <this file>`, or
 * `omp …`); this finds the same modules with the agent's own code (pi's package manager, oh-my-pi's
 * `discoverExtensionPaths`: src/discovery/agents.ts) and loads each
 * isolated: the user's own under the policy the user sets (default `confined`), the project's
 * under `untrusted` and only once the user approved exactly that code and policy
 * (src/approval/store.ts). An unapproved project module is not loaded, and every tool call is
 * blocked naming it and the command that approves it (fail closed).
 */
import { realpathSync } from "node:fs";
import type { ApprovalStore, ApprovalsOptions } from "../approval/store.js";
import { approvalCommand, projectKey } from "../approval/project.js";
import { grantCommand, GrantError, withGrants } from "../policy/grants.js";
import type { NeedsStore } from "../approval/needs.js";
import { ompModules, piDiscoveryOff, piModules, runningAgent, type AgentModule, type OmpModule } from "../discovery/agents.js";
import { Errors } from "../contract/errors.js";
import type { PolicyOption } from "../policy/policy.js";
import type { ProjectGrants } from "./notices.js";
import { agentLine, isolate, type IsolatedExtension, type IsolateOptions, type Unloaded } from "./adapter.js";

export interface IsolateDiscoveredOptions extends IsolateOptions {
  /** The policy of the project's modules. Default `"untrusted"` (the OS sandbox); an approval pins it. */
  project?: PolicyOption;
  /** Where approvals are kept (default: the user's config folder, src/approval/store.ts). */
  approvals?: ApprovalsOptions;
  /** pi only: the pi package whose rules find the modules. Default: the pi that runs. */
  piRoot?: string;
  /** pi only: the agent folder. Default: pi's (`PI_CODING_AGENT_DIR`, else `~/.pi/agent`). oh-my-pi says its own. */
  agentDir?: string;
  /** The project folder. Default: the agent's working directory. */
  cwd?: string;
}

/** Why the agent's own discovery being on refuses the discovering form: every module would run twice, once in-process. */
export const DISCOVERY_ON = "the agent discovered and loaded its extensions in its own process (it was not started with --no-extensions), " +
  "so isolating them again would run each twice, once unisolated: nothing was loaded by hookbox. Start it as `pi --no-extensions -e <hookbox's file>` (oh-my-pi: `omp --no-extensions -e <hookbox's file>`)";

/**
 * The extension factory that isolates what the agent would discover. Options are `isolate`'s (the
 * `policy` is the user's modules'), plus `project`, `approvals`, `piRoot`, `agentDir` and `cwd`.
 */
export function isolateDiscovered(options: IsolateDiscoveredOptions = {}): IsolatedExtension {
  const { project: projectPolicy = "untrusted", approvals, piRoot, agentDir, cwd: given, ...rest } = options;
  return async (pi) => {
    const cwd = given ?? process.cwd();
    const refuse = (error: string): Promise<void> => isolate([], {}, [{ path: "isolateDiscovered", code: "load_failed", error: Errors.loadFailed("isolateDiscovered", error).message }])(pi);
    const line = agentLine(pi);
    // Inside the agent (its own script runs this process) with its discovery on, it has loaded them already.
    if (runningAgent() !== undefined && !piDiscoveryOff()) return refuse(DISCOVERY_ON);
    let found;
    try {
      found = line === "omp" ? await ompModules((pi as unknown as { pi: OmpModule }).pi, cwd) : await piModules(cwd, { piRoot, agentDir });
    } catch (err) {
      return refuse(`the agent's own discovery failed: ${(err as Error).message}`);
    }
    for (const warning of found.warnings) console.error(`hookbox: ${warning}`);
    // The approvals and needs stores load here, not with hookbox/extension: `isolate()` alone never reads them.
    // One after the other: an agent that loads hookbox through jiti must not be asked for two files with shared imports at once (src/isolation/launch.ts, `childModes`).
    const { ApprovalStore } = await import("../approval/store.js");
    const { NeedsStore } = await import("../approval/needs.js");
    // On Bun (oh-my-pi) the user's confined modules run in their own process on Node: the default
    // isolation for what a Bun worker cannot enforce (src/policy/runtime.ts hostIsolation), said once.
    let sorted;
    try {
      sorted = sortModules(uniqueByRealPath(found.modules), cwd, rest, projectPolicy, new ApprovalStore(approvals));
    } catch (err) {
      // A policy that does not resolve, or a store folder that cannot be used: nothing loads, every tool call is blocked.
      return refuse((err as Error).message);
    }
    return isolate(sorted.paths, { ...rest, perHook: sorted.perHook }, sorted.refused, projectGrants(sorted.project, cwd, new ApprovalStore(approvals), new NeedsStore(approvals)))(pi);
  };
}

/**
 * The command that gives one of the `project` modules a grant: the grants the project's approvals
 * carry now (each keeps its own: `--grant` gives one to every module it was not proposed for
 * otherwise) plus the one missing.
 */
function projectGrants(modules: ReadonlySet<string>, cwd: string, store: ApprovalStore, needs: NeedsStore): ProjectGrants {
  const project = projectKey(cwd);
  return {
    project, modules,
    record: (hookPath, grant) => { needs.record(cwd, hookPath, [grant]); },
    command: (grant) => {
      let now: string[] = [];
      try {
        now = Object.values(store.read().projects[project]?.modules ?? {}).flatMap((m) => m.grants ?? []);
      } catch { /* a store that cannot be read: the grant alone */ }
      return grantCommand(project, [...now, grant]);
    },
  };
}

/** The modules once each (by real path, first wins): pi dedupes by path, a link must not load one twice. */
function uniqueByRealPath(modules: AgentModule[]): AgentModule[] {
  const seen = new Set<string>();
  return modules.filter((m) => {
    let key = m.path;
    try { key = realpathSync(m.path); } catch { /* a missing one fails to load, named */ }
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Each module's policy; a project module not approved as it is goes to `refused`. */
function sortModules(modules: AgentModule[], cwd: string, options: IsolateOptions, projectPolicy: PolicyOption, store: ApprovalStore) {
  const paths: string[] = [];
  const perHook: NonNullable<IsolateOptions["perHook"]> = {};
  const refused: Unloaded[] = [];
  const project = new Set<string>();
  for (const module of modules) {
    const own = options.perHook?.[module.path] ?? {};
    if (module.scope === "user") {
      perHook[module.path] = { policy: options.policy ?? "confined", ...own };
      paths.push(module.path);
      continue;
    }
    const policy = own.policy ?? projectPolicy;
    const failure = store.check(cwd, { path: module.path, policy });
    if (failure) {
      refused.push({ path: module.path, code: failure.code, error: failure.message });
      continue;
    }
    // What the approval grants beyond the policy (src/policy/grants.ts), read only once it matched.
    let granted: PolicyOption;
    try {
      granted = withGrants(policy, store.grants(cwd, module.path), cwd);
    } catch (err) {
      if (!(err instanceof GrantError)) throw err;
      refused.push({ path: module.path, code: "not_approved", error: `${module.path} was not loaded: its approval carries a grant it cannot be given (${err.message}); run ${approvalCommand(cwd)} again` });
      continue;
    }
    // Every load and restart checks the approval again, on the files as they are then (the approved policy's fingerprint).
    perHook[module.path] = { ...own, policy: granted, approval: () => store.verify(cwd, { path: module.path, policy }) };
    paths.push(module.path);
    project.add(module.path);
  }
  return { paths, perHook, refused, project };
}
