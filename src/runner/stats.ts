/**
 * Per-hook statistics: calls per event, latency percentiles, errors by code, restarts and reloads.
 * The runner records one sample per hook per event it ran (the whole round trip to the worker,
 * all of that hook's handlers for the event), and one error per `HookError` it reported;
 * `HookRunner.stats()` reads them back with each hook's current sandbox state.
 */
import type { HookErrorCode } from "../contract/errors.js";
import type { LoadedHook } from "./hook.js";
import type { SandboxState } from "../isolation/supervisor.js";
import type { SandboxBounds } from "../isolation/state.js";

/** Latency of one hook, in milliseconds, over the samples kept. */
export interface LatencyStats {
  p50: number;
  p99: number;
  max: number;
}

/** Calls and latency of one hook for one event type. */
export interface EventStats extends LatencyStats {
  calls: number;
}

/** What `HookRunner.stats()` returns for each hook, in the runner's order. */
export interface HookStats {
  /** The hook's path as configured. */
  hookPath: string;
  /** The sandbox state (`ready`, `restarting`, `disabled`, …), or `inline` for a hand-built hook. */
  state: SandboxState | "inline";
  /** Calls of every event type this hook ran. */
  calls: number;
  /** Per event type: calls and latency. */
  events: Record<string, EventStats>;
  /** Over every event type. */
  latency: LatencyStats;
  /** Errors reported for this hook, by code. */
  errors: Partial<Record<HookErrorCode, number>>;
  /** Times the current worker was restarted after it died. */
  restarts: number;
  /** Times the hook was reloaded (`runner.reload`, or a watched file changed). */
  reloads: number;
  /** Events that skipped the hook while it was restarting or disabled (not in `calls` or latency). */
  skipped: number;
  /** Sandbox mode: its seccomp, memory and process bounds, and `weaker` when a cgroup could not be used. */
  bounds?: SandboxBounds;
  /** Limits this host's runtime does not enforce for this hook (worker mode on a Bun host). */
  unenforced?: readonly string[];
}

/** How many latency samples are kept per hook and event (the newest win). */
const MAX_SAMPLES = 10_000;

class Samples {
  calls = 0;
  #values: number[] = [];
  #next = 0;
  add(ms: number): void {
    this.calls++;
    if (this.#values.length < MAX_SAMPLES) this.#values.push(ms);
    else this.#values[this.#next++ % MAX_SAMPLES] = ms;
  }
  values(): readonly number[] { return this.#values; }
}

interface HookRecord {
  events: Map<string, Samples>;
  errors: Map<HookErrorCode, number>;
  reloads: number;
  skipped: number;
}

/** Records what the runner saw, keyed by hook path. Not exported from the package: read it with `runner.stats()`. */
export class StatsRecorder {
  readonly #byHook = new Map<string, HookRecord>();

  #of(hookPath: string): HookRecord {
    let r = this.#byHook.get(hookPath);
    if (!r) this.#byHook.set(hookPath, (r = { events: new Map(), errors: new Map(), reloads: 0, skipped: 0 }));
    return r;
  }

  /** One hook ran one event, taking `ms` (whether it succeeded or not). */
  call(hookPath: string, event: string, ms: number): void {
    const events = this.#of(hookPath).events;
    let s = events.get(event);
    if (!s) events.set(event, (s = new Samples()));
    s.add(ms);
  }

  /** An error with `code` was reported for `hookPath`. */
  error(hookPath: string, code: HookErrorCode): void {
    const errors = this.#of(hookPath).errors;
    errors.set(code, (errors.get(code) ?? 0) + 1);
  }

  /** An event skipped `hookPath` (restarting or disabled). */
  skip(hookPath: string): void {
    this.#of(hookPath).skipped++;
  }

  /** `hookPath` was reloaded with a new worker. */
  reload(hookPath: string): void {
    this.#of(hookPath).reloads++;
  }

  /** The statistics of `hooks`, in their order. */
  snapshot(hooks: readonly LoadedHook[]): HookStats[] {
    return hooks.map((hook) => {
      const r = this.#of(hook.path);
      const events: Record<string, EventStats> = {};
      const all: number[] = [];
      let calls = 0;
      for (const [type, s] of [...r.events].sort(([a], [b]) => a.localeCompare(b))) {
        events[type] = { calls: s.calls, ...latency(s.values()) };
        calls += s.calls;
        all.push(...s.values());
      }
      return {
        hookPath: hook.path,
        state: hook.sandbox?.state ?? "inline",
        calls,
        events,
        latency: latency(all),
        errors: Object.fromEntries(r.errors) as HookStats["errors"],
        restarts: hook.sandbox?.restarts ?? 0,
        reloads: r.reloads,
        skipped: r.skipped,
        ...(hook.sandbox?.bounds ? { bounds: hook.sandbox.bounds } : {}),
        ...(hook.sandbox?.unenforced ? { unenforced: hook.sandbox.unenforced } : {}),
      };
    });
  }
}

/** p50 / p99 / max of `values` (nearest-rank); zeros when there are none. */
export function latency(values: readonly number[]): LatencyStats {
  if (values.length === 0) return { p50: 0, p99: 0, max: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
  return { p50: rank(0.5), p99: rank(0.99), max: sorted[sorted.length - 1]! };
}
