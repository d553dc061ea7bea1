/**
 * What one hook may cost the host's transform thread (src/transform/transformer.ts), a resource every hook
 * shares: characters of source sent to be transformed, and the thread time its transforms took,
 * each summed over a 60-second window. Why: without a bound a hook (even one capped at 64 MB
 * itself) can keep the host's thread busy with sources of millions of characters from a timer,
 * and the host's memory and CPU pay for it. A request over either bound is refused before any
 * work is done, as a `protocol_violation` naming the `transformBudget` option: the asking hook
 * fails (its import throws; past 100 violations its worker is ended), never the host or other hooks.
 */
import { Errors, type HookFailure } from "../contract/errors.js";
import { DEFAULTS } from "../../worker/wire.mjs";

/** The `transformBudget` option: per hook, per 60 s. */
export interface TransformBudgetOptions {
  /** Characters of source the hook may send to be transformed (cache hits count too: they are hashed and read). Default 64 Mi. */
  characters?: number;
  /** Time of the host's transform thread the hook's transforms may take, in ms. Default 20 000. */
  ms?: number;
}

export const TRANSFORM_WINDOW_MS = 60_000;

export class TransformBudget {
  readonly #hookPath: string;
  readonly #characters: number;
  readonly #ms: number;
  #windowStart = -Infinity;
  #chars = 0;
  #busy = 0;

  constructor(hookPath: string, options: TransformBudgetOptions = {}) {
    this.#hookPath = hookPath;
    this.#characters = options.characters ?? DEFAULTS.transformBytes;
    this.#ms = options.ms ?? DEFAULTS.transformMs;
  }

  /** Admit a request of `characters` of source, charging it; throws the refusal when over either bound. */
  admit(characters: number, now = performance.now()): void {
    this.#roll(now);
    const over = this.#refusal(characters);
    if (over) throw over;
    this.#chars += characters;
  }

  /** Charge the thread time a transform of this hook took. */
  charge(ms: number, now = performance.now()): void {
    this.#roll(now);
    this.#busy += ms;
  }

  #roll(now: number): void {
    if (now - this.#windowStart < TRANSFORM_WINDOW_MS) return;
    this.#windowStart = now;
    this.#chars = 0;
    this.#busy = 0;
  }

  #refusal(characters: number): HookFailure | undefined {
    const window = `within ${TRANSFORM_WINDOW_MS / 1000} s`;
    if (this.#chars + characters > this.#characters) {
      return Errors.protocolViolation(this.#hookPath, `a transform of ${characters} characters of source would take the hook over its transform budget ` +
        `(${this.#chars} characters already ${window}, at most ${this.#characters}: the transformBudget.characters option); refused`, "transform");
    }
    if (this.#busy >= this.#ms) {
      return Errors.protocolViolation(this.#hookPath, `the hook's transforms took ${Math.round(this.#busy)} ms of the host's transform thread ${window}, ` +
        `over its budget of ${this.#ms} ms (the transformBudget.ms option); refused`, "transform");
    }
    return undefined;
  }
}
