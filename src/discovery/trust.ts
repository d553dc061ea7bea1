/**
 * Trust by origin: which policy each hook `discoverAndLoadHooks` loads gets. Project-level hooks
 * come from whatever repository the user opened, so they are `untrusted` (the OS sandbox) by
 * default; the user's own hooks and the configured paths get the seat belt (`confined`, or the
 * `policy` option). The embedder overrides per level and per hook.
 */
import { resolve } from "node:path";
import { resolveSandboxOptions, type SandboxOptions } from "../options/options.js";
import { needsSandbox, PolicyError, resolvePolicy, type Isolation, type PolicyName, type PolicyOption } from "../policy/policy.js";

/** Where a hook came from. `configured`: `configuredPaths` and the `discovered` option. */
export type HookOrigin = "project" | "user" | "configured";

/** Policies by origin. Each one replaces the default of its level; `byPath` wins over the levels. */
export interface TrustOptions {
  /** Hooks found under `<cwd>` (`.xcsh/hooks`, `.claude/hooks`, …). Default `"untrusted"` (the sandbox), whatever `policy` says. */
  project?: PolicyOption;
  /** Hooks found under the home folder. Default: the `policy` option, else `"confined"`. */
  user?: PolicyOption;
  /** `configuredPaths` and `discovered`. Default: the `policy` option, else `"confined"`. */
  configured?: PolicyOption;
  /** Per hook, by path as discovered or configured, or its absolute path. `perHook[path].policy` still wins. */
  byPath?: Record<string, PolicyOption>;
}

/** What one hook got, in load order, so a host can show (and a user can check) how each hook runs. */
export interface TrustRecord {
  path: string;
  origin: HookOrigin;
  /** The preset's name, or `"custom"` for a partial policy. */
  policy: PolicyName | "custom";
  /**
   * Where it runs. `"shell"`: a shell hook, a plain child process the policy does not confine.
   * Absent when the policy and the isolation asked for disagree (the hook is in `errors`).
   */
  isolation?: Isolation | "shell";
}

/** The policy option of one hook: `perHook` > `trust.byPath` > `trust.<origin>` > the level's default. */
export function policyFor(path: string, origin: HookOrigin, cwd: string, trust: TrustOptions, shared: PolicyOption | undefined): PolicyOption {
  const byPath = trust.byPath?.[path] ?? trust.byPath?.[resolve(cwd, path)];
  if (byPath !== undefined) return byPath;
  if (origin === "project") return trust.project ?? "untrusted";
  return trust[origin] ?? shared ?? "confined";
}

/** The record of a module hook loaded with `options` (the shared options with its own merged in). */
export function trustRecord(path: string, origin: HookOrigin, options: SandboxOptions): TrustRecord {
  const policy = typeof options.policy === "string" ? options.policy : "custom";
  try {
    return { path, origin, policy, isolation: resolveSandboxOptions(options).isolation };
  } catch (err) {
    if (err instanceof PolicyError) return { path, origin, policy };
    throw err;
  }
}

/** Why a shell hook may not run under `option`, or undefined when it may: only the sandbox could hold it, and it does not run there. */
export function shellRefusal(path: string, origin: HookOrigin, option: PolicyOption): string | undefined {
  let policy;
  try {
    policy = resolvePolicy(option);
    if (!needsSandbox(policy)) return undefined;
  } catch (err) {
    if (err instanceof PolicyError) return err.message;
    throw err;
  }
  return `${path} is a ${origin}-level shell hook, and its policy (${typeof option === "string" ? option : "custom"}) needs the OS sandbox, where shell hooks do not run: ` +
    "a shell hook is a plain child process no policy confines. To run it anyway, trust it: { trust: { byPath: { [path]: \"trusted\" } } }" +
    (origin === "project" ? " or { trust: { project: \"trusted\" } }" : "") + ".";
}
