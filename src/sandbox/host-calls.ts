/**
 * What a worker asks of the host, as the channel receives it: bridge calls (their request's
 * deadline paused meanwhile), fire-and-forget posts (rate- and size-limited) and synchronous calls
 * (answered at once through the endpoint). The bridge validates each method's arguments.
 */
import { Errors, HookFailure } from "../errors.js";
import type { HostMessage, SyncReply, WireError } from "../protocol.js";
// @ts-ignore: plain JS shared with the worker, typed through JSDoc
import { estimateBytes } from "../../worker/size.mjs";
import type { BridgeHost, ChannelLimits } from "./channel.js";

/** The deadline of the request a call runs under. */
export interface Pausable { pause(): void; resume(): void }

export class HostCalls {
  bridge: BridgeHost;
  readonly #hookPath: string;
  readonly #limits: ChannelLimits;
  readonly #fault: (failure: HookFailure) => void;
  readonly #reply: (message: HostMessage) => void;
  readonly #answerSync: (reply: SyncReply) => void;
  #postWindowStart = 0;
  #postsInWindow = 0;
  #floodReported = false;

  constructor(hookPath: string, bridge: BridgeHost, limits: ChannelLimits, fault: (failure: HookFailure) => void,
    reply: (message: HostMessage) => void, answerSync: (reply: SyncReply) => void) {
    this.#hookPath = hookPath;
    this.bridge = bridge;
    this.#limits = limits;
    this.#fault = fault;
    this.#reply = reply;
    this.#answerSync = answerSync;
  }

  async call(id: number, method: string, args: unknown[], owner: Pausable | undefined): Promise<void> {
    owner?.pause();
    let reply: HostMessage;
    try {
      const v = await this.bridge.call(method, args);
      reply = { t: "ret", id, ok: true, v };
    } catch (err) {
      reply = { t: "ret", id, ok: false, e: hostError(err) };
      if (err instanceof HookFailure) this.#fault(err);
    } finally {
      owner?.resume();
    }
    try {
      this.#reply(reply);
    } catch (err) {
      this.#reply({ t: "ret", id, ok: false, e: { message: `the host's answer to ${method} could not be sent: ${(err as Error).message}` } });
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
        this.#fault(Errors.protocolViolation(this.#hookPath,
          `more than ${this.#limits.maxPostsPerSecond} messages in one second (${method}); the excess is dropped (the maxPostsPerSecond option). Reported once.`));
      }
      return;
    }
    const bytes = estimateBytes(args, this.#limits.maxMessageBytes);
    if (bytes > this.#limits.maxMessageBytes) {
      this.#fault(Errors.resultTooLarge(this.#hookPath, method, bytes, this.#limits.maxMessageBytes));
      return;
    }
    try {
      this.bridge.post(method, args);
    } catch (err) {
      if (err instanceof HookFailure) this.#fault(err);
      else this.#fault(Errors.handlerThrew(this.#hookPath, method, `the host's ${method} handler threw: ${(err as Error)?.message ?? String(err)}`));
    }
  }

  sync(id: number, method: string, args: unknown[]): void {
    const fail = (err: unknown) => {
      this.#answerSync({ id, ok: false, e: hostError(err) });
      if (err instanceof HookFailure) this.#fault(err);
    };
    try {
      const v = this.bridge.sync(method, args);
      // A host-side job (`transform`) answers when done; the worker stays blocked meanwhile.
      if (v instanceof Promise) v.then((value) => this.#answerSync({ id, ok: true, v: value }), fail);
      else this.#answerSync({ id, ok: true, v });
    } catch (err) {
      fail(err);
    }
  }
}

function hostError(err: unknown): WireError {
  if (err instanceof Error) return { message: err.message, name: err.name };
  return { message: String(err) };
}
