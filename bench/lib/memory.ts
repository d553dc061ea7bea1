/**
 * Memory growth per idle worker: RSS, PSS and private memory of the host process (worker threads
 * live in it), from smaps_rollup (bench/lib/smaps.ts). Measured in a child process of its own (a
 * fresh heap, nothing left from the other benchmarks), `--expose-gc` so the host's garbage is
 * collected before each reading.
 */
import { spawn } from "node:child_process";
import { Worker } from "node:worker_threads";
import { ECHO_WORKER, FLOOR_WORKER_OPTIONS } from "./floor.js";
import { benchFixture, loadRunner } from "./host.js";
import { sleep } from "./measure.js";
import { perUnitMb, smapsRollupKb, subKb } from "./smaps.js";

export type MemoryMb = ReturnType<typeof perUnitMb>;

export type MemoryCase = "rss-hooks" | "rss-bare";

export function settledRss(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  return process.memoryUsage.rss();
}

function settledKb() {
  settledRss();
  return smapsRollupKb();
}

/** In the child: MB per idle worker over `count` of them (loaded hooks, or bare workers). */
export async function measureInChild(kind: MemoryCase, count: number): Promise<MemoryMb> {
  await sleep(50);
  const before = settledKb();
  let end: () => Promise<unknown>;
  if (kind === "rss-hooks") {
    const runner = await loadRunner(Array.from({ length: count }, () => benchFixture("allows-every-tool-call.ts")));
    end = () => runner.dispose();
  } else {
    const workers = Array.from({ length: count }, () => new Worker(ECHO_WORKER, FLOOR_WORKER_OPTIONS));
    await Promise.all(workers.map((w) => new Promise((resolve) => { w.once("message", resolve); w.postMessage(0); })));
    end = () => Promise.all(workers.map((w) => w.terminate()));
  }
  // Idle: let the workers finish start-up work (lazy compilation, GC of load-time garbage).
  await sleep(500);
  const after = settledKb();
  await end();
  return perUnitMb(subKb(after, before), count);
}

/** From the parent: run `bench/run.ts --case <kind>` in a fresh process and read its figures. */
export function measureInFreshProcess(kind: MemoryCase, count: number, script: string): Promise<MemoryMb> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, "--expose-gc", script, "--case", kind, "--count", String(count)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.once("error", reject);
    child.once("exit", (code) => {
      let value: MemoryMb | undefined;
      try { value = JSON.parse(out.trim().split("\n").pop() ?? "") as MemoryMb; } catch { /* reported below */ }
      if (code === 0 && value && [value.rss, value.pss, value.priv].every(Number.isFinite)) resolve(value);
      else reject(new Error(`memory case ${kind} exited ${code}: ${out}`));
    });
  });
}
