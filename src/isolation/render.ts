/**
 * Synchronous rendering into a worker. A TUI calls `render(width)` synchronously, so the host
 * blocks here (never longer than `timeoutMs`) on a shared buffer until the worker answers on the
 * render port. Sync calls the renderer makes back into the host (its theme) arrive on the same
 * port while the host waits, and are answered in place.
 *
 * The components live in the worker; the host hands out stand-ins (`Components`) and releases a
 * component when the TUI drops its stand-in, or when more than `LIMITS.maxComponents` are held
 * (least recently used first). A stand-in whose component is gone (released, or its worker
 * restarted) creates it again from its message: the hook is never blamed for the host's eviction.
 */
import { receiveMessageOnPort, type MessagePort } from "node:worker_threads";
import { Errors, type HookFailure } from "../contract/errors.js";
import { renderReplySchema, renderValueSchemas, type RenderRequest } from "../contract/protocol.js";
import { describeIssues } from "../contract/schemas.js";
import type { HookMessageRenderer } from "../contract/types.js";
import { LIMITS } from "../../worker/wire.mjs";
import type { RenderGuard } from "./render-guard.js";

/** Answers a synchronous host call the renderer made (the channel's own sync path). */
export type AnswerSync = (id: number, method: string, args: unknown[]) => void;

export type RenderBody = RenderRequest extends infer R ? (R extends RenderRequest ? Omit<R, "id"> : never) : never;

/** What `RenderClient.call` answers when the worker does not hold the component. */
export const RELEASED: unique symbol = Symbol("released");

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

  /**
   * One synchronous round trip; throws a `HookFailure` (`timeout`, `handler_threw`). A `release`
   * is only posted (no answer); a component the worker does not hold answers `RELEASED`.
   */
  call(body: RenderBody, answerSync: AnswerSync): unknown {
    const id = this.#nextId++;
    if (body.op === "release") {
      this.#port.postMessage({ ...body, id });
      return null;
    }
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
        if (msg.released) return RELEASED;
        if (!msg.ok) throw Errors.handlerThrew(this.#hookPath, "render", msg.e?.message ?? "the renderer failed", msg.e?.stack);
        // Why checked here too: the worker checks what a renderer returns, but a hook can fool that check.
        const value = renderValueSchemas[body.op].safeParse(msg.v ?? null);
        if (!value.success) throw Errors.invalidResult(this.#hookPath, "render", describeIssues(value.error));
        return value.data;
      }
    }
  }
}

/** A rendered component as the host's UI holds it: its methods run in the worker. */
export interface StandIn { render(width: number): string[]; handleInput(data: string): void; invalidate(): void }

/** A tool renderer on the host: the stand-in for what it made of `value`, or undefined (default rendering, or a failure already reported). */
export type ToolRendererStandIn = (value: unknown, options: { expanded: boolean; isPartial: boolean }, context: Record<string, unknown>, last?: unknown) => StandIn | undefined;

/** One render operation through the hook's current worker; not ok when it failed (already reported). */
export type RenderCall = (body: RenderBody) => RenderOutcome;
/** A render operation's answer, or not ok: `failure` (already reported) when it failed, none when it did not run (the hook is not ready, or was demoted). */
export type RenderOutcome = { ok: true; v: unknown } | { ok: false; failure?: HookFailure };

/** The host's stand-ins for one hook's rendered components, across its workers. */
export class Components {
  readonly #call: RenderCall;
  readonly #guard: RenderGuard;
  /** Ids the worker holds for a live stand-in, least recently used first. */
  readonly #held = new Set<number>();
  /** Why: a stand-in the TUI no longer references releases its component in the worker. */
  readonly #dropped = new FinalizationRegistry<{ cid: number | undefined }>((slot) => this.#release(slot));
  /** Each live stand-in's slot (a tool renderer's `lastComponent` names the worker's component by it). */
  readonly #slots = new WeakMap<object, { cid: number | undefined }>();
  #nextCid = 1;

  constructor(call: RenderCall, guard: RenderGuard) {
    this.#guard = guard;
    // Every operation's host time is charged to the hook (a release is only posted).
    this.#call = (body) => {
      if (body.op === "release") return call(body);
      if (!guard.allowed) return { ok: false };
      const started = performance.now();
      try {
        return call(body);
      } finally {
        guard.charge(performance.now() - started);
      }
    };
  }

  /** A message renderer for `customType`: stand-ins whose methods run in the worker. */
  renderer(customType: string): HookMessageRenderer {
    return (message, options) => this.#standIn((cid) => ({ op: "create", cid, customType, message, options: { expanded: Boolean(options?.expanded) } }));
  }

  /**
   * A tool's `renderCall` or `renderResult` (`slot`): stand-ins as a message renderer's, made from
   * the call's arguments or result and pi's render context as data. `last`: the stand-in pi gives
   * back as `context.lastComponent` (the worker's component for it, when it still holds it).
   */
  toolRenderer(name: string, slot: "call" | "result"): ToolRendererStandIn {
    return (value, options, context, last) => {
      const previous = last === undefined ? undefined : this.#slots.get(last as object)?.cid;
      return this.#standIn((cid) => ({ op: "tool", cid, name, slot, value, options, context, ...(previous === undefined ? {} : { last: previous }) }));
    };
  }

  /** A tool's `prepareArguments` in the worker, within the render deadline and budget: the prepared arguments, or not ok (reported). */
  prepare(name: string, args: unknown): RenderOutcome {
    return this.#call({ op: "prepare", name, args });
  }

  /**
   * In the worker, within the render deadline and budget (worker/custom.mjs): `make` runs the factory
   * of the `ctx.ui.custom()` call `key`, `branch` the branch-change listeners of the footer `key`.
   */
  custom(op: "make" | "branch", key: string): RenderOutcome {
    return this.#call({ op, key });
  }

  /** A stand-in for the component `create` makes in the worker; undefined when it made none (default rendering) or failed (reported). */
  #standIn(make: (cid: number) => RenderBody): StandIn | undefined {
    // A hook demoted for its render time renders by default (src/isolation/render-guard.ts).
    if (!this.#guard.allowed) return undefined;
    const create = (): boolean => {
      if (this.#held.size >= LIMITS.maxComponents) this.#release({ cid: this.#held.values().next().value });
      const cid = this.#nextCid++;
      const created = this.#call(make(cid));
      if (!created.ok || created.v !== true) return false;
      this.#held.add(cid);
      slot.cid = cid;
      return true;
    };
    /** Run `op` on the component, creating it again (once) when the worker no longer holds it. */
    const use = (op: (cid: number) => RenderBody): { ok: true; v: unknown } | { ok: false } => {
      for (let attempt = 0; attempt < 2; attempt++) {
        if (slot.cid === undefined && !create()) return { ok: false };
        const cid = slot.cid!;
        if (this.#held.delete(cid)) this.#held.add(cid);
        const r = this.#call(op(cid));
        if (!r.ok || r.v !== RELEASED) return r;
        this.#held.delete(cid);
        slot.cid = undefined;
      }
      return { ok: false };
    };
    const slot: { cid: number | undefined } = { cid: undefined };
    if (!create()) return undefined;
    const standIn = {
      render: (width: number) => {
        const r = use((cid) => ({ op: "render", cid, width }));
        return r.ok && Array.isArray(r.v) ? this.#guard.lines(r.v as string[], width) : [];
      },
      handleInput: (data: string) => { use((cid) => ({ op: "input", cid, data })); },
      invalidate: () => { use((cid) => ({ op: "invalidate", cid })); },
    };
    this.#dropped.register(standIn, slot);
    this.#slots.set(standIn, slot);
    return standIn;
  }

  #release(slot: { cid: number | undefined }): void {
    if (slot.cid === undefined || !this.#held.delete(slot.cid)) return;
    this.#call({ op: "release", cid: slot.cid });
    slot.cid = undefined;
  }
}
