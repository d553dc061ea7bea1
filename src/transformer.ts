/**
 * The host's transform thread, started on the first cache miss and shared by every hook: Babel runs
 * here so a large or slow transform never blocks the host's event loop. One thread, requests in
 * order; when it dies (a source that exhausts its heap) the requests in flight fail and the next
 * request starts a new one.
 */
import { createRequire } from "node:module";
import { dirname, parse } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { permissionFlag } from "./policy.js";

const require = createRequire(import.meta.url);
/** jiti's package folder (its transform is what the hook's jiti would have run itself). */
export const jitiDir = ((): string => {
  let dir = dirname(require.resolve("jiti"));
  while (parse(dir).base !== "jiti" && dir !== parse(dir).root) dir = dirname(dir);
  return dir;
})();

const ENTRY = new URL("../worker/transformer.mjs", import.meta.url);
/** Heap of the transform thread: Babel on a 16 MiB source needs a few hundred MB. */
const HEAP_MB = 512;

interface Pending { resolve(code: string): void; reject(err: Error): void }
let thread: Worker | undefined;
const pending = new Map<number, Pending>();
let nextId = 1;

function start(): Worker {
  const worker = new Worker(ENTRY, {
    execArgv: [permissionFlag(), "--no-warnings", `--allow-fs-read=${jitiDir}/*`, `--allow-fs-read=${fileURLToPath(ENTRY)}`],
    resourceLimits: { maxOldGenerationSizeMb: HEAP_MB },
    env: {},
    // The entry file itself (worker/transformer.mjs says why).
    workerData: { jiti: require.resolve("jiti") },
  });
  worker.unref();
  worker.on("message", (msg: { id: number; ok: boolean; code?: string; message?: string }) => {
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.ok && typeof msg.code === "string") p.resolve(msg.code);
    else p.reject(new Error(`hookbox could not transform this file: ${msg.message ?? "no code"}`));
    if (pending.size === 0) worker.unref();
  });
  worker.on("error", () => {});
  worker.once("exit", (code) => {
    if (thread === worker) thread = undefined;
    for (const p of pending.values()) p.reject(new Error(`hookbox's transform thread ended (exit code ${code}) while transforming this file`));
    pending.clear();
  });
  return worker;
}

/** Transform one request in the host's transform thread. */
export function transformInThread(request: object): Promise<string> {
  thread ??= start();
  const worker = thread;
  const id = nextId++;
  return new Promise<string>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker.ref();
    worker.postMessage({ id, request });
  });
}
