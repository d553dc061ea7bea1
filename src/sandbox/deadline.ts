/**
 * A deadline that measures only the hook's own time: it can be paused while the hook waits on the
 * host (a UI prompt, a session call) and resumed when the answer goes back.
 */
export class PausableDeadline {
  #remaining: number;
  #startedAt = 0;
  #timer: NodeJS.Timeout | undefined;
  #paused = 0;
  #onExpire: () => void;

  constructor(ms: number, onExpire: () => void) {
    this.#remaining = ms;
    this.#onExpire = onExpire;
    this.#arm();
  }

  pause(): void {
    if (this.#paused++ > 0 || this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#remaining -= performance.now() - this.#startedAt;
  }

  resume(): void {
    if (this.#paused === 0 || --this.#paused > 0) return;
    this.#arm();
  }

  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#remaining = Infinity;
  }

  #arm(): void {
    if (!Number.isFinite(this.#remaining)) return;
    this.#startedAt = performance.now();
    this.#timer = setTimeout(this.#onExpire, Math.max(0, this.#remaining));
    this.#timer.unref?.();
  }
}
