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

/** Samples of two subjects taken in alternating rounds, and the ratio a/b of each round's medians. */
export interface Paired {
  a: number[];
  b: number[];
  /** Per round: median(a) / median(b). Its median is the figure: robust when load shifts between rounds. */
  ratios: number[];
}

/**
 * Sample two subjects in alternating rounds so that a burst of load on the shared machine lands
 * on both, not on one.
 */
export async function interleave(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  plan: Plan,
  rounds = 30,
): Promise<Paired> {
  const n = Math.min(rounds, plan.iterations);
  const per = { warmup: plan.warmup, iterations: Math.max(1, Math.ceil(plan.iterations / n)) };
  const out: Paired = { a: [], b: [], ratios: [] };
  for (let r = 0; r < n; r++) {
    const sa = await sample(a, per);
    const sb = await sample(b, per);
    out.a.push(...sa);
    out.b.push(...sb);
    out.ratios.push(summarize(sa).median / summarize(sb).median);
    per.warmup = Math.min(per.warmup, 10);
  }
  return out;
}

/** The median of the per-round ratios. */
export const medianRatio = (p: Paired) => summarize(p.ratios).median;

/** How far a figure's rounds spread: quartiles (nearest rank) and extremes. */
export interface Spread { n: number; median: number; q1: number; q3: number; min: number; max: number }

export function spreadOf(values: readonly number[]): Spread {
  const sorted = [...values].filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return { n: 0, median: NaN, q1: NaN, q3: NaN, min: NaN, max: NaN };
  return { n: sorted.length, median: rank(sorted, 0.5), q1: rank(sorted, 0.25), q3: rank(sorted, 0.75), min: sorted[0]!, max: sorted.at(-1)! };
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
