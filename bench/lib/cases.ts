/**
 * One function per figure of docs/performance.md. Each measures hookbox and its floor in the same
 * run, in alternating rounds where it can, and returns the raw summaries; `run.ts` turns them into ratios.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { builtHookbox } from "../../test/support/pi-run.js";
import { loadHooks, type HookRunner } from "../../src/index.js";
import { EchoWorker, bareWorkersAnswering } from "./floor.js";
import { CWD, TOOL_CALL, TURN_START, benchFixture, countPosts, history, inProcessHook, loadRunner, newRunner } from "./host.js";
import { interleave, medianRatio, sampleBatched, summarize, type Plan, type Summary } from "./measure.js";

export interface Plans {
  rtt: Plan;
  batch: Plan & { size: number };
  pipelined: Plan & { concurrent: number };
  context: Plan;
  startup: Plan & { hooks: number };
  /** Idle hooks (and bare workers) the RSS figure is measured over. */
  rssHooks: number;
}

export const FULL: Plans = {
  rtt: { warmup: 2000, iterations: 3000 },
  batch: { warmup: 5, iterations: 50, size: 2000 },
  pipelined: { warmup: 3, iterations: 30, concurrent: 1000 },
  context: { warmup: 5, iterations: 40 },
  startup: { warmup: 1, iterations: 5, hooks: 8 },
  rssHooks: 16,
};

/** `--quick`: one iteration of each, for a CI smoke run (numbers meaningless, shape checked). */
export const QUICK: Plans = {
  rtt: { warmup: 0, iterations: 1 },
  batch: { warmup: 0, iterations: 1, size: 1 },
  pipelined: { warmup: 0, iterations: 1, concurrent: 1000 },
  context: { warmup: 0, iterations: 1 },
  startup: { warmup: 0, iterations: 1, hooks: 2 },
  rssHooks: 4,
};

const HOOK = "allows-every-tool-call.ts";

export interface ToolCallFigures { ratio: number; rounds: number[]; inProcessRatio: number; inProcessRounds: number[]; hook: Summary; floor: Summary; inProcess: Summary; unsubscribedMs: Summary; unsubscribedPosts: number }

/** tool_call round trip vs raw echo; the same call in-process; an event nobody subscribed to. */
export async function toolCall(plans: Plans): Promise<ToolCallFigures> {
  const echo = await EchoWorker.start();
  const runner = await loadRunner([benchFixture(HOOK)]);
  const inline = newRunner([await inProcessHook(HOOK)]);
  try {
    const paired = await interleave(() => runner.emitToolCall(TOOL_CALL), () => echo.roundTrip(TOOL_CALL), plans.rtt);
    const inProcess = await interleave(() => runner.emitToolCall(TOOL_CALL), () => inline.emitToolCall(TOOL_CALL), plans.rtt);
    const b = plans.batch;
    const [unsubscribed, posts] = await countPosts(() => sampleBatched(() => runner.emit(TURN_START), b.size, b));
    return { ratio: medianRatio(paired), rounds: paired.ratios, hook: summarize(paired.a), floor: summarize(paired.b), inProcessRatio: medianRatio(inProcess), inProcessRounds: inProcess.ratios, inProcess: summarize(inProcess.b), unsubscribedMs: summarize(unsubscribed), unsubscribedPosts: posts };
  } finally {
    await Promise.all([runner.dispose(), echo.terminate()]);
  }
}

export interface ThroughputFigures { ratio: number; rounds: number[]; hookPerSec: number; floorPerSec: number; hook: Summary; floor: Summary }

/** `concurrent` tool_calls at once to one hook vs the same count of raw echoes in flight. */
export async function pipelined(plans: Plans): Promise<ThroughputFigures> {
  const n = plans.pipelined.concurrent;
  const echo = await EchoWorker.start();
  const runner = await loadRunner([benchFixture(HOOK)]);
  try {
    const burst = () => Promise.all(Array.from({ length: n }, () => runner.emitToolCall(TOOL_CALL)));
    const paired = await interleave(burst, () => echo.pipelined(TOOL_CALL, n), plans.pipelined);
    const h = summarize(paired.a);
    const f = summarize(paired.b);
    // Throughput ratio = floor time / hook time, per round.
    const rounds = paired.ratios.map((r) => 1 / r);
    return { ratio: summarize(rounds).median, rounds, hookPerSec: (n / h.median) * 1000, floorPerSec: (n / f.median) * 1000, hook: h, floor: f };
  } finally {
    await Promise.all([runner.dispose(), echo.terminate()]);
  }
}

export interface ContextFigures { ratio: number; rounds: number[]; passthroughRatio: number; passthroughRounds: number[]; filtered: Summary; passthrough: Summary; floor: Summary; bytes: number; messages: number }

/**
 * emitContext with ~1 MiB of history through 4 hooks, vs 4 raw round trips of the history. Filtering
 * hooks chain (each gets the copy the one before sent back), so their floor chains too: each echo
 * sends the copy the last one answered. Why: the caller's history repeats one string and stays in
 * cache, a copy does not; re-sending the caller's array measured 6-13% cheaper than a chain of raw
 * echoes, a cost no hookbox could avoid. Hooks returning nothing get the caller's array each time,
 * and so does their floor.
 */
export async function context(plans: Plans): Promise<ContextFigures> {
  const messages = history();
  const echo = await EchoWorker.start();
  const filters = await loadRunner(Array.from({ length: 4 }, () => benchFixture("filters-debug-messages.ts")));
  const readers = await loadRunner(Array.from({ length: 4 }, () => benchFixture("reads-context-unchanged.ts")));
  try {
    const fourEchoes = async () => { for (let i = 0; i < 4; i++) await echo.roundTrip(messages); };
    const fourChainedEchoes = async () => { let last: unknown = messages; for (let i = 0; i < 4; i++) last = await echo.roundTrip(last); };
    const filtered = await interleave(() => filters.emitContext(messages), fourChainedEchoes, plans.context, 20);
    const passthrough = await interleave(() => readers.emitContext(messages), fourEchoes, plans.context, 20);
    return {
      ratio: medianRatio(filtered), rounds: filtered.ratios, passthroughRatio: medianRatio(passthrough), passthroughRounds: passthrough.ratios,
      filtered: summarize(filtered.a), passthrough: summarize(passthrough.a), floor: summarize([...filtered.b, ...passthrough.b]),
      bytes: JSON.stringify(messages).length, messages: messages.length,
    };
  } finally {
    await Promise.all([filters.dispose(), readers.dispose(), echo.terminate()]);
  }
}

/** Time for a host's background work after its loads settled (the code cache: 150 ms, then one worker's load). */
const settled = () => new Promise((resolve) => setTimeout(resolve, 1_000));

export interface StartupFigures { ratio: number; rounds: number[]; sourceRatio: number; sourceRounds: number[]; cold: Summary; warm: Summary; source: Summary; floor: Summary }

type LoadHooksFn = typeof loadHooks;

/** `loadHooks` of hookbox built as the package ships it (test/support/pi-run.ts `builtHookbox`): each hook runtime is one file (scripts/bundle-runtime.mjs). */
async function shippedLoadHooks(): Promise<LoadHooksFn> {
  const dist = join(builtHookbox("bench-run", (line) => process.stderr.write(`bench: ${line}\n`)), "dist", "host", "index.js");
  return ((await import(pathToFileURL(dist).href)) as { loadHooks: LoadHooksFn }).loadHooks;
}

/**
 * 8 hooks loaded and ready (transform cache empty / warm) vs 8 bare workers answering one message.
 * The figure is the package as it ships; the source tree's runtime (about 25 modules per worker,
 * what vitest and tsx run) is measured in the same rounds and reported beside it.
 */
export async function startup(plans: Plans): Promise<StartupFigures> {
  const hooks = plans.startup.hooks;
  const paths = Array.from({ length: hooks }, () => benchFixture(HOOK));
  const shipped = await shippedLoadHooks();
  const dirs: string[] = [];
  const freshDir = () => { const d = mkdtempSync(join(tmpdir(), "hookbox-bench-cache-")); dirs.push(d); return d; };
  const loadAll = async (load: LoadHooksFn, transformCacheDir: string) => {
    const t0 = performance.now();
    const { hooks: loaded, errors } = await load(paths, CWD, { transformCacheDir });
    const ms = performance.now() - t0;
    if (errors.length) throw new Error(`bench hooks failed to load: ${errors.map((e) => `${e.path}: ${e.code} ${e.error}`).join("; ")}`);
    await Promise.all(loaded.map((h) => h.dispose?.()));
    return ms;
  };
  try {
    const warmDir = freshDir();
    await loadAll(shipped, warmDir);
    await loadAll(loadHooks, warmDir);
    // The host makes the runtime's code cache once its loads settled (src/isolation/code-cache.ts): warm means that too.
    await settled();
    for (let i = 0; i < plans.startup.warmup; i++) await bareWorkersAnswering(hooks);
    const cold: number[] = [];
    const warm: number[] = [];
    const source: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < plans.startup.iterations; i++) {
      // Each hookbox start right after a floor of its own, so both sit in the same stretch of the shared machine.
      floor.push(await bareWorkersAnswering(hooks));
      warm.push(await loadAll(shipped, warmDir));
      floor.push(await bareWorkersAnswering(hooks));
      source.push(await loadAll(loadHooks, warmDir));
      cold.push(await loadAll(shipped, freshDir()));
      // A fresh folder has its code cache made in the background after the start: not during the next floor.
      await settled();
    }
    const rounds = warm.map((w, i) => w / floor[2 * i]!);
    const sourceRounds = source.map((w, i) => w / floor[2 * i + 1]!);
    return {
      ratio: summarize(rounds).median, rounds, sourceRatio: summarize(sourceRounds).median, sourceRounds,
      cold: summarize(cold), warm: summarize(warm), source: summarize(source), floor: summarize(floor),
    };
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

export type { HookRunner };
