/**
 * Launching a hook's next worker, for its start and every restart: the checks each load makes
 * again (the approval, a grant that reaches the transform cache, what runtime runs the hook, its
 * permission flags), the sandbox's network proxy and launcher, the runtime's code cache, and the
 * spawn. `HookSupervisor` (./supervisor.ts) then loads the hook in what it returns.
 */
import { join } from "node:path";
import { Errors, HookFailure, describeThrown } from "../contract/errors.js";
import type { ResolvedSandboxOptions } from "../options/options.js";
import type { CodeCacheReport } from "./load.js";
import { codeCacheFor, type CodeCache } from "./code-cache.js";
import { grantReaching, hookEnv, permissionArgs } from "../policy/policy.js";
import { childEnv } from "../../worker/child-env.mjs";
import { ReadRefusal } from "../policy/read-grants.js";
import type { HookEndpoint } from "./endpoint.js";
import type { ExecGate } from "../bridge/exec-gate.js";
import type { SandboxLauncher } from "./bubblewrap/bwrap.js";
import { sandboxAvailability } from "./bubblewrap/availability.js";
import type { HookNetwork } from "../net/proxy.js";
import { spawnEndpoint, type ChildModes } from "./spawn.js";
import type { OutputSink } from "./output.js";
import { ownPermissionFlag, runtimePlan, type ChildRuntime, type RuntimePlan } from "../policy/runtime.js";

/** Process and sandbox modes' modules, once the first such module started (a worker-only host never loads them). */
let child: ChildModes | undefined;
/**
 * One import for every module that starts, however many start at once: the promise is kept, not
 * its result. Why: an agent that loads hookbox through jiti (pi's loader, `moduleCache: false`)
 * and is asked for the same file twice while the first is still in flight hands the second a copy
 * whose re-exports read an unset binding ("Cannot read properties of undefined"): two sandboxed
 * project modules failed their load so (e2e-pi-grants).
 */
let childLoad: Promise<ChildModes> | undefined;
const childModes = (): Promise<ChildModes> => (childLoad ??= import("./child-modes.js").then((m) => (child = m)));

/** Process and sandbox modes' modules if a module of those modes started (a sandbox's launcher exists only then). */
export const loadedChildModes = (): ChildModes | undefined => child;

/** The hook's environment: the embedder's `env` option (its own entries) or the policy's, always through the environment gate. */
export function hookEnvironment(options: ResolvedSandboxOptions): Record<string, string> {
  return options.env ? childEnv(options.env) : hookEnv(options.policy);
}

/** Where a hook's worker runs, as its supervisor keeps it across restarts. */
export interface Placement {
  /** Process and sandbox modes: the node that runs the hook (src/policy/runtime.ts). */
  runtime?: ChildRuntime | undefined;
  /** Limits this host's runtime does not enforce for this hook (worker mode on Bun), said in the load report. */
  unenforced?: readonly string[] | undefined;
  /** The proxy of a sandboxed hook whose policy allows hosts; one for the hook's whole life, restarts included. */
  network?: HookNetwork | undefined;
  /** Sandbox mode: the current child's launcher, whose cgroups its `pi.exec` programs join. */
  launcher?: SandboxLauncher | undefined;
}

export interface LaunchSpec {
  hookPath: string;
  resolvedPath: string;
  cwd: string;
  options: ResolvedSandboxOptions;
  /** The host's transform cache folder; false when there is none. */
  cacheDir: string | false;
  /** Filled in as the launch goes: what it found stays even when a later step fails (the network is closed by the caller). */
  placement: Placement;
  /** The digest of the approval this load runs under, and what it pinned. */
  approved(digest: string | undefined, pinned: ReturnType<NonNullable<ExecGate["pinned"]>>): void;
  disposed(): boolean;
  onOutput: OutputSink;
  /** The cache this worker makes, when it is the host's own thread that makes the runtime's code cache. */
  maker: CodeCache | undefined;
  /** Start the host's own thread that makes the code cache (./supervisor.ts). */
  makeCodeCache(cache: CodeCache): Promise<void>;
}

export interface Launched {
  endpoint: HookEndpoint;
  /** What the load's reply says of the code cache (./load.ts fills it in). */
  cacheReport: CodeCacheReport;
  /** Once the load settled: the code cache told of it, and the bytes a maker thread made stored. */
  loaded(): Promise<void>;
}

/**
 * What the host refuses from the module's options and files alone, before anything of it runs: a
 * module that no longer matches its approval (`not_approved`), a policy grant that reaches the
 * transform cache, a runtime that cannot run what the policy asks (a Bun host). Every load checks
 * it (`launch`); a start that mirrors a module before it loads checks it first, so the module is
 * refused where a load is (src/extension/early-start.ts `earlyStart`).
 */
export function hostRefusal(spec: Pick<LaunchSpec, "hookPath" | "resolvedPath" | "options" | "cacheDir">): HookFailure | { verdict: Exclude<ReturnType<NonNullable<ResolvedSandboxOptions["approval"]>>, HookFailure>; plan: RuntimePlan } {
  const { hookPath, resolvedPath, options } = spec;
  // Every load, restarts included, reads the module from disk again: it must still be what was approved.
  const verdict = options.approval?.();
  if (verdict instanceof HookFailure) return verdict;
  // Why refuse: a hook that could read the cache reads other hooks' code; one that could write it poisons them.
  // A sandbox binds what the policy names whether or not Node's permission model is on.
  const reachPolicy = options.isolation === "sandbox" ? { ...options.policy, permissionModel: true } : options.policy;
  const reach = spec.cacheDir && !options.execArgv ? grantReaching(reachPolicy, resolvedPath, spec.cacheDir) : undefined;
  if (reach) {
    return Errors.loadFailed(hookPath, `its policy grants access to ${reach}, which holds the host's transform cache (${spec.cacheDir}); set the transformCacheDir option to a folder no hook may read, or narrow the policy`);
  }
  // What runs the hook here, or why nothing can without less than asked (a Bun host: src/policy/runtime.ts).
  const plan = runtimePlan(options);
  if (typeof plan === "string") return Errors.loadFailed(hookPath, plan);
  return { verdict, plan };
}

/** The spawned worker, not yet loaded, or the failure (with its code) that kept it from starting. */
export async function launch(spec: LaunchSpec): Promise<HookFailure | Launched> {
  const { hookPath, resolvedPath, options, placement } = spec;
  const checked = hostRefusal(spec);
  if (checked instanceof HookFailure) return checked;
  const { verdict, plan } = checked;
  spec.approved(verdict?.digest, verdict?.pinned);
  placement.runtime = plan.child;
  placement.unenforced = plan.unenforced;
  let execArgv: string[] | undefined;
  try {
    // The permission flag of the runtime that runs the hook: the child's node, or this host in worker mode.
    // What the walks found is remembered in the host's private cache folder (src/policy/link-walk.ts).
    const walks = spec.cacheDir ? join(spec.cacheDir, "walks") : undefined;
    execArgv = options.execArgv ?? permissionArgs(options.policy, resolvedPath, plan.child?.permissionFlag ?? ownPermissionFlag(), options.isolation !== "sandbox", walks, options.approval !== undefined);
  } catch (err) {
    // A symbolic link out of the hook's package roots (src/policy/read-grants.ts): the message names it.
    if (err instanceof ReadRefusal) return Errors.loadFailed(hookPath, err.message);
    return Errors.loadFailed(hookPath, `the hook's ${options.isolation} could not be started: ${describeThrown(err)}`);
  }
  // Why wait one turn: the modules of one load compute their grants (above) before any of their
  // threads starts. A booting thread takes a core from this one: 20 of them on 2 cores stretched
  // 60 ms of grants to 250-450 ms, and the last module's start by as much.
  await null;
  const modes = options.isolation === "worker" ? undefined : await childModes();
  if (spec.disposed()) return Errors.disabled(hookPath, "load", "the runner was disposed");
  if (modes && options.isolation === "sandbox") {
    const available = sandboxAvailability();
    if (!available.ok) return Errors.loadFailed(hookPath, available.reason);
    try {
      placement.network ??= await modes.startHookNetwork(options.policy.network.allow, (record) => options.onNet(hookPath, record));
    } catch (err) {
      return Errors.loadFailed(hookPath, `the hook's network proxy could not be started: ${describeThrown(err)}`);
    }
  }
  // Worker mode: the runtime's code cache, or, in the host's own thread that makes it, the word to make it.
  const { maker } = spec;
  const codeCache = options.isolation === "worker" && !maker ? codeCacheFor(options.transformCacheDir) : undefined;
  const cacheReport: CodeCacheReport = { produce: maker !== undefined };
  const cacheBoot = maker ? { produce: true as const } : codeCache?.boot();
  const settle = () => codeCache?.settled(cacheReport.verdict, () => spec.makeCodeCache(codeCache));
  let endpoint: HookEndpoint;
  try {
    const launcher = modes && options.isolation === "sandbox" ? modes.sandboxLauncher(modes.hookSandboxSpec(options, resolvedPath, plan.child!.path, hookEnvironment(options), placement.network, spec.cwd)) : undefined;
    placement.launcher = launcher;
    endpoint = spawnEndpoint(options, {
      boot: {
        hookPath,
        maxMessageBytes: options.maxMessageBytes,
        syncTimeoutMs: options.syncTimeoutMs,
        ...(cacheBoot ? { codeCache: cacheBoot } : {}),
      },
      env: hookEnvironment(options),
      execArgv,
      runtime: plan.child?.path,
      resourceLimits: options.resourceLimits,
      renderTimeoutMs: options.renderTimeoutMs,
      onOutput: spec.onOutput,
    }, modes, launcher);
  } catch (err) {
    settle();
    // A symbolic link out of the hook's package roots (src/policy/read-grants.ts): the message names it.
    if (err instanceof ReadRefusal) return Errors.loadFailed(hookPath, err.message);
    // Building the sandbox failed (its memory group, node's libraries): never start it with less.
    return Errors.loadFailed(hookPath, `the hook's ${options.isolation} could not be started: ${describeThrown(err)}`);
  }
  return {
    endpoint,
    cacheReport,
    loaded: async () => {
      settle();
      if (maker && cacheReport.made) await maker.store(cacheReport.made);
    },
  };
}
