// How this runtime reaches its host: as a worker thread (parentPort, comlink over a control port,
// shared buffers for synchronous answers) or as a child process (IPC with structured-clone
// serialisation, the control plane multiplexed on it, and fd 4, a pipe read synchronously, for
// synchronous answers). See src/sandbox/endpoint.ts for the host's side.
/** @import { WorkerBoot, SyncReply } from "../src/protocol.js" */
import { readSync } from "node:fs";
import { deserialize } from "node:v8";
import { parentPort, receiveMessageOnPort, workerData } from "node:worker_threads";
import { describeThrown } from "./describe.mjs";

/** `host` when the host imports these modules to run trusted in-process hooks. */
export const mode = parentPort ? "worker" : process.send && process.argv[2]?.startsWith("{") ? "process" : "host";

/** @type {WorkerBoot | undefined} */
export const boot = mode === "worker" ? workerData : mode === "process" ? JSON.parse(/** @type {string} */ (process.argv[2])) : undefined;
if (mode === "process") process.argv.splice(2, 1);

/** The line that carries an uncaught error to the host through stderr (process mode). */
export const FATAL_MARK = "[hookbox:fatal] ";
if (mode === "process") {
  // Why stderr: the process is about to die and IPC is asynchronous; a pipe write is not. A
  // monitor changes nothing about Node's own handling: the process still exits.
  process.on("uncaughtExceptionMonitor", (err) => {
    const e = err instanceof Error ? { message: err.message, name: err.name, stack: err.stack } : { value: describeThrown(err) };
    process.stderr.write(`\n${FATAL_MARK}${JSON.stringify(e)}\n`);
  });
}

/** @param {unknown} message */
function raw(message) {
  if (mode === "worker") /** @type {import("node:worker_threads").MessagePort} */ (parentPort).postMessage(message);
  else if (mode === "process") /** @type {(m: unknown) => void} */ (process.send)(message);
}

/** Results and acks of the current turn, posted together by `flushTurn` (one message for many). @type {unknown[]} */
const outbox = [];
/** @type {(message: any, err: unknown) => void} */
let unsendable = () => {};
/** What to do with a queued message that cannot be cloned (the entry turns a result into an error). @param {(message: any, err: unknown) => void} handler */
export function onUnsendable(handler) {
  unsendable = handler;
}

/** Post now, after whatever the turn has queued, so the host sees everything in order. Throws if `message` cannot be cloned. @param {unknown} message */
export function send(message) {
  if (outbox.length > 0) flushTurn();
  raw(message);
}

/** Queue a result or ack for the end of this turn. @param {unknown} message */
export function queue(message) {
  outbox.push(message);
}

/** Post what this turn queued: one message, or one batch. */
export function flushTurn() {
  if (outbox.length === 0) return;
  const messages = outbox.splice(0);
  try {
    raw(messages.length === 1 ? messages[0] : { t: "batch", m: messages });
  } catch {
    // One uncloneable value must not take the others with it: post them one by one.
    for (const message of messages) {
      try { raw(message); } catch (err) { unsendable(message, err); }
    }
  }
}

/** @type {Set<(ev: { data: unknown }) => void>} */
const controlListeners = new Set();

/** @param {(message: any) => void} handler */
export function onMessage(handler) {
  if (mode === "worker") /** @type {import("node:worker_threads").MessagePort} */ (parentPort).on("message", handler);
  else if (mode === "process") {
    process.on("message", (/** @type {any} */ message) => {
      if (message && message.t === "ctl") for (const l of controlListeners) l({ data: message.d });
      else handler(message);
    });
  }
}

/** The comlink endpoint of the control plane in process mode (IPC, tagged `ctl`). */
export const processControl = {
  postMessage: (/** @type {unknown} */ d) => send({ t: "ctl", d }),
  addEventListener: (/** @type {string} */ _type, /** @type {any} */ l) => { controlListeners.add(l); },
  removeEventListener: (/** @type {string} */ _type, /** @type {any} */ l) => { controlListeners.delete(l); },
};

/**
 * Block until the host's answer to sync call `id` arrives, or `timeoutMs` passes.
 * @param {number} id @param {number} timeoutMs @param {{ port: import("node:worker_threads").MessagePort; state: Int32Array } | undefined} shared
 * @returns {SyncReply | undefined}
 */
export function awaitSyncReply(id, timeoutMs, shared) {
  if (mode === "worker" && shared) {
    Atomics.wait(shared.state, 0, 0, timeoutMs);
    // Why a loop: a late answer to an earlier call that timed out may still sit on the port.
    for (let got = receiveMessageOnPort(shared.port); got; got = receiveMessageOnPort(shared.port)) {
      const reply = /** @type {SyncReply} */ (got.message);
      if (reply.id === id) return reply;
    }
    return undefined;
  }
  const end = Date.now() + timeoutMs;
  for (;;) {
    const reply = /** @type {SyncReply | undefined} */ (readFrame(end));
    if (!reply) return undefined;
    if (reply.id === id) return reply;
  }
}

const SYNC_FD = 4;
const nap = new Int32Array(new SharedArrayBuffer(4));
/** @param {number} end */
function readExactly(/** @type {number} */ length, end) {
  const buf = Buffer.alloc(length);
  let got = 0;
  let idle = 0;
  while (got < length) {
    try {
      const n = readSync(SYNC_FD, buf, got, length - got, null);
      if (n === 0) return undefined;
      got += n;
      idle = 0;
    } catch (err) {
      if (/** @type {{ code?: string }} */ (err).code !== "EAGAIN" || Date.now() > end) return undefined;
      // Why a backoff: the pipe is non-blocking on this side; spin briefly (answers take tens of
      // microseconds), then sleep in growing steps up to 1 ms so a slow host costs no CPU.
      if (++idle > 200) Atomics.wait(nap, 0, 0, Math.min(1, (idle - 200) * 0.01));
    }
  }
  return buf;
}
/** @param {number} end */
function readFrame(end) {
  const head = readExactly(4, end);
  if (!head) return undefined;
  const body = readExactly(head.readUInt32BE(0), Infinity);
  return body ? deserialize(body) : undefined;
}
