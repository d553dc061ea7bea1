/**
 * loadHooks: one worker per hook module, started in parallel; the result keeps the order of
 * `paths`. A module that fails to load lands in `errors` with its code, and its worker is ended.
 * Every hook gets `policy` (default `"confined"`, the seat belt) unless `perHook` says otherwise; a
 * policy and an isolation that disagree fail that hook's load (`load_failed`), never run it weaker.
 */
import { existsSync } from "node:fs";
import { Errors, type HookErrorCode, type HookFailure } from "../contract/errors.js";
import type { AgentModules } from "../contract/protocol.js";
import type { LoadedHook } from "./hook.js";
import { checkOptions } from "../options/schemas.js";
import { resolveSandboxOptions, type ResolvedSandboxOptions, type SandboxOptions } from "../options/options.js";
import { PolicyError } from "../policy/policy.js";
import { resolvePath } from "../policy/paths.js";
import { HookSupervisor } from "../isolation/supervisor.js";
import { IsolatedHook } from "./isolated-hook.js";

export interface LoadHooksResult {
  hooks: LoadedHook[];
  errors: Array<{ path: string; error: string; code: HookErrorCode }>;
  /** Loaded hooks that run with less than the full bounds here (a sandbox without cgroups, a Bun worker), or in a stronger mode than the default (a Bun host): never silent. */
  warnings?: Array<{ path: string; warning: string }>;
}

export interface LoadOptions extends SandboxOptions {
  /** Per-hook overrides, keyed by the path as given (or its absolute path). */
  perHook?: Record<string, SandboxOptions>;
}

export function loadHooks(paths: string[], cwd: string, options: LoadOptions = {}): Promise<LoadHooksResult> {
  return loadModules(paths, cwd, options, false);
}

/**
 * `loadHooks` for hookbox/extension (src/extension/adapter.ts): the modules are the agent's extensions, so
 * pi's members that only an agent serves (`registerTool`, `registerFlag`, `getFlag`,
 * `registerShortcut`) work in them; under `loadHooks` they throw at the call, naming the member.
 */
export function loadExtensionModules(paths: string[], cwd: string, options: LoadOptions = {}): Promise<LoadHooksResult> {
  return loadModules(paths, cwd, options, true);
}

/** The options one hook loads with: the shared ones, overridden by its `perHook` entry (keyed by the path as given or its absolute path). */
export function hookOptions(options: LoadOptions, hookPath: string, resolvedPath: string): SandboxOptions {
  const { perHook, ...shared } = options;
  return { ...shared, ...(perHook?.[hookPath] ?? perHook?.[resolvedPath]) };
}

/**
 * One module as `prepareExtensionModules` made it: its hook (none when refused before a worker),
 * and `begin()`, which starts its worker the first time it is called and resolves with the
 * failure if it did not load.
 */
export interface StartingModule { path: string; hook: IsolatedHook | undefined; begin(): Promise<HookFailure | undefined> }

/**
 * `loadExtensionModules` without waiting: each module's hook is made and returned at once, its
 * worker started when `begin()` is first called, so the adapter can start some modules before
 * others and go on as each one arrives (src/extension/adapter.ts). `settleModules` begins them all
 * (in parallel) and turns them into `loadHooks`' result.
 */
export function prepareExtensionModules(paths: string[], cwd: string, options: LoadOptions = {}, agentModules?: AgentModules): StartingModule[] {
  return startModules(paths, cwd, options, true, agentModules);
}

function startModules(paths: string[], cwd: string, options: LoadOptions, agent: boolean, agentModules?: AgentModules): StartingModule[] {
  if ((options as { watch?: unknown }).watch !== undefined) throw new TypeError("loadHooks: `watch` is an option of the runner now: new HookRunner(hooks, cwd, sessionManager, modelRegistry, { watch: true })");
  checkOptions("loadHooks", options);
  return paths.map((hookPath): StartingModule => {
    const resolvedPath = resolvePath(hookPath, cwd);
    const refused = (failure: HookFailure): StartingModule => ({ path: hookPath, hook: undefined, begin: () => Promise.resolve(failure) });
    if (!existsSync(resolvedPath)) return refused(Errors.loadFailed(hookPath, `file not found: ${resolvedPath}`));
    let resolved: ResolvedSandboxOptions;
    try {
      resolved = resolveSandboxOptions(hookOptions(options, hookPath, resolvedPath));
    } catch (err) {
      if (err instanceof PolicyError) return refused(Errors.loadFailed(hookPath, err.message));
      throw err;
    }
    const hook = new IsolatedHook(new HookSupervisor(hookPath, resolvedPath, cwd, resolved, agent, agentModules));
    let started: Promise<HookFailure | undefined> | undefined;
    return { path: hookPath, hook, begin: () => (started ??= hook.start()) };
  });
}

async function loadModules(paths: string[], cwd: string, options: LoadOptions, agent: boolean): Promise<LoadHooksResult> {
  return settleModules(startModules(paths, cwd, options, agent));
}

/** `loadHooks`' result of started modules, once each has loaded or failed. */
export async function settleModules(modules: readonly StartingModule[]): Promise<LoadHooksResult> {
  const outcomes = await Promise.all(modules.map(async ({ path, hook, begin }) => ({ hookPath: path, hook, failure: await begin() })));
  const result: LoadHooksResult = { hooks: [], errors: [] };
  for (const { hookPath, failure, hook } of outcomes) {
    if (failure) result.errors.push({ path: hookPath, error: failure.message, code: failure.code });
    else result.hooks.push(hook!);
    if (!failure) for (const warning of loadWarnings(hook!)) (result.warnings ??= []).push({ path: hookPath, warning });
  }
  return result;
}

/** What a loaded hook runs with less than its full bounds, or in a stronger mode than the default (`LoadHooksResult.warnings`). */
export function loadWarnings(hook: IsolatedHook): string[] {
  const { bounds, options, unenforced } = hook.sandbox ?? {};
  return [
    ...(bounds?.weaker ? [bounds.weaker] : []),
    ...(options?.isolationChosen ? [options.isolationChosen] : []),
    ...(unenforced ? [`not enforced on this host's runtime (Bun, worker mode): ${unenforced.join("; ")}`] : []),
  ];
}
