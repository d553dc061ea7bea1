/**
 * A hook's TypeScript transforms, asked of the host's transform thread (src/transform/): served
 * from the host's cache, charged to this hook's budget, and answered only to the worker that asked.
 */
import { Errors } from "../contract/errors.js";
import type { ResolvedSandboxOptions } from "../options/options.js";
import { transformCacheFor, transformCall, type TransformCache, type TransformRequest } from "../transform/cache.js";
import { TransformBudget } from "../transform/budget.js";
import { TransformOutOfMemory } from "../transform/transformer.js";

export class HookTransforms {
  readonly #hookPath: string;
  /** The host's transform cache; its folder is one no hook may reach (./launch.ts refuses a grant to it). */
  readonly cache: TransformCache;
  /** Kept across restarts: a hook cannot reset its budget by crashing. */
  readonly #budget: TransformBudget;

  constructor(hookPath: string, options: ResolvedSandboxOptions) {
    this.#hookPath = hookPath;
    this.cache = transformCacheFor(options.transformCacheDir, options.transformCacheMaxBytes);
    this.#budget = new TransformBudget(hookPath, options.transformBudget);
  }

  /**
   * `worker`: the hook's current worker, read when asked and when answered.
   * Why the endpoint check: an answer that comes after its worker died is never written to a closed pipe.
   */
  call(args: unknown[], worker: () => unknown): Promise<unknown> {
    const asker = worker();
    // Charged to this hook (src/transform/budget.ts): over budget, refused before any work.
    this.#budget.admit((args as [TransformRequest])[0]);
    return transformCall(this.cache, args as [TransformRequest], (ms) => this.#budget.charge(ms)).then(
      (v) => (asker === worker() ? v : new Promise(() => {})),
      (err) => (asker !== worker() ? new Promise(() => {})
        // Out of the thread's heap: this hook's source did it (the thread runs one request at a time).
        : Promise.reject(err instanceof TransformOutOfMemory ? Errors.protocolViolation(this.#hookPath, err.message, "transform") : err)),
    );
  }
}
