/**
 * The states of a hook's sandbox, the moves allowed between them, who hears of them, what a call
 * meets in each, and the read-only face a `LoadedHook` shows of it. `HookSupervisor`
 * (./supervisor.ts) changes state in one place (`Lifecycle.to`), by this table.
 */
import { Errors, type HookFailure } from "../contract/errors.js";
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
 * not load, or, ready, that planted a name git or an agent takes up in a granted folder); both end only by `disposed`, or by a reload (a new sandbox).
 */
export const NEXT: Readonly<Record<SandboxState, readonly SandboxState[]>> = {
  starting: ["ready", "failed", "disposed"],
  // ready to disabled: a project module that planted a name git or an agent takes up (./planted-guard.ts).
  ready: ["restarting", "disabled", "disposed"],
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

/** The read-only face of `s`: what it shows follows `s`; nothing else of it is reachable. */
export function sandboxView(s: SandboxView): SandboxView {
  return Object.freeze({
    hookPath: s.hookPath, resolvedPath: s.resolvedPath, cwd: s.cwd, options: s.options,
    get bounds() { return s.bounds; },
    get unenforced() { return s.unenforced; },
    get approvedDigest() { return s.approvedDigest; },
    get codeCache() { return s.codeCache; },
    get state() { return s.state; },
    get restarts() { return s.restarts; },
    get lastFailure() { return s.lastFailure; },
    listen: (listener: SandboxListener) => s.listen(listener),
    dispose: () => s.dispose(),
  });
}

/** A sandbox's state and its listeners (`HookSupervisor`'s). */
export class Lifecycle {
  /** Only `to` writes it. Why a field, not a getter: every request reads it, and reading runs no code of this file. */
  state: SandboxState = "starting";
  readonly #listeners = new Set<SandboxListener>();

  constructor(private readonly hookPath: string, private readonly view: () => SandboxView) {}

  listen(listener: SandboxListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * The one place the state changes. Why `disposed` absorbs every later move: a load or restart
   * that settles after `dispose()` must not bring the sandbox back. Any other move the table
   * (`NEXT`) does not allow is a bug in hookbox.
   */
  to(state: SandboxState): void {
    if (this.state === "disposed") return;
    if (!NEXT[this.state].includes(state)) throw new Error(`hookbox: sandbox of ${this.hookPath} cannot go from ${this.state} to ${state}`);
    this.state = state;
    const view = this.view();
    for (const l of this.#listeners) l.state?.(state, view);
  }

  fault(failure: HookFailure): void {
    for (const l of this.#listeners) l.fault?.(failure);
  }

  /** Why a request cannot run now, by state: a restarting hook comes back, a disabled one does not (`exceeded`: the restart budget's words). */
  unavailable(event: string, lastFailure: HookFailure | undefined, exceeded: string): HookFailure {
    const last = lastFailure?.message ?? "unknown";
    switch (this.state) {
      case "restarting": return Errors.restarting(this.hookPath, event, last);
      case "disposed": return Errors.disabled(this.hookPath, event, "the runner was disposed");
      case "failed": return Errors.disabled(this.hookPath, event, `it failed to load: ${last}`);
      default: return Errors.disabled(this.hookPath, event, lastFailure?.code === "effect_refused" ? last : `it failed ${exceeded}: ${last}`);
    }
  }
}
