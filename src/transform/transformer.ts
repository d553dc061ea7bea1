/**
 * The host's transform thread, started on the first cache miss and shared by every hook: Babel runs
 * here so a large or slow transform never blocks the host's event loop. One thread, requests in
 * order; when it dies (a source that exhausts its heap) the requests in flight fail and the next
 * request starts a new one.
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
/** Heap of the transform thread: Babel on a 16 MiB source needs a few hundred MB. */
const HEAP_MB = 512;

interface Pending { resolve(code: string): void; reject(err: Error): void; posted: number; onBusy?: (ms: number) => void }
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
    resourceLimits: { maxOldGenerationSizeMb: HEAP_MB, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
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
  worker.on("error", () => {});
  worker.once("exit", (code) => {
    if (thread === worker) thread = undefined;
    const first = pending.values().next().value;
    if (first) settled(first);
    for (const p of pending.values()) p.reject(new Error(`hookbox's transform thread ended (exit code ${code}) while transforming this file`));
    pending.clear();
  });
  return worker;
}

/** Transform one request in the host's transform thread; `onBusy` is told the thread time it took. */
export function transformInThread(request: object, onBusy?: (ms: number) => void): Promise<string> {
  thread ??= start();
  const worker = thread;
  const id = nextId++;
  return new Promise<string>((resolve, reject) => {
    pending.set(id, { resolve, reject, posted: performance.now(), onBusy });
    worker.ref();
    worker.postMessage({ id, request });
  });
}
