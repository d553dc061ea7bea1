/**
 * Bounds on the embedder's callbacks a hook can make fire, so a hook cannot flood them: `onNet`
 * records, `onExec` records and `onLog` lines, counted per hook per window. Past the bound a call is dropped and counted;
 * when the window ends one summary says how many were dropped (a hook once produced 24,373
 * `onNet` records in 8 s). Why a timer for the summary: the flood may stop inside the window, and
 * the count must still be said; it is unref'd, so it never keeps the host alive.
 */

/** `onNet` records a hook may cause per window. */
export const NET_RECORDS_PER_WINDOW = 100;
/** `onExec` records (runs and refusals of `pi.exec`) a hook may cause per window. */
export const EXEC_RECORDS_PER_WINDOW = 100;
/** `onLog` lines (stdout, stderr and `pi.logger` together) a hook may cause per window. */
export const LOG_LINES_PER_WINDOW = 2_000;
/** The window of both bounds, in ms. */
export const CALLBACK_WINDOW_MS = 10_000;

export class CallbackBudget {
  readonly #max: number;
  readonly #windowMs: number;
  readonly #summary: (dropped: number) => void;
  #windowStart = -Infinity;
  #count = 0;
  #dropped = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** `summary(dropped)` is called once per window that dropped anything, at its end. */
  constructor(max: number, windowMs: number, summary: (dropped: number) => void) {
    this.#max = max;
    this.#windowMs = windowMs;
    this.#summary = summary;
  }

  /** Whether one more call may go through now; false counts it as dropped. */
  take(now = Date.now()): boolean {
    if (now - this.#windowStart >= this.#windowMs) {
      this.#flush();
      this.#windowStart = now;
      this.#count = 0;
    }
    if (this.#count < this.#max) {
      this.#count++;
      return true;
    }
    if (this.#dropped++ === 0) {
      this.#timer = setTimeout(() => this.#flush(), this.#windowStart + this.#windowMs - now);
      this.#timer.unref?.();
    }
    return false;
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const dropped = this.#dropped;
    this.#dropped = 0;
    if (dropped > 0) {
      try { this.#summary(dropped); } catch { /* the embedder's callback must not break the hook's */ }
    }
  }
}
