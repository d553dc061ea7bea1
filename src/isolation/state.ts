/**
 * The states of a hook's sandbox, the moves allowed between them, and the read-only face a
 * `LoadedHook` shows of it. `HookSupervisor` (./supervisor.ts) changes state in one place, by this table.
 */
import type { HookFailure } from "../contract/errors.js";
import type { ResolvedSandboxOptions } from "../options/options.js";
import type { Bounds } from "./bubblewrap/availability.js";

/**
 * What bounds a sandboxed hook (and its `pi.exec` programs) on this machine: the seccomp filter
 * always; memory and processes by cgroup v1, v2, or the weaker resource limits, in which case
 * `weaker` says what is missing (also in `loadHooks`' `warnings` and `runner.stats()`).
 */
export interface SandboxBounds extends Bounds {
  seccomp: true;
  weaker?: string;
}

export type SandboxState = "starting" | "ready" | "restarting" | "disabled" | "failed" | "disposed";

/**
 * The life of a sandbox: every state it may move to from each state. `failed` is a load that
 * never succeeded; `disabled` is a hook that died past its restart budget (or whose restart did
 * not load); both end only by `disposed`, or by a reload (a new sandbox).
 */
export const NEXT: Readonly<Record<SandboxState, readonly SandboxState[]>> = {
  starting: ["ready", "failed", "disposed"],
  ready: ["restarting", "disposed"],
  restarting: ["ready", "disabled", "disposed"],
  disabled: ["disposed"],
  failed: ["disposed"],
  disposed: [],
};

export interface SandboxListener {
  /** A fault outside any request: a crash between events, a bad message, a flood. */
  fault?(failure: HookFailure): void;
  /** State changes after the load: `restarting`, `ready` (after a restart), `disabled`, `disposed`. */
  state?(state: SandboxState, sandbox: SandboxView): void;
}

/** What a `LoadedHook` shows of its sandbox: read-only, plus `listen` and `dispose`. */
export interface SandboxView {
  readonly hookPath: string;
  readonly resolvedPath: string;
  readonly cwd: string;
  readonly options: Readonly<ResolvedSandboxOptions>;
  readonly state: SandboxState;
  /** How many times the worker was restarted. */
  readonly restarts: number;
  /** The failure that disabled or failed this hook. */
  readonly lastFailure: HookFailure | undefined;
  /** Sandbox mode: the seccomp, memory and process bounds it runs under; absent in other modes. */
  readonly bounds?: SandboxBounds;
  /** Limits this host's runtime does not enforce for this hook (worker mode on a Bun host, policy `trusted`); absent when every limit holds. */
  readonly unenforced?: readonly string[];
  /** The digest of the approval the loaded module runs under (`options.approval`): its decision records' `hook.hash`. */
  readonly approvedDigest?: string | undefined;
  /**
   * Worker mode in the built package on Node: whether V8 took the runtime's code cache this worker
   * was given ("rejected": compiled anew, and the host makes a new cache); absent when none was given.
   */
  readonly codeCache?: "accepted" | "rejected" | undefined;
  listen(listener: SandboxListener): () => void;
  /** End the worker for good. Idempotent. */
  dispose(): Promise<void>;
}
