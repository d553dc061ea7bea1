/**
 * The host's transform thread, started on the first cache miss and shared by every hook: Babel runs
 * here so a large or slow transform never blocks the host's event loop. One thread, requests in
 * order, its heap bounded so that no request grows the host by more than that. When a source
 * exhausts the heap the thread dies: that request fails (`TransformOutOfMemory`), the ones queued
 * behind it go to a new thread, so one hook's source never fails another's.
 */
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { ownPermissionFlag } from "../policy/runtime.js";
import { requiredDependencyDir } from "../policy/paths.js";
import { childEnv } from "../../worker/child-env.mjs";

/** jiti's package folder (its transform is what the hook's jiti would have run itself). */
export const jitiDir = requiredDependencyDir("jiti");

const ENTRY = new URL("../../worker/transformer.mjs", import.meta.url);
/**
 * Heap of the transform thread, old generation (the young one is 16 MB more). Why 96: the largest
 * real modules (src/transform/budget.ts) need 50 to 70 MB; Babel takes about 300 bytes per character of
 * the densest source (a statement `a;` every 3 characters), so a bound on characters alone cannot
 * bound memory.
 */
export const TRANSFORM_HEAP_MB = 96;

/** A transform refused because Babel ran out of the thread's heap on this source. */
export class TransformOutOfMemory extends Error {
  constructor(readonly filename: string) {
    super(`transforming ${JSON.stringify(filename.slice(0, 200))} took more than the ${TRANSFORM_HEAP_MB} MB heap of the host's transform thread; refused. ` +
      "Split the file (or precompile it to plain JavaScript): real modules need far less");
    this.name = "TransformOutOfMemory";
  }
}

interface Pending { request: object; resolve(code: string): void; reject(err: Error): void; posted: number; onBusy?: (ms: number) => void }
let thread: Worker | undefined;
const pending = new Map<number, Pending>();
let nextId = 1;
/** When the thread last finished a job: jobs run in order, so a job's own time starts then (or when it was posted). */
let lastDone = 0;

/** Charge the thread time of the job `p` just ended to whoever asked for it (src/transform/budget.ts). */
function settled(p: Pending): void {
  const now = performance.now();
  p.onBusy?.(now - Math.max(p.posted, lastDone));
  lastDone = now;
}

function start(): Worker {
  const worker = new Worker(ENTRY, {
    execArgv: [ownPermissionFlag(), "--no-warnings", `--allow-fs-read=${jitiDir}/*`, `--allow-fs-read=${fileURLToPath(ENTRY)}`],
    // Young generation at most 16 MB: more can abort the whole process on Node 20 (nodejs/node#47224).
    resourceLimits: { maxOldGenerationSizeMb: TRANSFORM_HEAP_MB, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
    env: childEnv(),
    // Why a path, not the name "jiti": the thread would look the name up through `node_modules`, which
    // the permission model checks at the unresolved path (outside its grant when `node_modules` is a
    // symbolic link: pnpm, a worktree sharing a checkout's dependencies).
    workerData: { jiti: pathToFileURL(join(jitiDir, "lib", "jiti.mjs")).href },
  });
  worker.unref();
  worker.on("message", (msg: { id: number; ok: boolean; code?: string; message?: string }) => {
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    settled(p);
    if (msg.ok && typeof msg.code === "string") p.resolve(msg.code);
    else p.reject(new Error(`hookbox could not transform this file: ${msg.message ?? "no code"}`));
    if (pending.size === 0) worker.unref();
  });
  let outOfMemory = false;
  worker.on("error", (err: Error & { code?: string }) => { outOfMemory ||= err.code === "ERR_WORKER_OUT_OF_MEMORY"; });
  worker.once("exit", (code) => {
    if (thread === worker) thread = undefined;
    // The job that was running is the oldest one posted (jobs run in order).
    const first = pending.entries().next().value;
    if (!first) return;
    const [id, running] = first;
    pending.delete(id);
    settled(running);
    const { filename } = running.request as { filename?: string };
    running.reject(outOfMemory ? new TransformOutOfMemory(filename ?? "")
      : new Error(`hookbox's transform thread ended (exit code ${code}) while transforming this file`));
    // The rest never started: a new thread takes them, in the same order.
    const queued = [...pending.values()];
    pending.clear();
    for (const p of queued) post(p);
  });
  return worker;
}

function post(p: Pending): void {
  thread ??= start();
  const id = nextId++;
  pending.set(id, p);
  thread.ref();
  thread.postMessage({ id, request: p.request });
}

/** Transform one request in the host's transform thread; `onBusy` is told the thread time it took. */
export function transformInThread(request: object, onBusy?: (ms: number) => void): Promise<string> {
  return new Promise<string>((resolve, reject) => post({ request, resolve, reject, posted: performance.now(), onBusy }));
}
