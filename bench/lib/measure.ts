/**
 * Timing helpers: plain `performance.now()` loops with a warm-up, medians and p99. Every figure the
 * benchmarks report is a ratio against a floor measured in the same run, so a noisy shared machine
 * moves both sides together.
 */

export interface Summary {
  /** Samples kept (after warm-up). */
  n: number;
  median: number;
  p99: number;
  min: number;
}

/** Nearest-rank percentile of sorted `values`. */
function rank(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) return { n: 0, median: NaN, p99: NaN, min: NaN };
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, median: rank(sorted, 0.5), p99: rank(sorted, 0.99), min: sorted[0]! };
}

export interface Plan {
  /** Calls run and thrown away before sampling (JIT, caches, worker warm-up). */
  warmup: number;
  /** Samples kept. */
  iterations: number;
}

/** Time each call of `fn` (ms). */
export async function sample(fn: () => Promise<unknown>, plan: Plan): Promise<number[]> {
  for (let i = 0; i < plan.warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < plan.iterations; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

/**
 * Sample two subjects in alternating rounds so that a burst of load on the shared machine lands
 * on both, not on one. Returns the samples of each (ms per call).
 */
export async function interleave(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  plan: Plan,
  rounds = 5,
): Promise<[number[], number[]]> {
  const per = { warmup: plan.warmup, iterations: Math.max(1, Math.ceil(plan.iterations / rounds)) };
  const outA: number[] = [];
  const outB: number[] = [];
  for (let r = 0; r < Math.min(rounds, plan.iterations); r++) {
    outA.push(...(await sample(a, per)));
    outB.push(...(await sample(b, per)));
    per.warmup = Math.min(per.warmup, 10);
  }
  return [outA, outB];
}

/** Time batches of `batch` calls and return ms per call, one value per batch (for sub-µs work). */
export async function sampleBatched(fn: () => Promise<unknown> | unknown, batch: number, plan: Plan): Promise<number[]> {
  for (let i = 0; i < plan.warmup * batch; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < plan.iterations; i++) {
    const t0 = performance.now();
    for (let j = 0; j < batch; j++) await fn();
    out.push((performance.now() - t0) / batch);
  }
  return out;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
