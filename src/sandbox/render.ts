/**
 * Synchronous rendering into a worker. A TUI calls `render(width)` synchronously, so the host
 * blocks here (never longer than `timeoutMs`) on a shared buffer until the worker answers on the
 * render port. Sync calls the renderer makes back into the host (its theme) arrive on the same
 * port while the host waits, and are answered in place.
 */
import { receiveMessageOnPort, type MessagePort } from "node:worker_threads";
import { Errors, type HookFailure } from "../errors.js";
import type { RenderReply, RenderRequest, SyncReply, WireError } from "../protocol.js";
import type { BridgeHost } from "./channel.js";

type Body = RenderRequest extends infer R ? (R extends RenderRequest ? Omit<R, "id"> : never) : never;

export class RenderClient {
  readonly #port: MessagePort;
  readonly #state: Int32Array;
  readonly #syncPort: MessagePort;
  readonly #syncState: Int32Array;
  readonly #hookPath: string;
  readonly #timeoutMs: number;
  #nextId = 1;

  constructor(port: MessagePort, state: SharedArrayBuffer, syncPort: MessagePort, syncState: SharedArrayBuffer, hookPath: string, timeoutMs: number) {
    this.#port = port;
    this.#state = new Int32Array(state);
    this.#syncPort = syncPort;
    this.#syncState = new Int32Array(syncState);
    this.#hookPath = hookPath;
    this.#timeoutMs = timeoutMs;
  }

  /** One synchronous round trip; throws a `HookFailure` (`timeout`, `handler_threw`). */
  call(body: Body, bridge: BridgeHost): unknown {
    const id = this.#nextId++;
    Atomics.store(this.#state, 0, 0);
    this.#port.postMessage({ ...body, id });
    const end = performance.now() + this.#timeoutMs;
    for (;;) {
      const left = end - performance.now();
      if (left <= 0 || Atomics.wait(this.#state, 0, 0, left) === "timed-out") {
        throw Errors.timeout(this.#hookPath, "render", this.#timeoutMs);
      }
      // Why reset first: the worker may finish right after it gets the sync answer below.
      Atomics.store(this.#state, 0, 0);
      for (let got = receiveMessageOnPort(this.#port); got; got = receiveMessageOnPort(this.#port)) {
        const msg = got.message as RenderReply;
        if (msg.kind === "sync") { this.#answerSync(msg.id, msg.m, msg.a, bridge); continue; }
        if (msg.id !== id) continue; // a late answer to a render that timed out
        if (msg.ok) return msg.v;
        throw Errors.handlerThrew(this.#hookPath, "render", (msg.e as WireError).message, (msg.e as WireError).stack);
      }
    }
  }

  #answerSync(id: number, method: string, args: unknown[], bridge: BridgeHost): void {
    let reply: SyncReply;
    try {
      reply = { id, ok: true, v: bridge.sync(method, args) };
    } catch (err) {
      reply = { id, ok: false, e: { message: (err as HookFailure).message ?? String(err) } };
    }
    this.#syncPort.postMessage(reply);
    Atomics.store(this.#syncState, 0, 1);
    Atomics.notify(this.#syncState, 0);
  }
}
