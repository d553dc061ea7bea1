/**
 * The floors every ratio divides by, measured in the same run: raw worker `postMessage` echo
 * round trips (parentPort is a MessagePort) with the same payload, raw pipelined throughput, and
 * bare workers that answer one message.
 */
import { Worker } from "node:worker_threads";

export const ECHO_WORKER = new URL("../fixtures/echoes-messages.cjs", import.meta.url);
/**
 * How a floor worker is made: `execArgv: []`, as hookbox makes its workers (they get their own
 * flags). A worker inherits the process's flags by default, and the benches run under tsx: each
 * bare worker then loaded tsx's loader hooks too, which measured 14.8 MB private per worker against
 * 7.4 MB without (and made the start-up floor slower than a bare worker is).
 */
export const FLOOR_WORKER_OPTIONS = Object.freeze({ execArgv: [] as string[] });

/** A bare echo worker and the two ways the benchmarks drive it. */
export class EchoWorker {
  readonly #worker: Worker;
  #waiting: ((last: unknown) => void) | undefined;
  #left = 0;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on("message", (message: unknown) => {
      if (--this.#left <= 0) {
        const done = this.#waiting;
        this.#waiting = undefined;
        done?.(message);
      }
    });
  }

  static async start(): Promise<EchoWorker> {
    const echo = new EchoWorker(new Worker(ECHO_WORKER, FLOOR_WORKER_OPTIONS));
    await echo.roundTrip(0);
    return echo;
  }

  /** One message there and back; resolves with the copy that came back. */
  roundTrip(payload: unknown): Promise<unknown> {
    return this.pipelined(payload, 1);
  }

  /** `count` messages posted at once; resolves when every echo is back (with the last one). */
  pipelined(payload: unknown, count: number): Promise<unknown> {
    return new Promise((resolve) => {
      this.#left = count;
      this.#waiting = resolve;
      for (let i = 0; i < count; i++) this.#worker.postMessage(payload);
    });
  }

  async terminate(): Promise<void> {
    await this.#worker.terminate();
  }
}

/** Start `count` bare workers in parallel; resolves (ms) once each answered one message, then ends them. */
export async function bareWorkersAnswering(count: number): Promise<number> {
  const t0 = performance.now();
  const workers = Array.from({ length: count }, () => new Worker(ECHO_WORKER, FLOOR_WORKER_OPTIONS));
  await Promise.all(workers.map((w) => new Promise<void>((resolve, reject) => {
    w.once("message", () => resolve());
    w.once("error", reject);
    w.postMessage(0);
  })));
  const ms = performance.now() - t0;
  await Promise.all(workers.map((w) => w.terminate()));
  return ms;
}
