/**
 * The sandbox mode's figures, each against process mode measured in the same run: one hook ready
 * (startup), the tool_call round trip, and the idle memory of one sandboxed hook (its whole process
 * tree: bash is gone after exec; bwrap's monitor, bwrap's init, node) as RSS, PSS and private
 * memory (bench/lib/smaps.ts).
 */
import { descendantsKb, perUnitMb, subKb } from "./smaps.js";
import { TOOL_CALL, benchFixture, loadRunner } from "./host.js";
import { interleave, medianRatio, sleep, summarize, type Plan, type Summary } from "./measure.js";

type Mb = ReturnType<typeof perUnitMb>;

export interface SandboxFigures {
  startupRatio: number;
  startupRounds: number[];
  startupRatioJs: number;
  startupRoundsJs: number[];
  sandboxStartup: Summary;
  processStartup: Summary;
  sandboxStartupJs: Summary;
  processStartupJs: Summary;
  rttRatio: number;
  rttRounds: number[];
  sandboxRtt: Summary;
  processRtt: Summary;
  /** Per idle hook, its whole process tree. */
  sandboxMb: Mb;
  processMb: Mb;
}

/** KiB of RSS of every descendant of this process (from /proc). */
export const descendantsRssKb = (pid = process.pid): number => descendantsKb(pid).rss;

async function readyMs(file: string, isolation: "process" | "sandbox"): Promise<number> {
  const t0 = performance.now();
  const runner = await loadRunner([benchFixture(file)], { isolation });
  const ms = performance.now() - t0;
  await runner.dispose();
  return ms;
}

async function idleTreeMb(isolation: "process" | "sandbox", hooks: number): Promise<Mb> {
  const before = descendantsKb();
  const runner = await loadRunner(Array.from({ length: hooks }, () => benchFixture("allows-every-tool-call.mjs")), { isolation });
  await sleep(500);
  const after = descendantsKb();
  await runner.dispose();
  return perUnitMb(subKb(after, before), hooks);
}

export async function sandboxFigures(startup: Plan, rtt: Plan, hooks: number): Promise<SandboxFigures> {
  const pairs = async (file: string) => {
    const s: number[] = [];
    const p: number[] = [];
    for (let i = 0; i < startup.warmup; i++) { await readyMs(file, "process"); await readyMs(file, "sandbox"); }
    for (let i = 0; i < startup.iterations; i++) { p.push(await readyMs(file, "process")); s.push(await readyMs(file, "sandbox")); }
    const rounds = s.map((v, i) => v / p[i]!);
    return { ratio: summarize(rounds).median, rounds, s: summarize(s), p: summarize(p) };
  };
  const ts = await pairs("allows-every-tool-call.ts");
  const js = await pairs("allows-every-tool-call.mjs");
  const sandboxed = await loadRunner([benchFixture("allows-every-tool-call.ts")], { isolation: "sandbox" });
  const processed = await loadRunner([benchFixture("allows-every-tool-call.ts")], { isolation: "process" });
  let paired;
  try {
    paired = await interleave(() => sandboxed.emitToolCall(TOOL_CALL), () => processed.emitToolCall(TOOL_CALL), rtt);
  } finally {
    await Promise.all([sandboxed.dispose(), processed.dispose()]);
  }
  return {
    startupRatio: ts.ratio, startupRounds: ts.rounds, sandboxStartup: ts.s, processStartup: ts.p,
    startupRatioJs: js.ratio, startupRoundsJs: js.rounds, sandboxStartupJs: js.s, processStartupJs: js.p,
    rttRatio: medianRatio(paired), rttRounds: paired.ratios, sandboxRtt: summarize(paired.a), processRtt: summarize(paired.b),
    sandboxMb: await idleTreeMb("sandbox", hooks),
    processMb: await idleTreeMb("process", hooks),
  };
}
