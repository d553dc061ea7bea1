/**
 * Pin every thread of this process to one CPU for the sequential round-trip figures. Why: on a
 * 2-core VM a ping-pong between two threads is bimodal, depending on whether the scheduler puts
 * them on one core (a context switch) or two (a cross-core wake-up from idle, 2-3x slower), and it
 * stays in one mode for seconds. Pinned, hookbox and its floor both pay the same-core hop, and
 * the ratio repeats within a few percent. Pipelined throughput and startup run unpinned.
 * Linux with `taskset` only; elsewhere this is a no-op and the figures are unpinned.
 */
import { execFileSync } from "node:child_process";
import { availableParallelism } from "node:os";

function taskset(cpus: string): boolean {
  try {
    execFileSync("taskset", ["-a", "-p", "-c", cpus, String(process.pid)], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Pin all threads (and threads started later) to CPU 0; true if it worked. */
export function pinToOneCpu(): boolean {
  return process.platform === "linux" && taskset("0");
}

/** Let every thread run on every CPU again. */
export function unpin(): void {
  if (process.platform === "linux") taskset(`0-${availableParallelism() - 1}`);
}
