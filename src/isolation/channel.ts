/**
 * `HookChannel`: the host's side of one hook's wire, in every isolation (a worker thread's port or
 * a child process's framed pipe, behind `HookEndpoint`): a pending table where every request has a deadline and
 * rejects the moment the worker dies, liveness (pings), the bridge for what the worker
 * asks of the host, and a budget of protocol violations. Every message read from the worker is
 * validated first (`protocol.ts`); a result must be JSON data within the size and depth bounds.
 */
import { Errors, HookFailure } from "../contract/errors.js";
import { emitReplySchema, isBatch, parseWorkerMessage, type HostMessage, type HostRequest, type Manifest, type WireError, type WorkerMessage } from "../contract/protocol.js";
import { describeIssues } from "../contract/schemas.js";
import { PausableDeadline } from "./deadline.js";
import { HostCalls } from "./host-calls.js";
import type { BridgeHost } from "../bridge/bridge.js";
import { innerCall } from "../bridge/methods.js";
import { Liveness } from "./liveness.js";
import type { HookEndpoint } from "./endpoint.js";
import { LIMITS, METHOD, measure } from "../../worker/wire.mjs";

export interface ChannelLimits {
  /** A message from the worker over this many bytes (estimated) is refused. */
  maxMessageBytes: number;
  /** No message from a busy worker for this long: it is terminated as unresponsive. */
  unresponsiveMs: number;
  /** Fire-and-forget calls (sendMessage, setStatus, log…) allowed per second; the excess is dropped. */
  maxPostsPerSecond: number;
  /** A request's total time paused on UI prompts; past it the request times out. */
  maxPausedMs: number;
}

interface Pending {
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

export interface ChannelEvents {
  /** A fault the hook caused outside any request (bad message, flood, oversized post). */
  fault(failure: HookFailure): void;
  /** Registrations changed after load (checked against the protocol's schema already). */
  manifest(manifest: Manifest): void;
  /** End the worker with this failure (unresponsive, or over its protocol-violation budget). */
  end(failure: (event: string) => HookFailure): void;
}

/** Why not queueMicrotask: it wraps every callback in an AsyncResource, a cost on each request. */
const RESOLVED = Promise.resolve();

export class HookChannel {
  readonly #worker: HookEndpoint;
  readonly #hookPath: string;
  readonly #limits: ChannelLimits;
  readonly #events: ChannelEvents;
  readonly #pending = new Map<number, Pending>();
  readonly #flushes = new Map<number, () => void>();
  readonly #outbox: HostMessage[] = [];
  readonly #calls: HostCalls;
  /**
   * The effects of the worker's current turn (its posts, its setters' effects on the agent),
   * checked, in order: applied when any other message of the worker comes (its answer, a call, a
   * read of the agent, the `turn` that ends a turn with effects) or when it is gone. Why held: a
   * handler's effects and its answer reach the agent in one turn of the host, as in-process, where
   * the agent cannot move on between the two (pi's `sendUserMessage` from a command started its
   * turn before the command's answer came back).
   */
  readonly #held: Array<() => void> = [];
  readonly #live: Liveness;
  #nextId = 1;
  #closed: HookFailure | undefined;
  /** Requests that timed out lately: one late reply each is expected, not a violation. */
  readonly #expired = new Set<number>();
  #violations = 0;

  constructor(endpoint: HookEndpoint, hookPath: string, bridge: BridgeHost, limits: ChannelLimits, events: ChannelEvents) {
    this.#worker = endpoint;
    this.#hookPath = hookPath;
    this.#limits = limits;
    this.#events = events;
    this.#calls = new HostCalls(hookPath, bridge, limits, {
      fault: (f) => events.fault(f),
      violation: (f) => this.#violation(f),
      reply: (m) => this.notify(m),
      answerSync: (r) => endpoint.answerSync(r),
      hostWork: (work) => this.#live.hostWork(work),
    }, this.#held);
    this.#live = new Liveness(endpoint, limits.unresponsiveMs, {
      pending: () => this.#pending.size,
      firstEvent: () => this.#pending.values().next().value?.event,
      // A probe is a flush whose answer only matters as a sign of life (any message is one).
      ping: () => void this.flush(),
      unresponsive: (ms, event) => events.end((e) => Errors.unresponsive(hookPath, e === "worker" ? event : e, ms)),
    });
    endpoint.onMessage((raw: unknown) => this.#onMessage(raw));
  }

  /** Answer a synchronous call now (a renderer's, while the host waits on the render port). */
  answerSync(id: number, method: string, args: unknown[]): void {
    this.#calls.sync(id, method, args);
  }

  /** Send a request; it settles with the worker's value, a `timeout`, or the worker's death. */
  request(body: HostRequest, event: string, deadlineMs: number, signals?: Array<[string, AbortSignal]>): Promise<unknown> {
    if (this.#closed) return Promise.reject(this.#closed);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const now = performance.now();
      const deadline = new PausableDeadline(deadlineMs, (paused) => this.#expire(id, paused), this.#limits.maxPausedMs, now);
      const pending: Pending = { kind: body.t, event, deadlineMs, deadline, resolve, reject };
      this.#pending.set(id, pending);
      if (this.#pending.size === 1) this.#live.update(now);
      // The body becomes the message (no copy on the hot path): the caller's object is the channel's now.
      const message = body as HostRequest & { id: number };
      message.id = id;
      this.#queue(message);
      if (signals) pending.detach = this.#relaySignals(id, signals);
    });
  }

  /**
   * Requests made in the same synchronous run (1000 concurrent emits) go out as one message at the
   * next microtask; a lone request goes out alone, a microtask later.
   */
  #queue(body: HostMessage): void {
    this.#outbox.push(body);
    if (this.#outbox.length === 1) void RESOLVED.then(this.#sendQueuedBound);
  }

  readonly #sendQueuedBound = () => this.#sendQueued();

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
          const p = "id" in message ? this.#settle(message.id) : undefined;
          p?.reject(Errors.handlerThrew(this.#hookPath, p.event,
            `the ${p.event} payload cannot be sent to a worker: ${(err as Error).message.replace(/\.+$/, "")}. Hooks receive plain data (no functions or class instances with private state).`));
        }
      }
    }
  }

  /**
   * Resolve once every message the worker posted before now has been handled: a ping on the
   * same FIFO port, answered by a pong with its id. The only sender of pings (liveness probes use it too). The load answer comes on the control port, so the factory's own posts
   * (log lines) are flushed with this before the load is reported.
   */
  flush(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const id = this.#nextId++;
    return this.#live.track(new Promise<void>((resolve) => {
      this.#flushes.set(id, resolve);
      this.notify({ t: "ping", id });
    }));
  }

  /** Send a one-way notice (cancel, abort, initialized). */
  notify(message: HostMessage): void {
    if (this.#closed) return;
    if (this.#outbox.length > 0) this.#sendQueued();
    this.#worker.post(message);
  }

  /**
   * Track the load (the comlink call) for liveness, with its own bound: a cold TypeScript
   * transform blocks the worker's event loop for a while, legitimately.
   */
  trackLoad<T>(work: Promise<T>, unresponsiveMs: number): Promise<T> {
    return this.#live.track(work, unresponsiveMs);
  }

  /** The worker is gone: reject every pending request with `failure` (its event filled in). Returns how many. */
  close(failure: (event: string) => HookFailure): number {
    if (this.#closed) return 0;
    // What it did before it went, it did.
    this.#calls.release();
    this.#closed = failure("worker");
    this.#live.stop();
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
    if (this.#pending.size === 0) this.#live.update();
    return p;
  }

  #expire(id: number, paused: boolean): void {
    const p = this.#settle(id);
    if (!p) return;
    if (this.#expired.size >= 1024) this.#expired.delete(this.#expired.values().next().value!);
    this.#expired.add(id);
    this.notify({ t: "cancel", id });
    p.reject(paused ? Errors.pausedTooLong(this.#hookPath, p.event, this.#limits.maxPausedMs) : Errors.timeout(this.#hookPath, p.event, p.deadlineMs));
    this.#live.probe(p.event);
  }

  #onMessage(raw: unknown): void {
    if (this.#closed) return;
    if (!isBatch(raw)) return this.#onOne(raw);
    if (raw.m.length > LIMITS.maxBatch) return this.#violation(Errors.protocolViolation(this.#hookPath, `a batch of ${raw.m.length} messages (at most ${LIMITS.maxBatch})`));
    // One level only: a batch inside a batch fails the envelope check below.
    for (const one of raw.m) if (!this.#closed) this.#onOne(one);
  }

  /**
   * Each violation is counted; the first few are reported one by one, and past the budget the
   * worker is ended as `protocol_violation`, reported once (a flood costs the host a bounded amount).
   */
  #violation(failure: HookFailure): void {
    const n = ++this.#violations;
    if (n <= LIMITS.reportedViolations) this.#events.fault(failure);
    if (n !== LIMITS.maxViolations + 1) return;
    const detail = `more than ${LIMITS.maxViolations} messages outside the protocol (last: ${failure.message.replace(/^.*?which was dropped: /, "")}); its worker was ended`;
    this.#events.end((event) => Errors.protocolViolation(this.#hookPath, detail, event));
  }

  #onOne(raw: unknown): void {
    this.#live.heard();
    const parsed = parseWorkerMessage(raw);
    if (!parsed.success) {
      // comlink traffic uses its own port; anything else here is outside the protocol.
      this.#violation(Errors.protocolViolation(this.#hookPath, describeIssues(parsed.error)));
      return;
    }
    const msg = parsed.data;
    if (this.#held.length > 0 && !heldMessage(msg)) this.#calls.release();
    switch (msg.t) {
      case "res": return this.#onResult(msg.id, msg.ok, msg.v, msg.e);
      case "turn": return;
      case "pong": {
        const flushed = this.#flushes.get(msg.id);
        if (flushed) { this.#flushes.delete(msg.id); flushed(); }
        return;
      }
      // Why `rid` is looked up, not trusted: it must name a request of this hook that is still
      // pending; only a UI prompt pauses it, for `maxPausedMs` at most in all.
      case "call": return void this.#calls.call(msg.id, msg.m, msg.a, msg.rid === undefined ? undefined : this.#pending.get(msg.rid));
      case "post": return this.#calls.post(msg.m, msg.a);
      case "sync": return this.#calls.sync(msg.id, msg.m, msg.a);
      case "manifest": return this.#events.manifest(msg.manifest);
      case "big": return this.#onRefused(msg.id, msg.m, (event) => Errors.resultTooLarge(this.#hookPath, event, msg.bytes, this.#limits.maxMessageBytes));
      case "invalid": return this.#onRefused(msg.id, msg.m, (event) => msg.m === undefined
        ? Errors.invalidResult(this.#hookPath, event, `it is not JSON data: ${msg.issue}`)
        : Errors.badArgument(this.#hookPath, event, msg.issue));
    }
  }

  #onResult(id: number, ok: boolean, value: unknown, error: WireError | undefined): void {
    const p = this.#settle(id);
    if (!p) {
      // One late answer to a request that timed out is expected; anything else is forged, and not read.
      if (this.#expired.delete(id)) return;
      this.#violation(Errors.protocolViolation(this.#hookPath, id >= this.#nextId
        ? `a reply to request ${id}, which the host never sent`
        : `a second reply to request ${id}, which was already settled`));
      return;
    }
    if (!ok) {
      const e = error ?? { message: "the handler failed without a message" };
      p.reject(Errors.handlerThrew(this.#hookPath, p.event, e.message, e.stack));
      return;
    }
    // The result sits 3 levels down an emit reply ({ steps: [{ r }] }).
    const { bytes, issue } = measure(value, this.#limits.maxMessageBytes, 3);
    if (issue) {
      p.reject(Errors.invalidResult(this.#hookPath, p.event, `it is not JSON data: ${issue}`));
      return;
    }
    if (bytes > this.#limits.maxMessageBytes) {
      p.reject(Errors.resultTooLarge(this.#hookPath, p.event, bytes, this.#limits.maxMessageBytes));
      return;
    }
    // Where the reply's kind is known, it is checked once: an emit's reply is `emitReplySchema`
    // (each result in it is checked against its event's schema by the runner); nothing is an empty one.
    if (p.kind === "emit" && value !== undefined) {
      const parsed = emitReplySchema.safeParse(value);
      if (!parsed.success) {
        p.reject(Errors.protocolViolation(this.#hookPath, `bad ${p.event} reply: ${describeIssues(parsed.error)}`, p.event));
        return;
      }
    }
    p.resolve(value);
  }

  /** The worker refused to send something (too large, not JSON): the host never held it. */
  #onRefused(id: number | undefined, method: string | undefined, failure: (event: string) => HookFailure): void {
    const p = id === undefined ? undefined : this.#settle(id);
    if (p) p.reject(failure(p.event));
    else if (id === undefined || !this.#expired.delete(id)) this.#events.fault(failure(method ?? "message"));
  }

}

/** A message whose effect waits for the worker's turn to end: a post, a setter of the agent's. */
function heldMessage(msg: WorkerMessage): boolean {
  return msg.t === "post" || (msg.t === "sync" && innerCall(msg.m, msg.a)?.method === METHOD.agentSet);
}
