/**
 * What one hook may cost the host's transform thread (src/transform/transformer.ts), a resource every hook
 * shares: the size of one file sent to be transformed, characters of source sent, and the thread
 * time its transforms took, the last two summed over a 60-second window. Why: without a bound a
 * hook (even one capped at 64 MB itself) can keep the host's thread busy with sources of millions
 * of characters from a timer, and the host's memory and CPU pay for it; a budget per window alone
 * still lets one request of millions of characters make Babel take hundreds of MB. A request over
 * any bound is refused before any work is done, as a `protocol_violation` naming the
 * `transformBudget` option: the asking hook fails (its import throws; past 100 violations its
 * worker is ended), never the host or other hooks.
 */
import { Errors, type HookFailure } from "../contract/errors.js";
import { DEFAULTS } from "../../worker/wire.mjs";

/** The `transformBudget` option: per hook, per 60 s. */
export interface TransformBudgetOptions {
  /** Characters of one file (one request). Default 1 Mi: twice the largest module in pi, oh-my-pi and their dependencies. */
  fileCharacters?: number;
  /** Characters of source the hook may send to be transformed (cache hits count too: they are hashed and read). Default 64 Mi. */
  characters?: number;
  /** Time of the host's transform thread the hook's transforms may take, in ms. Default 20 000. */
  ms?: number;
}

export const TRANSFORM_WINDOW_MS = 60_000;
/**
 * Why 1 Mi: the largest TypeScript module of pi, oh-my-pi and everything they install is 468 K
 * characters (oh-my-pi's agent-session.ts), the largest ES module jiti would transform 856 K
 * (@google/genai's bundle); both transform within the thread's heap bound. A hook's own files are
 * far smaller.
 */
export const TRANSFORM_FILE_CHARACTERS = 1024 * 1024;

export class TransformBudget {
  readonly #hookPath: string;
  readonly #fileCharacters: number;
  readonly #characters: number;
  readonly #ms: number;
  #windowStart = -Infinity;
  #chars = 0;
  #busy = 0;

  constructor(hookPath: string, options: TransformBudgetOptions = {}) {
    this.#hookPath = hookPath;
    this.#fileCharacters = options.fileCharacters ?? TRANSFORM_FILE_CHARACTERS;
    this.#characters = options.characters ?? DEFAULTS.transformBytes;
    this.#ms = options.ms ?? DEFAULTS.transformMs;
  }

  /** Admit a request for `filename`'s `source`, charging it; throws the refusal when over a bound. */
  admit({ source, filename }: { source: string; filename: string }, now = performance.now()): void {
    this.#roll(now);
    const over = this.#refusal(source.length, filename);
    if (over) throw over;
    this.#chars += source.length;
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

  #refusal(characters: number, filename: string): HookFailure | undefined {
    const window = `within ${TRANSFORM_WINDOW_MS / 1000} s`;
    if (characters > this.#fileCharacters) {
      return Errors.protocolViolation(this.#hookPath, `${JSON.stringify(filename.slice(0, 200))} is ${characters} characters, over the ${this.#fileCharacters} one file may have ` +
        `to be transformed by the host (the transformBudget.fileCharacters option); refused. Split the file, or raise the option if a module really is that large`, "transform");
    }
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
