/**
 * RSS growth per idle worker. Measured in a child process of its own (a fresh heap, nothing left
 * from the other benchmarks), `--expose-gc` so the host's garbage is collected before each reading.
 */
import { spawn } from "node:child_process";
import { Worker } from "node:worker_threads";
import { ECHO_WORKER } from "./floor.js";
import { benchFixture, loadRunner } from "./host.js";
import { sleep } from "./measure.js";

export type MemoryCase = "rss-hooks" | "rss-bare";

export function settledRss(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  return process.memoryUsage.rss();
}

/** In the child: MB of RSS per idle worker over `count` of them (loaded hooks, or bare workers). */
export async function measureInChild(kind: MemoryCase, count: number): Promise<number> {
  await sleep(50);
  const before = settledRss();
  let end: () => Promise<unknown>;
  if (kind === "rss-hooks") {
    const runner = await loadRunner(Array.from({ length: count }, () => benchFixture("allows-every-tool-call.ts")));
    end = () => runner.dispose();
  } else {
    const workers = Array.from({ length: count }, () => new Worker(ECHO_WORKER));
    await Promise.all(workers.map((w) => new Promise((resolve) => { w.once("message", resolve); w.postMessage(0); })));
    end = () => Promise.all(workers.map((w) => w.terminate()));
  }
  // Idle: let the workers finish start-up work (lazy compilation, GC of load-time garbage).
  await sleep(500);
  const after = settledRss();
  await end();
  return (after - before) / count / (1024 * 1024);
}

/** From the parent: run `bench/run.ts --case <kind>` in a fresh process and read its number. */
export function measureInFreshProcess(kind: MemoryCase, count: number, script: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, "--expose-gc", script, "--case", kind, "--count", String(count)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.once("error", reject);
    child.once("exit", (code) => {
      const last = out.trim().split("\n").pop() ?? "";
      const value = Number(last);
      if (code === 0 && Number.isFinite(value)) resolve(value);
      else reject(new Error(`memory case ${kind} exited ${code}: ${out}`));
    });
  });
}
