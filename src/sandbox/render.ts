/**
 * Synchronous rendering into a worker. A TUI calls `render(width)` synchronously, so the host
 * blocks here (never longer than `timeoutMs`) on a shared buffer until the worker answers on the
 * render port. Sync calls the renderer makes back into the host (its theme) arrive on the same
 * port while the host waits, and are answered in place.
 */
import { receiveMessageOnPort, type MessagePort } from "node:worker_threads";
import { Errors } from "../errors.js";
import { renderReplySchema, renderValueSchemas, type RenderRequest } from "../protocol.js";
import { describeIssues } from "../schemas.js";

/** Answers a synchronous host call the renderer made (the channel's own sync path). */
export type AnswerSync = (id: number, method: string, args: unknown[]) => void;

type Body = RenderRequest extends infer R ? (R extends RenderRequest ? Omit<R, "id"> : never) : never;

export class RenderClient {
  readonly #port: MessagePort;
  readonly #state: Int32Array;
  readonly #hookPath: string;
  readonly #timeoutMs: number;
  #nextId = 1;

  constructor(port: MessagePort, state: SharedArrayBuffer, hookPath: string, timeoutMs: number) {
    this.#port = port;
    this.#state = new Int32Array(state);
    this.#hookPath = hookPath;
    this.#timeoutMs = timeoutMs;
  }

  /** One synchronous round trip; throws a `HookFailure` (`timeout`, `handler_threw`). */
  call(body: Body, answerSync: AnswerSync): unknown {
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
        const parsed = renderReplySchema.safeParse(got.message);
        if (!parsed.success) throw Errors.protocolViolation(this.#hookPath, `bad render reply: ${describeIssues(parsed.error)}`, "render");
        const msg = parsed.data;
        if (msg.kind === "sync") { answerSync(msg.id, msg.m, msg.a); continue; }
        if (msg.id !== id) continue; // a late answer to a render that timed out
        if (!msg.ok) throw Errors.handlerThrew(this.#hookPath, "render", msg.e?.message ?? "the renderer failed", msg.e?.stack);
        // Why checked here too: the worker checks what a renderer returns, but a hook can fool that check.
        const value = renderValueSchemas[body.op].safeParse(msg.v ?? null);
        if (!value.success) throw Errors.invalidResult(this.#hookPath, "render", describeIssues(value.error));
        return value.data;
      }
    }
  }

}
