/**
 * A deadline that measures only the hook's own time: it is paused while the hook waits on a UI
 * prompt and resumed when the answer goes back. The paused time itself is bounded
 * (`maxPausedMs`), so waiting on the host cannot keep a request pending forever.
 */
export class PausableDeadline {
  #remaining: number;
  #pauseLeft: number;
  #startedAt = 0;
  #pausedAt = 0;
  #timer: NodeJS.Timeout | undefined;
  #paused = 0;
  readonly #onExpire: (paused: boolean) => void;

  /** `onExpire(true)`: the request waited on the host for more than `maxPausedMs` in all. */
  constructor(ms: number, onExpire: (paused: boolean) => void, maxPausedMs = Infinity) {
    this.#remaining = ms;
    this.#pauseLeft = maxPausedMs;
    this.#onExpire = onExpire;
    // A request without a deadline has nothing to pause.
    this.#armed = Number.isFinite(ms);
    this.#arm();
  }

  pause(): void {
    if (this.#paused++ > 0 || !this.#armed) return;
    this.#stop();
    const now = performance.now();
    this.#remaining -= now - this.#startedAt;
    this.#pausedAt = now;
    if (Number.isFinite(this.#pauseLeft)) this.#start(this.#pauseLeft, true);
  }

  resume(): void {
    if (this.#paused === 0 || --this.#paused > 0 || !this.#armed) return;
    this.#stop();
    this.#pauseLeft -= performance.now() - this.#pausedAt;
    this.#arm();
  }

  clear(): void {
    this.#stop();
    this.#remaining = Infinity;
    this.#armed = false;
  }

  #armed = true;

  #arm(): void {
    if (!Number.isFinite(this.#remaining)) return;
    this.#startedAt = performance.now();
    this.#start(this.#remaining, false);
  }

  #start(ms: number, paused: boolean): void {
    this.#timer = setTimeout(() => this.#onExpire(paused), Math.max(0, ms));
    this.#timer.unref?.();
  }

  #stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
