/**
 * Options for the sandbox a hook runs in, and their defaults. Every limit has a name here and in
 * the README.
 */
import type { ResourceLimits } from "node:worker_threads";
import type { NetRecord } from "../net/proxy.js";
import type { HookFailure } from "../contract/errors.js";
import type { Approved } from "../contract/approved.js";
import type { TerminalTextOptions } from "../gates/terminal-text.js";
import { TRANSFORM_FILE_CHARACTERS, type TransformBudgetOptions } from "../transform/budget.js";
import { DEFAULTS } from "../../worker/wire.mjs";
import { defaultTransformCacheDir } from "../gates/private-dir.js";
import { resolveIsolation, resolvePolicy, type Isolation, type Policy, type PolicyOption } from "../policy/policy.js";
import { hostIsolation } from "../policy/runtime.js";

export interface SandboxOptions {
  /**
   * Deadlines in ms of the hook's own time (waiting on the host does not count), per event type,
   * with `default` for the rest, `command` for slash commands and `load` for loading the module
   * (default 30 s, not `default`). `Infinity` is allowed.
   */
  deadlines?: Partial<Record<string, number>> & { default?: number };
  /** A worker that sends nothing for this long while it has work is terminated (`unresponsive`). Default 3000. */
  unresponsiveMs?: number;
  /** The same bound while the module loads: a cold TypeScript transform blocks the worker for a while. Default 10000. */
  loadUnresponsiveMs?: number;
  /** V8 heap limits of each worker. Defaults: old generation 128 MB, young 16 MB (never more: #47224), stack 4 MB. */
  resourceLimits?: ResourceLimits;
  /** Largest message (result, sendMessage, log line) a hook may send, estimated bytes. Default 16 MiB. */
  maxMessageBytes?: number;
  /** Fire-and-forget calls (sendMessage, appendEntry, setStatus, notify, log) per second per hook. Default 5000. */
  maxPostsPerSecond?: number;
  /**
   * How long one request may wait on UI prompts in all (that time does not count against its
   * deadline); past it the request times out (`timeout`). Default 10 minutes.
   */
  maxPausedMs?: number;
  /** Restarts allowed within `restartWindowMs` before the hook is disabled. Default 3. */
  maxRestarts?: number;
  /** Default 5 minutes. */
  restartWindowMs?: number;
  /**
   * Restarts allowed within `longRestartWindowMs` as well (a hook that paces its crashes around the
   * short window is still disabled). Default 5.
   */
  maxLongRestarts?: number;
  /** Default 1 hour. */
  longRestartWindowMs?: number;
  /** `closed` (default): a tool_call is blocked while a hook with tool_call handlers is failing, restarting or disabled. */
  toolCallFailure?: "closed" | "open";
  /**
   * Where the host caches transformed TypeScript (hooks never get access to it); `false` disables
   * the cache. Used only when this user owns it and no other user may write it. Default
   * `<tmp>/hookbox-transforms-<uid>`.
   */
  transformCacheDir?: string | false;
  /** Total size bound of the transform cache; least recently used entries go first. Default 64 MiB. */
  transformCacheMaxBytes?: number;
  /**
   * What one hook may cost the host's transform thread: characters of one file `fileCharacters`
   * (default 1 Mi), and per 60 s `characters` of source (default 64 Mi) and thread time `ms`
   * (default 20 000); a request over any is refused as `protocol_violation` (src/transform/budget.ts).
   */
  transformBudget?: TransformBudgetOptions;
  /** How long a synchronous `ctx` call waits for the host, in ms. Default 5000. */
  syncTimeoutMs?: number;
  /** How long the host blocks for a message renderer in the worker, in ms. Default 100. */
  renderTimeoutMs?: number;
  /**
   * Host time a hook's renders may take within one second, in ms (failed ones included); past it the
   * hook renders by default for the rest of its life, reported once (`timeout`). Default 500.
   */
  renderBudgetMs?: number;
  /**
   * Where the hook's own lines go: `pi.logger` (`level` its level), and its stdout and stderr
   * (`level` `"stdout"` / `"stderr"`), as `policy.terminal` passes them. `unterminated`: the hook
   * wrote this text without ending its line (yet); the rest of the line comes as the next call.
   * Default: dropped (inside an agent, `isolate()` writes them to the agent's stderr).
   */
  onLog?: (hookPath: string, level: string, line: string, unterminated?: boolean) => void;
  /**
   * What Node's permission model denied a hook (a read or write of `resource`, a child process),
   * once per permission and resource (at most 32 per load), whether or not the hook caught the
   * error. Reported by hookbox's code in the hook's process: a report, not a wall (a hostile hook
   * can hide or invent one). Default: one `warn` line in `onLog` naming the policy field that grants it.
   */
  onDenied?: (hookPath: string, record: { permission: string; resource: string }) => void;
  /**
   * Confinement: `"confined"` (default: Node's permission model on, reads of the hook's own folder
   * and its imports only, no child processes, a clean environment, no `pi.exec`; a seat belt),
   * `"untrusted"` (the same inside the OS sandbox; implies `isolation: "sandbox"`), `"trusted"`
   * (like the original: everything allowed), or a partial policy over `confined`.
   */
  policy?: PolicyOption;
  /**
   * `"worker"` (default): a worker thread per hook. `"process"`: a child process per hook, with its
   * own heap. `"sandbox"`: a child process per hook inside bubblewrap (Linux): its own namespaces,
   * only its folder and hookbox's runtime visible read-only, no network but what `policy.network`
   * allows. The default when the policy needs it (`untrusted`); a weaker mode asked with such a
   * policy, or a sandbox that cannot be built here, fails the load (`load_failed`): a hook never
   * runs with less isolation than asked.
   */
  isolation?: Isolation;
  /**
   * The program that runs process- and sandbox-mode hooks: an absolute path or a name on PATH; it
   * must be Node 20 or later (src/policy/runtime.ts asks it once). Default `process.execPath` on a Node
   * host, `node` on PATH on a Bun host. Not found, or not Node: the load fails (`load_failed`).
   */
  runtime?: string;
  /** Memory bound of one sandboxed hook, external memory included, in MiB (`isolation: "sandbox"`). Default 512. */
  sandboxMemoryMb?: number;
  /** Every attempt of a sandboxed hook (or its `pi.exec` programs) to reach a host through its network proxy, allowed or refused. */
  onNet?: (hookPath: string, record: NetRecord) => void;
  /**
   * Every `pi.exec` the host ran or refused for a hook, at most 100 records per hook per 10 s; past
   * that, one record per window (`command` "", `dropped`: how many were not reported). The command
   * and each argument are cut to 200 characters (at most 32 arguments), the refusal to 400.
   */
  onExec?: (hookPath: string, record: { command: string; args: string[]; refused?: string; code?: number; killed?: boolean; dropped?: number }) => void;
  /**
   * Asked before every load of the module, the first and each restart: a failure it returns ends
   * that load with its code (`not_approved`), and a restart it refuses disables the hook. Given by
   * `discoverAndLoadHooks` and `isolateDiscovered` for a project's module: the approval re-checked
   * on the files as they are when they load (src/approval/store.ts). What it returns when the load
   * may go on, `{ digest }`, is the approval the module runs under: its decision records carry it;
   * `pinned`, what it pinned: a project file `pi.exec` is asked to run must be one of them, unchanged
   * (src/bridge/exec-pins.ts).
   */
  approval?: () => HookFailure | Approved | undefined;
  /** Environment of the worker, replacing the policy's. */
  env?: Record<string, string | undefined>;
  /** `execArgv` of the worker, replacing the policy's permission flags. */
  execArgv?: string[];
  /**
   * Host modules a hook may import by name (`{ "@scope/ai": aiModule }`): their exported functions
   * run on the host, called with plain data (see src/bridge/host-modules.ts). Default none.
   */
  hostModules?: Record<string, object>;
  /**
   * How the hook's text is shown on a terminal (prompts, notifications, status, renderer lines, block
   * reasons): every control sequence is removed but SGR styling; `{ colors: false }` removes that too
   * (src/gates/terminal-text.ts). Default `{ colors: true }`.
   */
  terminalText?: TerminalTextOptions;
}

export type ResolvedSandboxOptions = Required<Omit<SandboxOptions, "env" | "execArgv" | "runtime" | "onLog" | "onDenied" | "onExec" | "onNet" | "deadlines" | "policy" | "approval">> & {
  onDenied: SandboxOptions["onDenied"];
  approval: SandboxOptions["approval"];
  onNet: NonNullable<SandboxOptions["onNet"]>;
  policy: Policy;
  onExec: NonNullable<SandboxOptions["onExec"]>;
  deadlines: Partial<Record<string, number>> & { default: number };
  env: Record<string, string | undefined> | undefined;
  execArgv: string[] | undefined;
  runtime: string | undefined;
  onLog: NonNullable<SandboxOptions["onLog"]>;
  /** Why the isolation differs from the default the options imply, when the host chose a stronger one (src/policy/runtime.ts hostIsolation). */
  isolationChosen?: string;
};

const YOUNG_GENERATION_CAP_MB = 16;

export function resolveSandboxOptions(options: SandboxOptions = {}): ResolvedSandboxOptions {
  const policy = resolvePolicy(options.policy);
  const limits = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: YOUNG_GENERATION_CAP_MB, stackSizeMb: 4, ...options.resourceLimits };
  if ((limits.maxYoungGenerationSizeMb ?? 0) > YOUNG_GENERATION_CAP_MB) {
    throw new RangeError(`resourceLimits.maxYoungGenerationSizeMb must be at most ${YOUNG_GENERATION_CAP_MB}: larger values can abort the whole process on Node 20 (nodejs/node#47224)`);
  }
  const chosen = hostIsolation({ policy, runtime: options.runtime, env: options.env, execArgv: options.execArgv }, options.isolation, resolveIsolation(policy, options.isolation));
  return {
    deadlines: { default: DEFAULTS.deadlineMs, ...options.deadlines } as ResolvedSandboxOptions["deadlines"],
    unresponsiveMs: options.unresponsiveMs ?? DEFAULTS.unresponsiveMs,
    loadUnresponsiveMs: options.loadUnresponsiveMs ?? DEFAULTS.loadUnresponsiveMs,
    resourceLimits: limits,
    maxMessageBytes: options.maxMessageBytes ?? DEFAULTS.maxMessageBytes,
    maxPostsPerSecond: options.maxPostsPerSecond ?? DEFAULTS.maxPostsPerSecond,
    maxPausedMs: options.maxPausedMs ?? DEFAULTS.maxPausedMs,
    maxRestarts: options.maxRestarts ?? DEFAULTS.maxRestarts,
    restartWindowMs: options.restartWindowMs ?? DEFAULTS.restartWindowMs,
    maxLongRestarts: options.maxLongRestarts ?? DEFAULTS.maxLongRestarts,
    longRestartWindowMs: options.longRestartWindowMs ?? DEFAULTS.longRestartWindowMs,
    toolCallFailure: options.toolCallFailure ?? "closed",
    transformCacheDir: options.transformCacheDir ?? defaultTransformCacheDir(),
    transformCacheMaxBytes: options.transformCacheMaxBytes ?? DEFAULTS.transformBytes,
    transformBudget: { fileCharacters: TRANSFORM_FILE_CHARACTERS, characters: DEFAULTS.transformBytes, ms: DEFAULTS.transformMs, ...options.transformBudget },
    syncTimeoutMs: options.syncTimeoutMs ?? DEFAULTS.syncTimeoutMs,
    renderTimeoutMs: options.renderTimeoutMs ?? DEFAULTS.renderTimeoutMs,
    renderBudgetMs: options.renderBudgetMs ?? DEFAULTS.renderBudgetMs,
    onLog: options.onLog ?? (() => {}),
    onDenied: options.onDenied,
    onExec: options.onExec ?? (() => {}),
    onNet: options.onNet ?? (() => {}),
    approval: options.approval,
    policy,
    isolation: chosen.isolation,
    ...(chosen.warning ? { isolationChosen: chosen.warning } : {}),
    sandboxMemoryMb: options.sandboxMemoryMb ?? DEFAULTS.sandboxMemoryMb,
    env: options.env,
    execArgv: options.execArgv,
    runtime: options.runtime,
    hostModules: options.hostModules ?? {},
    terminalText: { colors: options.terminalText?.colors ?? true },
  };
}

export function deadlineFor(options: ResolvedSandboxOptions, event: string): number {
  return options.deadlines[event] ?? options.deadlines.default;
}
