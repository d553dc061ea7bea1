/** The restart budget: at most `max` restarts within any `windowMs` (VS Code's 3 in 5 minutes). */
export class RestartBudget {
  readonly #max: number;
  readonly #windowMs: number;
  readonly #restarts: number[] = [];

  constructor(max: number, windowMs: number) {
    this.#max = max;
    this.#windowMs = windowMs;
  }

  /** Record a death at `now`; true if a restart is still within budget. */
  allow(now: number): boolean {
    while (this.#restarts.length > 0 && now - this.#restarts[0]! >= this.#windowMs) this.#restarts.shift();
    if (this.#restarts.length >= this.#max) return false;
    this.#restarts.push(now);
    return true;
  }
}
