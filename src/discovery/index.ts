/**
 * discoverAndLoadHooks: the paths the capability registry discovers, then the configured ones,
 * de-duplicated by absolute path (first wins), loaded in that order, each with the policy its origin
 * gives it (`trust.ts`). A discovered file that is not a JS/TS module is a shell hook: it fails to
 * load (as the original documents) unless `shellHooks` is on, in which case it runs as a command
 * hook in its own process.
 */
import { homedir } from "node:os";
import { extname, resolve } from "node:path";
import { Errors, type HookFailure } from "../contract/errors.js";
import type { LoadedHook } from "../runner/hook.js";
import { loadHooks, type LoadHooksResult, type LoadOptions } from "../runner/loader.js";
import { checkOptions } from "../options/schemas.js";
import { deadlineFor, resolveSandboxOptions, type SandboxOptions } from "../options/options.js";
import { resolvePath } from "../policy/paths.js";
import { checkShellHook, shellHook, type ShellHookOptions } from "../shell/hook.js";
import { ApprovalStore, type ApprovalsOptions } from "../approval/store.js";
import { defaultHookProviders } from "./providers.js";
import { HookRegistry } from "./registry.js";
import { policyFor, shellRefusal, trustRecord, type HookOrigin, type TrustOptions, type TrustRecord } from "./trust.js";
import type { DiscoveredHook, DiscoveryReport, HookProvider } from "./types.js";

export interface DiscoverOptions {
  /** The user's home folder for `~/…` hook folders and `~` in configured paths. Default `os.homedir()`. */
  home?: string;
  /** The providers to run, replacing the defaults (`defaultHookProviders()`); `[]` turns discovery off. */
  providers?: readonly HookProvider[];
  /** Sort each hook folder's entries by name. Default false: `readdir` order, as the original. */
  sortEntries?: boolean;
  /**
   * Run discovered files that are not JS/TS modules as shell hooks, each in its own child process.
   * Default false: such a file fails to load with `load_failed`, as in the original.
   */
  shellHooks?: boolean | ShellHookOptions;
  /** Extra discovered paths, loaded after the registry's items and before the configured paths. */
  discovered?: string[];
  /**
   * Policies by origin: project-level hooks get `"untrusted"` (the OS sandbox) unless this says
   * otherwise; user-level and configured hooks get the `policy` option, else `"confined"`.
   */
  trust?: TrustOptions;
  /**
   * The approvals store (src/approval/): a project-level hook loads only when the user approved
   * exactly its code (its whole import graph) and policy with `hookbox trust <project>`; an
   * unapproved one is not loaded (`not_approved` in `errors`) and a hook that blocks every
   * `tool_call`, naming it and the command, takes its place (fail closed). Default: the store in
   * the user's config folder; `{ dir }` another folder; `false` loads project hooks unapproved.
   */
  approvals?: ApprovalsOptions | false;
}

/** `LoadHooksResult` plus what discovery found, so a host can show why a hook was or was not loaded. */
export interface DiscoverAndLoadResult extends LoadHooksResult {
  /** What discovery found, and `trust`: the origin, policy and isolation of every hook it tried to load, in load order. */
  discovery: DiscoveryReport & { trust: TrustRecord[] };
}

/** File extensions loaded as hook modules; every other discovered file is a shell hook. */
export const MODULE_EXTENSIONS: readonly string[] = [".ts", ".mts", ".cts", ".tsx", ".js", ".mjs", ".cjs", ".jsx"];

/** True when `path` is loaded as a module (by its extension). */
export function isModulePath(path: string): boolean {
  return MODULE_EXTENSIONS.includes(extname(path).toLowerCase());
}

/** What one path in load order becomes. */
type Entry = { origin: HookOrigin } & (
  | { kind: "module"; path: string }
  | { kind: "shell"; path: string; item: DiscoveredHook }
  | { kind: "failed"; path: string; failure: HookFailure });

/** Run the registry's providers for `cwd` and `home`. */
export async function discoverHooks(cwd: string, options: Pick<DiscoverOptions, "home" | "providers" | "sortEntries"> = {}): Promise<DiscoveryReport> {
  const registry = new HookRegistry(options.providers ?? defaultHookProviders());
  return registry.load({ cwd, home: options.home ?? homedir(), sortEntries: options.sortEntries ?? false });
}

/** The message of a discovered shell hook while the adapter is off. */
function notAModule(item: DiscoveredHook): HookFailure {
  return Errors.loadFailed(item.path,
    `${item.path} is not a JS/TS module; it looks like a shell hook (${item.type} hook for ${item.tool === "*" ? "every tool" : `tool "${item.tool}"`}, from ${item.providerName}). ` +
    "To run it as a command hook in its own process, pass { shellHooks: true } to discoverAndLoadHooks; to load it as a hook module, give it a .ts or .js extension and a default-exported factory.");
}

/**
 * Discover hooks, add `configuredPaths` (resolved against `cwd`, `~` expanded), de-duplicate by
 * absolute path (first wins), and load them in that order. Module hooks each get a worker; shell
 * hooks (with `shellHooks`) run as child processes and take their place in the same order.
 */
export async function discoverAndLoadHooks(configuredPaths: string[], cwd: string, options: DiscoverOptions & LoadOptions = {}): Promise<DiscoverAndLoadResult> {
  checkOptions("discoverAndLoadHooks", options);
  const { home, providers, sortEntries, shellHooks, discovered = [], trust = {}, approvals = {}, ...load } = options;
  const store = approvals === false ? undefined : new ApprovalStore(approvals);
  const found = await discoverHooks(cwd, { home, providers, sortEntries });
  const seen = new Set<string>();
  const entries: Entry[] = [];
  const add = (path: string, make: () => Entry) => {
    const key = resolve(cwd, path);
    if (seen.has(key)) return;
    seen.add(key);
    entries.push(make());
  };
  // Each hook's own options: its origin's policy under whatever perHook says (perHook wins).
  const own = (path: string, origin: HookOrigin): SandboxOptions =>
    ({ policy: policyFor(path, origin, cwd, trust, load.policy), ...(load.perHook?.[path] ?? load.perHook?.[resolve(cwd, path)]) });
  for (const item of found.items) {
    const origin = item.level;
    add(item.path, (): Entry => {
      const unapproved = origin === "project" ? store?.check(cwd, { path: resolve(cwd, item.path), policy: own(item.path, origin).policy! }) : undefined;
      if (unapproved) return { origin, kind: "failed", path: item.path, failure: unapproved };
      if (isModulePath(item.path)) return { origin, kind: "module", path: item.path };
      if (!shellHooks) return { origin, kind: "failed", path: item.path, failure: notAModule(item) };
      const refused = shellRefusal(item.path, origin, own(item.path, origin).policy!);
      const failure = refused ? Errors.loadFailed(item.path, refused) : checkShellHook(item.path);
      return failure ? { origin, kind: "failed", path: item.path, failure } : { origin, kind: "shell", path: item.path, item };
    });
  }
  for (const p of discovered) add(p, () => ({ origin: "configured", kind: "module", path: p }));
  for (const p of configuredPaths) {
    const abs = resolvePath(p, cwd, home);
    add(abs, () => ({ origin: "configured", kind: "module", path: abs }));
  }

  const modules = entries.filter((e) => e.kind === "module");
  // A project module's every load and restart checks its approval again, on the files as they are then.
  const approval = (e: Entry): SandboxOptions => (e.origin === "project" && store ? { approval: () => store.verify(cwd, { path: resolve(cwd, e.path), policy: own(e.path, e.origin).policy! }) } : {});
  const perHook = Object.fromEntries(modules.map((e) => [e.path, { ...own(e.path, e.origin), ...approval(e) }]));
  const { hooks, errors, warnings } = await loadHooks(modules.map((e) => e.path), cwd, { ...load, perHook });
  const loaded = new Map(hooks.map((h) => [h.path, h]));
  const failed = new Map(errors.map((e) => [e.path, e]));
  const shellOptions = typeof shellHooks === "object" ? shellHooks : {};
  const trustRecords = entries.filter((e) => e.kind !== "failed").map((e): TrustRecord => e.kind === "shell"
    ? { path: e.path, origin: e.origin, policy: policyName(own(e.path, e.origin).policy), isolation: "shell" }
    : trustRecord(e.path, e.origin, { ...load, ...own(e.path, e.origin) }));
  const result: DiscoverAndLoadResult = { hooks: [], errors: [], ...(warnings ? { warnings } : {}), discovery: { ...found, trust: trustRecords } };
  for (const entry of entries) {
    if (entry.kind === "failed") {
      result.errors.push({ path: entry.path, error: entry.failure.message, code: entry.failure.code });
    } else if (entry.kind === "shell") {
      result.hooks.push(shellHookFor(entry.item, cwd, load, shellOptions));
    } else {
      const hook = loaded.get(entry.path);
      if (hook) result.hooks.push(hook);
      const error = failed.get(entry.path);
      if (error) result.errors.push(error);
    }
  }
  const refused = entries.flatMap((e) => (e.kind === "failed" && e.failure.code === "not_approved" ? [e.failure.message] : []));
  if (refused.length > 0) result.hooks.unshift(blockEveryToolCall(refused));
  return result;
}

/** An in-process hook that blocks every tool call with `reasons`: what stands in for unapproved project hooks. */
function blockEveryToolCall(reasons: string[]): LoadedHook {
  const reason = `hookbox: blocked (fail closed): ${reasons.join("; ")}`;
  return {
    path: "hookbox:not-approved",
    resolvedPath: "hookbox:not-approved",
    handlers: new Map([["tool_call", [() => ({ block: true, reason })]]]),
    messageRenderers: new Map(),
    commands: new Map(),
    setSendMessageHandler() {},
    setAppendEntryHandler() {},
  };
}

const policyName = (option: SandboxOptions["policy"]) => (typeof option === "string" ? option : "custom");

/** A shell hook with the same deadlines a module hook at that path would get. */
function shellHookFor(item: DiscoveredHook, cwd: string, load: LoadOptions, shell: ShellHookOptions): LoadedHook {
  const { perHook, ...shared } = load;
  // Deadlines only: the policy's isolation does not apply to a shell hook (shellRefusal checked it).
  const sandbox = resolveSandboxOptions({ ...shared, ...perHook?.[item.path], policy: "trusted", isolation: undefined });
  return shellHook(item, { ...shell, cwd, deadline: (event) => deadlineFor(sandbox, event) });
}

export { HookRegistry, hookKey, validateHookItem, mergeProviderResults, HOOK_CAPABILITY_ID } from "./registry.js";
export { defaultHookProviders, folderProvider, nativeProvider, xcshHomeProvider, claudeProvider } from "./providers.js";
export { policyFor, type HookOrigin, type TrustOptions, type TrustRecord } from "./trust.js";
export type { DiscoveredHook, DiscoveryContext, DiscoveryReport, HookItem, HookItemType, HookLevel, HookProvider, ProviderResult } from "./types.js";
