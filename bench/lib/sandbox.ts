/**
 * The sandbox mode's figures, each against process mode measured in the same run: one hook ready
 * (startup), the tool_call round trip, and the idle memory of one sandboxed hook (its whole process
 * tree: bash is gone after exec; bwrap's monitor, bwrap's init, node).
 */
import { readFileSync } from "node:fs";
import { TOOL_CALL, benchFixture, loadRunner } from "./host.js";
import { interleave, medianRatio, sleep, summarize, type Plan, type Summary } from "./measure.js";

export interface SandboxFigures {
  startupRatio: number;
  startupRatioJs: number;
  sandboxStartup: Summary;
  processStartup: Summary;
  sandboxStartupJs: Summary;
  processStartupJs: Summary;
  rttRatio: number;
  sandboxRtt: Summary;
  processRtt: Summary;
  sandboxRssMb: number;
  processRssMb: number;
}

/** KiB of RSS of every descendant of this process (from /proc). */
export function descendantsRssKb(pid = process.pid): number {
  let total = 0;
  let children: string[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
  } catch { return 0; }
  for (const child of children) {
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child}/status`, "utf8"));
      total += m ? Number(m[1]) : 0;
    } catch { /* gone */ }
    total += descendantsRssKb(Number(child));
  }
  return total;
}

async function readyMs(file: string, isolation: "process" | "sandbox"): Promise<number> {
  const t0 = performance.now();
  const runner = await loadRunner([benchFixture(file)], { isolation });
  const ms = performance.now() - t0;
  await runner.dispose();
  return ms;
}

async function idleTreeMb(isolation: "process" | "sandbox", hooks: number): Promise<number> {
  const before = descendantsRssKb();
  const runner = await loadRunner(Array.from({ length: hooks }, () => benchFixture("allows-every-tool-call.mjs")), { isolation });
  await sleep(500);
  const after = descendantsRssKb();
  await runner.dispose();
  return (after - before) / hooks / 1024;
}

export async function sandboxFigures(startup: Plan, rtt: Plan, hooks: number): Promise<SandboxFigures> {
  const pairs = async (file: string) => {
    const s: number[] = [];
    const p: number[] = [];
    for (let i = 0; i < startup.warmup; i++) { await readyMs(file, "process"); await readyMs(file, "sandbox"); }
    for (let i = 0; i < startup.iterations; i++) { p.push(await readyMs(file, "process")); s.push(await readyMs(file, "sandbox")); }
    return { ratio: summarize(s.map((v, i) => v / p[i]!)).median, s: summarize(s), p: summarize(p) };
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
    startupRatio: ts.ratio, sandboxStartup: ts.s, processStartup: ts.p,
    startupRatioJs: js.ratio, sandboxStartupJs: js.s, processStartupJs: js.p,
    rttRatio: medianRatio(paired), sandboxRtt: summarize(paired.a), processRtt: summarize(paired.b),
    sandboxRssMb: await idleTreeMb("sandbox", hooks),
    processRssMb: await idleTreeMb("process", hooks),
  };
}
