/**
 * What a worker asks of the host, checked against the bridge table (`bridge/methods.ts`) before
 * the host's implementation sees it: the method exists and travels the way it was sent, the caller
 * may make it (command-only methods), its arguments are JSON data within `maxMessageBytes` and
 * pass their schema, and the host's answer passes its result schema. Calls are bounded per hook
 * (`LIMITS.maxConcurrentCalls`), UI prompts run one at a time, and only a prompt pauses the
 * deadline of the request it runs under. A post, and a setter's effect on the agent, are checked
 * when they arrive and held, then applied in order (`release`) when the channel sees the worker's
 * turn end (src/isolation/channel.ts).
 */
import { Errors, HookFailure } from "../contract/errors.js";
import { HOST_LACKS_METHOD, HostLacksMethod, warnHostLacks } from "../bridge/host-setup.js";
import type { HostMessage, SyncReply, WireError } from "../contract/protocol.js";
import { describeIssues } from "../contract/schemas.js";
import { innerCall, methodSpec, type MethodSpec } from "../bridge/methods.js";
import { ANSWERED_SETTERS, SETTLED_SETTERS } from "../bridge/agent-gate.js";
import { LIMITS, METHOD, measure } from "../../worker/wire.mjs";
import { toWireError } from "../../worker/describe.mjs";
import type { BridgeHost } from "../bridge/bridge.js";

/** The bounds the calls of one worker are held to (a part of the channel's limits). */
export interface CallLimits { maxMessageBytes: number; maxPostsPerSecond: number }

/** The pending request a call names (checked by the channel): its kind and its deadline. */
export interface CallOwner { kind: string; deadline: { pause(): void; resume(): void } }

export interface CallSink {
  /** A fault that is not a protocol violation (oversized or non-JSON arguments). */
  fault(failure: HookFailure): void;
  /** A protocol violation: counted against the hook's budget, reported while within it. */
  violation(failure: HookFailure): void;
  reply(message: HostMessage): void;
  answerSync(reply: SyncReply): void;
  /** The host works on a synchronous call for this long (a transform): the worker waits on the host, it is not silent. */
  hostWork(work: Promise<unknown>): void;
}

/**
 * At most this many effects are held for one worker: a turn that makes more (a busy loop posting
 * within maxPostsPerSecond) has them applied as they come, in order, from then on.
 */
export const MAX_HELD_EFFECTS = 1024;

/** Why a request was refused before it reached the host's implementation. */
class Refused extends Error {}

export class HostCalls {
  readonly bridge: BridgeHost;
  readonly #hookPath: string;
  readonly #limits: CallLimits;
  readonly #sink: CallSink;
  #postWindowStart = 0;
  #postsInWindow = 0;
  #floodReported = false;
  #inFlight = 0;
  #prompting = false;
  /** A host-side synchronous job (a transform) is running for this worker, which is blocked on it. */
  #syncJob = false;
  readonly #promptQueue: Array<() => void> = [];
  /** `object.method` names the host lacks that this hook was already warned about. */
  readonly #lackingWarned = new Set<string>();
  /** The effects of the worker's current turn, checked, in the order they came (the channel's array: it sees when they are due). */
  readonly #held: Array<() => void>;

  constructor(hookPath: string, bridge: BridgeHost, limits: CallLimits, sink: CallSink, held: Array<() => void> = []) {
    this.#hookPath = hookPath;
    this.bridge = bridge;
    this.#limits = limits;
    this.#sink = sink;
    this.#held = held;
  }

  async call(id: number, method: string, args: unknown[], owner: CallOwner | undefined): Promise<void> {
    let reply: HostMessage;
    let counted = false;
    let pausing: CallOwner["deadline"] | undefined;
    let prompting = false;
    try {
      const spec = this.#check("call", method, args);
      // A command's own context (a scoped call) stays one after the command returned, as in the agent.
      const commandScope = method === METHOD.scopedCall && this.bridge.hasScope?.(args[0] as number) === true;
      if (spec.scope === "command" && owner?.kind !== "command" && !commandScope) {
        throw this.#refuse(`${method} exists only in a command's context (ctx of registerCommand's handler), called outside one`);
      }
      if (this.#inFlight >= LIMITS.maxConcurrentCalls) {
        throw this.#refuse(`more than ${LIMITS.maxConcurrentCalls} bridge calls at once (${method}); refused`);
      }
      this.#inFlight++;
      counted = true;
      if (spec.prompt) {
        // Why pause before the queue: waiting behind another prompt is waiting on the host too.
        pausing = owner?.deadline;
        pausing?.pause();
        await this.#promptTurn(method);
        prompting = true;
      }
      reply = { t: "ret", id, ok: true, v: this.#answer(method, spec, await this.bridge.call(method, args)) };
    } catch (err) {
      reply = { t: "ret", id, ok: false, e: hostError(err) };
      this.#blame(err);
    } finally {
      if (prompting) this.#promptDone();
      pausing?.resume();
      if (counted) this.#inFlight--;
    }
    try {
      this.#sink.reply(reply);
    } catch (err) {
      this.#sink.reply({ t: "ret", id, ok: false, e: { message: `the host's answer to ${method} could not be sent: ${(err as Error).message}` } });
    }
  }

  post(method: string, args: unknown[]): void {
    const now = performance.now();
    if (now - this.#postWindowStart >= 1000) {
      this.#postWindowStart = now;
      this.#postsInWindow = 0;
    }
    if (++this.#postsInWindow > this.#limits.maxPostsPerSecond) {
      if (!this.#floodReported) {
        this.#floodReported = true;
        this.#sink.fault(Errors.protocolViolation(this.#hookPath,
          `more than ${this.#limits.maxPostsPerSecond} messages in one second (${method}); the excess is dropped (the maxPostsPerSecond option). Reported once.`));
      }
      return;
    }
    try {
      this.#check("post", method, args);
    } catch (err) {
      this.#blame(err);
      return;
    }
    this.#hold(() => this.#apply(method, () => this.bridge.post(method, args)));
  }

  #hold(effect: () => void): void {
    this.#held.push(effect);
    if (this.#held.length >= MAX_HELD_EFFECTS) this.release();
  }

  /** Apply the held effects, in the order they came. */
  release(): void {
    for (const apply of this.#held.splice(0)) apply();
  }

  /** A held effect, applied: what it throws is the hook's fault, or the host's. */
  #apply(method: string, run: () => void): void {
    try {
      run();
    } catch (err) {
      if (!this.#blame(err)) {
        // The embedder's own handler threw: a host fault, not the hook's.
        process.emitWarning(`hookbox: the host's ${method} handler threw while serving hook ${this.#hookPath}: ${(err as Error)?.message ?? String(err)}`, "HookboxHostWarning");
      }
    }
  }

  sync(id: number, method: string, args: unknown[]): void {
    const fail = (err: unknown) => {
      this.#sink.answerSync({ id, ok: false, e: hostError(err) });
      this.#blame(err);
    };
    try {
      const spec = this.#check("sync", method, args);
      // A worker blocked on one synchronous call cannot make another: a second is forged.
      if (this.#syncJob) throw this.#refuse(`a synchronous ${method} call while the host still works on another`);
      // A setter the agent answers with a promise of the change (SETTLED_SETTERS) is applied now,
      // after what the module did before it, and answered when the change settled.
      const inner = innerCall(method, args);
      if (inner?.method === METHOD.agentSet && (SETTLED_SETTERS.has(String(inner.args[0])) || ANSWERED_SETTERS.has(String(inner.args[0])))) this.release();
      const v = this.bridge.sync(method, args, (apply) => this.#hold(() => this.#apply(method, apply)));
      if (v instanceof Promise) {
        // A host-side job (`transform`) answers when done; the worker stays blocked meanwhile.
        this.#syncJob = true;
        const answered = v.then((value) => this.#answer(method, spec, value)).finally(() => { this.#syncJob = false; });
        this.#sink.hostWork(answered);
        answered.then((value) => this.#sink.answerSync({ id, ok: true, v: value }), fail);
        return;
      }
      this.#sink.answerSync({ id, ok: true, v: this.#answer(method, spec, v) });
    } catch (err) {
      fail(err);
    }
  }

  /** The row of `method`, after the arguments passed it; throws a refusal otherwise. */
  #check(kind: MethodSpec["kind"], method: string, args: unknown[]): MethodSpec {
    const outer = methodSpec(method);
    if (!outer || outer.kind !== kind) throw this.#refuse(`${JSON.stringify(method)} is not a host ${kind}`);
    const { bytes, issue } = measure(args, this.#limits.maxMessageBytes);
    if (issue) throw Errors.badArgument(this.#hookPath, method, issue);
    if (bytes > this.#limits.maxMessageBytes) throw Errors.resultTooLarge(this.#hookPath, method, bytes, this.#limits.maxMessageBytes);
    const parsed = outer.args.safeParse(args);
    if (!parsed.success) throw this.#refuse(`bad arguments to ${method}: ${describeIssues(parsed.error)}`);
    // A scoped call is held to the row of the method it carries: same way of travel, same scope and arguments.
    const inner = innerCall(method, args);
    if (!inner) throw this.#refuse(`a ${method} call must carry a bridge method other than a scoped one`);
    if (inner.method === method) return outer;
    const spec = methodSpec(inner.method);
    if (!spec || spec.kind !== kind) throw this.#refuse(`${JSON.stringify(inner.method)} is not a host ${kind}`);
    const innerParsed = spec.args.safeParse(inner.args);
    if (!innerParsed.success) throw this.#refuse(`bad arguments to ${inner.method}: ${describeIssues(innerParsed.error)}`);
    return spec;
  }

  /** The host's answer, if it is what the table says (a host that answers otherwise is not the hook's fault). */
  #answer(method: string, spec: MethodSpec, value: unknown): unknown {
    const parsed = spec.result.safeParse(value);
    if (!parsed.success) throw new Error(`the host answered ${method} with a value outside the protocol: ${describeIssues(parsed.error)}`);
    return value;
  }

  #refuse(detail: string): Refused {
    this.#sink.violation(Errors.protocolViolation(this.#hookPath, detail));
    return new Refused(detail);
  }

  /** Report what the hook caused; false when the error is the host's own. */
  #blame(err: unknown): boolean {
    if (err instanceof Refused) return true;
    if (err instanceof HostLacksMethod) {
      // The host's set-up, not the hook's fault: warned once per method per hook, the hook gets the error.
      const key = `${err.object}.${err.method}`;
      if (!this.#lackingWarned.has(key)) {
        this.#lackingWarned.add(key);
        warnHostLacks(`hook ${this.#hookPath} called ${key}(), which the host's ${err.object} lacks; the hook got an error naming it`);
      }
      return true;
    }
    if (err instanceof HookFailure) {
      if (err.code === "protocol_violation") this.#sink.violation(err);
      else this.#sink.fault(err);
      return true;
    }
    return false;
  }

  async #promptTurn(method: string): Promise<void> {
    if (!this.#prompting) { this.#prompting = true; return; }
    if (this.#promptQueue.length >= LIMITS.maxQueuedPrompts) {
      throw this.#refuse(`more than ${LIMITS.maxQueuedPrompts} UI prompts waiting (${method}); prompts run one at a time`);
    }
    await new Promise<void>((resolve) => this.#promptQueue.push(resolve));
  }

  #promptDone(): void {
    const next = this.#promptQueue.shift();
    if (next) next();
    else this.#prompting = false;
  }
}

/**
 * An error of the host's as the hook gets it: its message and name, never the host's stack; a
 * method the host lacks also carries its code, so a hook can tell the host's set-up from a failure.
 */
const hostError = (err: unknown): WireError => (err instanceof HostLacksMethod
  ? { ...toWireError(err, { stack: false }), code: HOST_LACKS_METHOD }
  : toWireError(err, { stack: false }));
