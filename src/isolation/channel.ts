/**
 * `HookChannel`: the host's side of one hook's wire, in every isolation (a worker thread's port or
 * a child process's framed pipe, behind `HookEndpoint`): what goes out (requests batched per
 * synchronous run, notices, flushes) and what comes in. Every message read from the worker is
 * validated first (`protocol.ts`), and an answer to a request is accepted or refused by `reply.ts`.
 * Around it: the pending table, where every request has a deadline and rejects the moment the
 * worker dies (`pending.ts`), liveness (`liveness.ts`), the bridge for what the worker asks of the
 * host (`host-calls.ts`), and a budget of protocol violations (`violations.ts`).
 */
import { Errors, HookFailure } from "../contract/errors.js";
import { isBatch, parseWorkerMessage, type HostMessage, type HostRequest, type Manifest, type WireError, type WorkerMessage } from "../contract/protocol.js";
import { describeIssues } from "../contract/schemas.js";
import { HostCalls } from "./host-calls.js";
import type { BridgeHost } from "../bridge/bridge.js";
import { innerCall } from "../bridge/methods.js";
import { Liveness } from "./liveness.js";
import { PendingRequests } from "./pending.js";
import { replyFailure } from "./reply.js";
import { ViolationBudget } from "./violations.js";
import type { HookEndpoint } from "./endpoint.js";
import { LIMITS, METHOD } from "../../worker/wire.mjs";

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
  readonly #pending: PendingRequests;
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
  readonly #violations: ViolationBudget;
  #closed: HookFailure | undefined;

  constructor(endpoint: HookEndpoint, hookPath: string, bridge: BridgeHost, limits: ChannelLimits, events: ChannelEvents) {
    this.#worker = endpoint;
    this.#hookPath = hookPath;
    this.#limits = limits;
    this.#events = events;
    this.#violations = new ViolationBudget(hookPath, events);
    this.#pending = new PendingRequests(hookPath, limits.maxPausedMs, {
      occupancy: (now) => this.#live.update(now),
      notify: (m) => this.notify(m),
      timedOut: (event) => this.#live.probe(event),
    });
    this.#calls = new HostCalls(hookPath, bridge, limits, {
      fault: (f) => events.fault(f),
      violation: (f) => this.#violations.count(f),
      reply: (m) => this.notify(m),
      answerSync: (r) => endpoint.answerSync(r),
      hostWork: (work) => this.#live.hostWork(work),
    }, this.#held);
    this.#live = new Liveness(endpoint, limits.unresponsiveMs, {
      pending: () => this.#pending.size,
      firstEvent: () => this.#pending.firstEvent(),
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
    return new Promise((resolve, reject) => {
      const id = this.#pending.add(body.t, event, deadlineMs, resolve, reject);
      // The body becomes the message (no copy on the hot path): the caller's object is the channel's now.
      const message = body as HostRequest & { id: number };
      message.id = id;
      this.#queue(message);
      if (signals) this.#pending.relaySignals(id, signals);
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
          const p = "id" in message ? this.#pending.settle(message.id) : undefined;
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
    const id = this.#pending.newId();
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
    return this.#pending.rejectAll(failure);
  }

  #onMessage(raw: unknown): void {
    if (this.#closed) return;
    if (!isBatch(raw)) return this.#onOne(raw);
    if (raw.m.length > LIMITS.maxBatch) return this.#violations.count(Errors.protocolViolation(this.#hookPath, `a batch of ${raw.m.length} messages (at most ${LIMITS.maxBatch})`));
    // One level only: a batch inside a batch fails the envelope check below.
    for (const one of raw.m) if (!this.#closed) this.#onOne(one);
  }

  #onOne(raw: unknown): void {
    this.#live.heard();
    const parsed = parseWorkerMessage(raw);
    if (!parsed.success) {
      // comlink traffic uses its own port; anything else here is outside the protocol.
      this.#violations.count(Errors.protocolViolation(this.#hookPath, describeIssues(parsed.error)));
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
    const p = this.#pending.settle(id);
    if (!p) {
      // One late answer to a request that timed out is expected; anything else is forged, and not read.
      if (this.#pending.late(id)) return;
      this.#violations.count(Errors.protocolViolation(this.#hookPath, !this.#pending.sent(id)
        ? `a reply to request ${id}, which the host never sent`
        : `a second reply to request ${id}, which was already settled`));
      return;
    }
    const failure = replyFailure(this.#hookPath, p, ok, value, error, this.#limits.maxMessageBytes);
    if (failure) p.reject(failure);
    else p.resolve(value);
  }

  /** The worker refused to send something (too large, not JSON): the host never held it. */
  #onRefused(id: number | undefined, method: string | undefined, failure: (event: string) => HookFailure): void {
    const p = id === undefined ? undefined : this.#pending.settle(id);
    if (p) p.reject(failure(p.event));
    else if (id === undefined || !this.#pending.late(id)) this.#events.fault(failure(method ?? "message"));
  }
}

/** A message whose effect waits for the worker's turn to end: a post, a setter of the agent's. */
function heldMessage(msg: WorkerMessage): boolean {
  return msg.t === "post" || (msg.t === "sync" && innerCall(msg.m, msg.a)?.method === METHOD.agentSet);
}
