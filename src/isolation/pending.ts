/**
 * The host's requests to one worker that await their answer (the channel's pending table): each
 * has an id, a deadline (paused only by a UI prompt, `maxPausedMs` at most in all) and the
 * AbortSignals relayed for it, and settles once: with its answer, at its deadline (`timeout`, the
 * worker told to cancel), or when the worker is gone. One late answer to a request that timed out
 * is expected; the table remembers which.
 */
import { Errors, type HookFailure } from "../contract/errors.js";
import type { HostMessage } from "../contract/protocol.js";
import { PausableDeadline } from "./deadline.js";

export interface Pending {
  /** The request's message type: `emit`, `command` or `setup` (command-only methods check it). */
  kind: string;
  event: string;
  deadlineMs: number;
  deadline: PausableDeadline;
  resolve(value: unknown): void;
  reject(error: HookFailure): void;
  /** Detach AbortSignal listeners relayed for this request. */
  detach?: () => void;
}

export interface PendingHost {
  /** The table became non-empty (`now`: the clock read for the request), or empty again: liveness checks only while it is not. */
  occupancy(now?: number): void;
  /** A one-way notice to the worker: a timed-out request's `cancel`, a relayed `abort`. */
  notify(message: HostMessage): void;
  /** A request of `event` timed out: whether its worker is still alive is worth a probe. */
  timedOut(event: string): void;
}

/** Requests that timed out lately, remembered for their late answer: at most this many. */
const EXPIRED_REMEMBERED = 1024;

export class PendingRequests {
  readonly #hookPath: string;
  readonly #maxPausedMs: number;
  readonly #host: PendingHost;
  readonly #table = new Map<number, Pending>();
  /** Requests that timed out lately: one late reply each is expected, not a violation. */
  readonly #expired = new Set<number>();
  #nextId = 1;

  constructor(hookPath: string, maxPausedMs: number, host: PendingHost) {
    this.#hookPath = hookPath;
    this.#maxPausedMs = maxPausedMs;
    this.#host = host;
  }

  get size(): number {
    return this.#table.size;
  }

  /** The event of the oldest pending request, if any. */
  firstEvent(): string | undefined {
    return this.#table.values().next().value?.event;
  }

  /** The pending request `id` names, if it is one. */
  get(id: number): Pending | undefined {
    return this.#table.get(id);
  }

  /** A fresh id for a message that is not a request (a flush's ping): ids the host sent are one sequence. */
  newId(): number {
    return this.#nextId++;
  }

  /** Whether the host ever sent `id`. */
  sent(id: number): boolean {
    return id < this.#nextId;
  }

  /** A new request, its deadline running; its id. */
  add(kind: string, event: string, deadlineMs: number, resolve: (value: unknown) => void, reject: (error: HookFailure) => void): number {
    const id = this.#nextId++;
    const now = performance.now();
    const deadline = new PausableDeadline(deadlineMs, (paused) => this.#expire(id, paused), this.#maxPausedMs, now);
    this.#table.set(id, { kind, event, deadlineMs, deadline, resolve, reject });
    if (this.#table.size === 1) this.#host.occupancy(now);
    return id;
  }

  /** Tell the worker when one of these signals aborts, while request `id` is pending (sent after the request). */
  relaySignals(id: number, signals: Array<[string, AbortSignal]>): void {
    const pending = this.#table.get(id);
    if (!pending) return;
    const detach: Array<() => void> = [];
    for (const [field, signal] of signals) {
      const onAbort = () => this.#host.notify({ t: "abort", id, field });
      if (signal.aborted) { onAbort(); continue; }
      signal.addEventListener("abort", onAbort, { once: true });
      detach.push(() => signal.removeEventListener("abort", onAbort));
    }
    pending.detach = () => { for (const d of detach) d(); };
  }

  /** Take request `id` out of the table, its deadline and signals released; undefined when it is not pending. */
  settle(id: number): Pending | undefined {
    const p = this.#table.get(id);
    if (!p) return undefined;
    this.#table.delete(id);
    p.deadline.clear();
    p.detach?.();
    if (this.#table.size === 0) this.#host.occupancy();
    return p;
  }

  /** Whether `id` is a request that timed out and had no answer yet (its one late answer, now taken). */
  late(id: number): boolean {
    return this.#expired.delete(id);
  }

  /** The worker is gone: reject every pending request with `failure` (its event filled in). Returns how many. */
  rejectAll(failure: (event: string) => HookFailure): number {
    const pending = [...this.#table.values()];
    this.#table.clear();
    for (const p of pending) {
      p.deadline.clear();
      p.detach?.();
      p.reject(failure(p.event));
    }
    return pending.length;
  }

  #expire(id: number, paused: boolean): void {
    const p = this.settle(id);
    if (!p) return;
    if (this.#expired.size >= EXPIRED_REMEMBERED) this.#expired.delete(this.#expired.values().next().value!);
    this.#expired.add(id);
    this.#host.notify({ t: "cancel", id });
    p.reject(paused ? Errors.pausedTooLong(this.#hookPath, p.event, this.#maxPausedMs) : Errors.timeout(this.#hookPath, p.event, p.deadlineMs));
    this.#host.timedOut(p.event);
  }
}
