// The host's transform thread: Babel (through jiti's own transform) turns a hook's TypeScript into
// what jiti evaluates. It runs host-owned code only, never a hook's: the host validated every
// request's options (src/transform/cache.ts), and the thread runs under the permission model with
// reads of jiti and this file only, so a request can make it read or load nothing else.
import { parentPort, workerData } from "node:worker_threads";

// jiti by the path the host resolved (src/transform/transformer.ts says why not by name).
const { createJiti } = /** @type {typeof import("jiti")} */ (await import(/** @type {{ jiti: string }} */ (workerData).jiti));

// Why silenced: Babel warns on large sources, and no text a hook's source causes reaches the host's streams.
for (const name of /** @type {const} */ (["log", "info", "warn", "error", "debug", "trace"])) console[name] = () => {};
const jiti = createJiti(import.meta.url, { fsCache: false, moduleCache: false });

parentPort?.on("message", (/** @type {{ id: number; request: import("jiti").TransformOptions }} */ msg) => {
  try {
    parentPort?.postMessage({ id: msg.id, ok: true, code: jiti.transform(msg.request) });
  } catch (err) {
    parentPort?.postMessage({ id: msg.id, ok: false, message: err instanceof Error ? err.message : String(err) });
  }
});
