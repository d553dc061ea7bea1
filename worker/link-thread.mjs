// The link of a worker thread: parentPort for messages, a shared buffer and a port for
// synchronous answers. Imported only by worker/entry-thread.mjs.
/** @import { WorkerBoot, SyncReply } from "../src/contract/protocol.js" */
import { parentPort, receiveMessageOnPort, workerData } from "node:worker_threads";
import { useLink } from "./transport.mjs";

export function useThread() {
  const port = /** @type {import("node:worker_threads").MessagePort} */ (parentPort);
  useLink("worker", /** @type {WorkerBoot} */ (workerData), {
    post: (message) => port.postMessage(message),
    listen: (handler) => { port.on("message", handler); },
    awaitSync(id, timeoutMs, shared) {
      if (!shared) return undefined;
      Atomics.wait(shared.state, 0, 0, timeoutMs);
      // Why a loop: a late answer to an earlier call that timed out may still sit on the port.
      for (let got = receiveMessageOnPort(shared.port); got; got = receiveMessageOnPort(shared.port)) {
        const reply = /** @type {SyncReply} */ (got.message);
        if (reply.id === id) return reply;
      }
      return undefined;
    },
  });
}
