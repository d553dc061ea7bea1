/**
 * The host's side of one worker's wire: a pending table where every request has a deadline and
 * rejects the moment the worker dies, liveness (acks and pings), and the allowlisted bridge for
 * what the worker asks of the host. Every message read from the worker is validated first.
 */
import { Errors, HookFailure } from "../errors.js";
import type { Batch, HostMessage, WorkerMessage, WireError } from "../protocol.js";
import { describeIssues, workerMessageSchema } from "../schemas.js";
import { PausableDeadline } from "./deadline.js";
import { HostCalls } from "./host-calls.js";
import type { HookEndpoint } from "./endpoint.js";
// @ts-ignore: plain JS shared with the worker, typed through JSDoc
import { estimateBytes } from "../../worker/size.mjs";

/** What the worker may ask of the host. Implementations validate arguments per method. */
export interface BridgeHost {
  call(method: string, args: unknown[]): Promise<unknown>;
  sync(method: string, args: unknown[]): unknown;
  post(method: string, args: unknown[]): void;
}

export interface ChannelLimits {
  /** A message from the worker over this many bytes (estimated) is refused. */
  maxMessageBytes: number;
  /** No message from a busy worker for this long: it is terminated as unresponsive. */
  unresponsiveMs: number;
  /** Fire-and-forget calls (sendMessage, setStatus, log…) allowed per second; the excess is dropped. */
  maxPostsPerSecond: number;
}

interface Pending {
  event: string;
  deadlineMs: number;
  deadline: PausableDeadline;
  resolve(value: unknown): void;
  reject(error: HookFailure): void;
  /** Detach AbortSignal listeners relayed for this request. */
  detach?: () => void;
}

export interface ChannelEvents {
  /** A fault the hook caused outside any request (bad message, flood, oversized post). */
  fault(failure: HookFailure): void;
  /** Registrations changed after load. */
  manifest(manifest: unknown): void;
  /** The worker sent nothing for `silentMs` while busy with `event`: the sandbox terminates it as unresponsive. */
  kill(silentMs: number, event: string): void;
}

export class WorkerChannel {
  readonly #worker: HookEndpoint;
  readonly #hookPath: string;
  readonly #limits: ChannelLimits;
  readonly #events: ChannelEvents;
  readonly #pending = new Map<number, Pending>();
  readonly #flushes = new Map<number, () => void>();
  readonly #outbox: Array<Record<string, unknown>> = [];
  readonly #calls: HostCalls;
  #nextId = 1;
  #lastHeard = performance.now();
  #liveness: NodeJS.Timeout | undefined;
  #livenessEvery = 0;
  #pinging = false;
  #closed: HookFailure | undefined;
  /** Work outside the pending table that still needs liveness checks (the comlink load, a probe). */
  #externalBusy = 0;
  /** While loading: the liveness bound for the load. */
  #loadBound: number | undefined;
  /** Set after a timeout until the worker shows it is alive: the event that timed out. */
  #probing: string | undefined;

  constructor(endpoint: HookEndpoint, hookPath: string, bridge: BridgeHost, limits: ChannelLimits, events: ChannelEvents) {
    this.#worker = endpoint;
    this.#hookPath = hookPath;
    this.#limits = limits;
    this.#events = events;
    this.#calls = new HostCalls(hookPath, bridge, limits, (f) => events.fault(f), (m) => this.notify(m), (r) => endpoint.answerSync(r));
    endpoint.onMessage((raw: unknown) => this.#onMessage(raw));
  }

  /** Answer a synchronous call now (a renderer's, while the host waits on the render port). */
  answerSync(id: number, method: string, args: unknown[]): void {
    this.#calls.sync(id, method, args);
  }

  setBridge(bridge: BridgeHost): void {
    this.#calls.bridge = bridge;
  }

  /** Send a request; it settles with the worker's value, a `timeout`, or the worker's death. */
  request(body: Record<string, unknown> & { t: string }, event: string, deadlineMs: number, signals?: Array<[string, AbortSignal]>): Promise<unknown> {
    if (this.#closed) return Promise.reject(this.#closed);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const deadline = new PausableDeadline(deadlineMs, () => this.#expire(id));
      const pending: Pending = { event, deadlineMs, deadline, resolve, reject };
      this.#pending.set(id, pending);
      if (this.#pending.size === 1 && this.#externalBusy === 0) this.#busy();
      body.id = id;
      this.#queue(body);
      if (signals) pending.detach = this.#relaySignals(id, signals);
    });
  }

  /**
   * Requests made in the same synchronous run (1000 concurrent emits) go out as one message at the
   * next microtask; a lone request goes out alone, a microtask later.
   */
  #queue(body: Record<string, unknown>): void {
    this.#outbox.push(body);
    if (this.#outbox.length === 1) queueMicrotask(() => this.#sendQueued());
  }

  #sendQueued(): void {
    if (this.#outbox.length === 0 || this.#closed) { this.#outbox.length = 0; return; }
    const messages = this.#outbox.splice(0);
    try {
      this.#worker.post(messages.length === 1 ? messages[0]! : { t: "batch", m: messages });
    } catch {
      // One payload that cannot be cloned must not take the others with it.
      for (const message of messages) {
        try {
          this.#worker.post(message);
        } catch (err) {
          const p = this.#settle(message.id as number);
          p?.reject(Errors.handlerThrew(this.#hookPath, p.event,
            `the ${p.event} payload cannot be sent to a worker: ${(err as Error).message.replace(/\.+$/, "")}. Hooks receive plain data (no functions or class instances with private state).`));
        }
      }
    }
  }

  /**
   * Resolve once every message the worker posted before now has been handled: a ping on the
   * same FIFO port. The load answer comes on the control port, so the factory's own posts
   * (log lines) are flushed with this before the load is reported.
   */
  flush(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const id = this.#nextId++;
    if (this.#externalBusy++ === 0 && this.#pending.size === 0) this.#busy();
    return new Promise<void>((resolve) => {
      this.#flushes.set(id, resolve);
      this.notify({ t: "ping", id });
    }).finally(() => {
      if (--this.#externalBusy === 0 && this.#pending.size === 0) this.#idle();
    });
  }

  /** Send a one-way notice (cancel, abort, initialized). */
  notify(message: HostMessage): void {
    if (this.#closed) return;
    if (this.#outbox.length > 0) this.#sendQueued();
    this.#worker.post(message as unknown as Record<string, unknown>);
  }

  /**
   * Track the load (the comlink call) for liveness, with its own bound: a cold TypeScript
   * transform blocks the worker's event loop for a while, legitimately.
   */
  trackLoad<T>(work: Promise<T>, unresponsiveMs: number): Promise<T> {
    this.#loadBound = unresponsiveMs;
    if (this.#externalBusy++ === 0 && this.#pending.size === 0) this.#busy();
    return work.finally(() => {
      this.#loadBound = undefined;
      if (--this.#externalBusy === 0 && this.#pending.size === 0) this.#idle();
    });
  }

  get #bound(): number {
    return this.#loadBound ?? this.#limits.unresponsiveMs;
  }

  /** The worker is gone: reject every pending request with `failure` (its event filled in). Returns how many. */
  close(failure: (event: string) => HookFailure): number {
    if (this.#closed) return 0;
    this.#closed = failure("worker");
    this.#idle();
    this.#stopLiveness();
    for (const flushed of this.#flushes.values()) flushed();
    this.#flushes.clear();
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) {
      p.deadline.clear();
      p.detach?.();
      p.reject(failure(p.event));
    }
    return pending.length;
  }

  #relaySignals(id: number, signals: Array<[string, AbortSignal]>): () => void {
    const detach: Array<() => void> = [];
    for (const [field, signal] of signals) {
      const onAbort = () => this.notify({ t: "abort", id, field });
      if (signal.aborted) { onAbort(); continue; }
      signal.addEventListener("abort", onAbort, { once: true });
      detach.push(() => signal.removeEventListener("abort", onAbort));
    }
    return () => { for (const d of detach) d(); };
  }

  #settle(id: number): Pending | undefined {
    const p = this.#pending.get(id);
    if (!p) return undefined;
    this.#pending.delete(id);
    p.deadline.clear();
    p.detach?.();
    if (this.#pending.size === 0 && this.#externalBusy === 0) this.#idle();
    return p;
  }

  #expire(id: number): void {
    const p = this.#settle(id);
    if (!p) return;
    this.notify({ t: "cancel", id });
    p.reject(Errors.timeout(this.#hookPath, p.event, p.deadlineMs));
    this.#probe(p.event);
  }

  /**
   * After a timeout the worker must still show it is alive: it gets a ping, and any message within
   * `unresponsiveMs` clears it. A slow handler leaves the loop free and answers; a synchronous loop
   * does not, and its worker is terminated instead of spinning forever.
   */
  #probe(event: string): void {
    if (this.#probing || this.#closed) return;
    this.#probing = event;
    if (this.#externalBusy++ === 0 && this.#pending.size === 0) this.#busy();
    this.#pinging = true;
    this.#lastHeard = performance.now();
    this.notify({ t: "ping", id: 0 });
  }

  #busy(): void {
    this.#worker.ref();
    this.#lastHeard = performance.now();
    const every = Math.max(5, Math.floor(this.#bound / 4));
    if (this.#liveness && this.#livenessEvery === every) return;
    if (this.#liveness) clearInterval(this.#liveness);
    this.#livenessEvery = every;
    this.#liveness = setInterval(() => this.#checkLiveness(), every);
    this.#liveness.unref();
  }

  /** The liveness timer stops itself at its next tick (cheaper than a timer per request). */
  #idle(): void {
    this.#pinging = false;
    this.#worker.unref();
  }

  #stopLiveness(): void {
    if (this.#liveness) clearInterval(this.#liveness);
    this.#liveness = undefined;
  }

  #checkLiveness(): void {
    if (this.#closed || (this.#pending.size === 0 && this.#externalBusy === 0)) return this.#stopLiveness();
    const silent = performance.now() - this.#lastHeard;
    if (silent >= this.#bound) {
      const event = this.#pending.values().next().value?.event ?? this.#probing ?? (this.#loadBound !== undefined ? "load" : "worker");
      this.#events.kill(Math.round(silent), event);
      return;
    }
    if (silent >= this.#bound / 2 && !this.#pinging) {
      this.#pinging = true;
      this.notify({ t: "ping", id: 0 });
    }
  }

  #onMessage(raw: unknown): void {
    if (!isBatch(raw)) return this.#onOne(raw);
    // One level only: a batch inside a batch fails the envelope check below.
    for (const one of raw.m) this.#onOne(one);
  }

  #onOne(raw: unknown): void {
    this.#lastHeard = performance.now();
    this.#pinging = false;
    if (this.#probing) {
      this.#probing = undefined;
      if (--this.#externalBusy === 0 && this.#pending.size === 0) this.#idle();
    }
    const parsed = workerMessageSchema.safeParse(raw);
    if (!parsed.success) {
      // comlink traffic uses its own port; anything else here is outside the protocol.
      this.#events.fault(Errors.protocolViolation(this.#hookPath, describeIssues(parsed.error)));
      return;
    }
    const msg = parsed.data as WorkerMessage;
    switch (msg.t) {
      // An ack only proves the worker is reading: `#lastHeard` above is all it updates.
      case "ack": return;
      case "res": return this.#onResult(msg.id, msg.ok, msg.v, msg.e);
      case "pong": {
        const flushed = this.#flushes.get(msg.id);
        if (flushed) { this.#flushes.delete(msg.id); flushed(); }
        return;
      }
      case "call": return void this.#calls.call(msg.id, msg.m, msg.a, msg.rid === undefined ? undefined : this.#pending.get(msg.rid)?.deadline);
      case "post": return this.#calls.post(msg.m, msg.a);
      case "sync": return this.#calls.sync(msg.id, msg.m, msg.a);
      case "manifest": return this.#events.manifest(msg.manifest);
      case "big": return this.#onRefused(msg.id, msg.m, msg.bytes);
    }
  }

  #onResult(id: number, ok: boolean, value: unknown, error: WireError | undefined): void {
    const p = this.#settle(id);
    if (!p) {
      // A late answer to a request that timed out is dropped quietly; an answer to an id never sent is forged.
      if (id >= this.#nextId) this.#events.fault(Errors.protocolViolation(this.#hookPath, `a reply to request ${id}, which the host never sent`));
      return;
    }
    if (!ok) {
      const e = error ?? { message: "the handler failed without a message" };
      p.reject(Errors.handlerThrew(this.#hookPath, p.event, e.message, e.stack));
      return;
    }
    const bytes = estimateBytes(value, this.#limits.maxMessageBytes);
    if (bytes > this.#limits.maxMessageBytes) {
      p.reject(Errors.resultTooLarge(this.#hookPath, p.event, bytes, this.#limits.maxMessageBytes));
      return;
    }
    p.resolve(value);
  }

  /** The worker refused to send something over the limit: the host never held it. */
  #onRefused(id: number | undefined, method: string | undefined, bytes: number): void {
    const limit = this.#limits.maxMessageBytes;
    const p = id === undefined ? undefined : this.#settle(id);
    if (p) p.reject(Errors.resultTooLarge(this.#hookPath, p.event, bytes, limit));
    else this.#events.fault(Errors.resultTooLarge(this.#hookPath, method ?? "message", bytes, limit));
  }

}

/** A worker's turn: several messages in one (see worker/transport.mjs flushTurn). */
function isBatch(raw: unknown): raw is Batch<unknown> {
  return typeof raw === "object" && raw !== null && (raw as { t?: unknown }).t === "batch" && Array.isArray((raw as { m?: unknown }).m)
    && Object.keys(raw).length === 2;
}

