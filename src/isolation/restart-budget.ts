/**
 * The restart budget: at most `max` restarts within any `windowMs` (VS Code's 3 in 5 minutes),
 * and at most `longMax` within any `longWindowMs` (default 5 in an hour). Why two windows: with
 * one sliding window a hook that crashes just slower than the window allows (one crash every
 * 101 s against 3 in 5 minutes; one every 1.6 s against 3 in 4 s) restarts forever.
 */
export class RestartBudget {
  readonly #windows: Array<{ max: number; ms: number; at: number[] }>;
  /** Which bound the last refused restart broke, e.g. "4 times within 20 s". */
  exceeded = "";

  constructor(max: number, windowMs: number, longMax = Infinity, longWindowMs = 0) {
    this.#windows = [{ max, ms: windowMs, at: [] }, { max: longMax, ms: longWindowMs, at: [] }];
  }

  /** Record a death at `now`; true if a restart is still within budget. */
  allow(now: number): boolean {
    for (const w of this.#windows) {
      while (w.at.length > 0 && now - w.at[0]! >= w.ms) w.at.shift();
      if (w.at.length >= w.max) {
        this.exceeded = `${w.max + 1} times within ${Math.round(w.ms / 1000)} s`;
        return false;
      }
    }
    for (const w of this.#windows) w.at.push(now);
    return true;
  }
}
