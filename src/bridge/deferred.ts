/**
 * Host methods the worker calls synchronously (`ctx.modelRegistry.*`, `ctx.sessionManager.*`) may
 * be async on the host (`getApiKey` is). A promise cannot cross, and the worker cannot wait for
 * one while the host waits for it: the sync answer is `{ p: id }`, and the worker then asks for
 * the value with an ordinary async call (`await`), which is answered when the promise settles.
 * A plain value comes back as `{ v }` at once, so sync methods stay sync.
 */

/** The answer to a sync call of a host object's method. */
export type MaybeLater = { v: unknown } | { p: number };

/** At most this many unclaimed promises per hook (a hook that never awaits cannot grow the host). */
const MAX_HELD = 256;

export class Deferred {
  #next = 1;
  readonly #held = new Map<number, { promise: Promise<unknown>; method: string }>();

  /** `{ v }` for a value, `{ p }` for a thenable (kept until the worker claims it). */
  wrap(method: string, value: unknown): MaybeLater {
    if (!isThenable(value)) return { v: value };
    const id = this.#next++;
    const promise = Promise.resolve(value);
    // Why: a rejection the worker has not claimed yet must not be an unhandled rejection on the host.
    promise.catch(() => {});
    this.#held.set(id, { promise, method });
    if (this.#held.size > MAX_HELD) this.#held.delete(this.#held.keys().next().value!);
    return { p: id };
  }

  /** The settled value of `id`; a rejection names the method. */
  async take(id: number): Promise<unknown> {
    const held = this.#held.get(id);
    if (!held) throw new Error(`no pending host answer ${id} (it was claimed already or dropped)`);
    this.#held.delete(id);
    try {
      return await held.promise;
    } catch (err) {
      throw new Error(`${held.method} rejected: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as { then?: unknown }).then === "function";
}
