// How this runtime reaches its host. Importing this module does nothing: the entry of each mode
// (worker/entry-thread.mjs, worker/entry-process.mjs) installs its link with `useLink` before the
// runtime loads, so a host that imports these modules (in-process hooks) runs no worker code.
// See worker/link-thread.mjs, worker/link-process.mjs and src/isolation/endpoint.ts for both sides.
/** @import { WorkerBoot, SyncReply } from "../src/contract/protocol.js" */

/**
 * @typedef {object} Link
 * @property {(message: unknown) => void} post Throws if `message` cannot be cloned.
 * @property {(handler: (message: any) => void) => void} listen
 * @property {(id: number, timeoutMs: number, shared: { port: import("node:worker_threads").MessagePort; state: Int32Array } | undefined) => SyncReply | undefined} awaitSync
 */

/** `host` until an entry installs a link (the host imports these modules to run in-process hooks). @type {"worker" | "process" | "host"} */
export let mode = "host";
/** @type {WorkerBoot | undefined} */
export let boot;
/** @type {Link | undefined} */
let link;

/** Called once, by the entry of a mode, before the runtime is imported. @param {"worker" | "process"} kind @param {WorkerBoot} booted @param {Link} installed */
export function useLink(kind, booted, installed) {
  mode = kind;
  boot = booted;
  link = installed;
}

/** @param {unknown} message */
function raw(message) {
  link?.post(message);
}

/** Results of the current turn's requests (and output, `queueOutput`), posted together by `flushTurn` (one message for many). @type {any[]} */
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

/** Queue a result for the end of this turn. @param {unknown} message */
export function queue(message) {
  outbox.push(message);
}

/** Characters of one `output` message (below the host's text bound, `LIMITS.maxText`). */
const OUTPUT_MESSAGE_CHARS = 32 * 1024;
/** Messages the outbox may hold before it is posted mid-turn (below the host's `LIMITS.maxBatch`). */
const OUTBOX_MAX = 1_000;
let outputFlushScheduled = false;

/**
 * Queue text the hook wrote to its stdout or stderr (worker/stdio-bound.mjs): appended to the
 * outbox's last message when that is output of the same stream, so a flood of small writes is a few
 * messages; posted at the end of the turn, and always before anything the worker sends after it.
 * @param {"stdout" | "stderr"} stream @param {string} text
 */
export function queueOutput(stream, text) {
  for (let i = 0; i < text.length; i += OUTPUT_MESSAGE_CHARS) {
    const piece = text.slice(i, i + OUTPUT_MESSAGE_CHARS);
    const last = outbox.at(-1);
    if (last?.t === "post" && last.m === "output" && last.a[0] === stream && last.a[1].length + piece.length <= OUTPUT_MESSAGE_CHARS) last.a[1] += piece;
    else outbox.push({ t: "post", m: "output", a: [stream, piece] });
    if (outbox.length >= OUTBOX_MAX) flushTurn();
  }
  if (!outputFlushScheduled) {
    outputFlushScheduled = true;
    setImmediate(() => { outputFlushScheduled = false; flushTurn(); });
  }
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
  if (mode === "worker") link?.listen(handler);
  else if (mode === "process") {
    link?.listen((/** @type {any} */ message) => {
      if (message && message.t === "ctl") for (const l of controlListeners) l({ data: message.d });
      else handler(message);
    });
  }
}

/** The comlink endpoint of the control plane in process mode (the framed channel, tagged `ctl`). */
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
  return link?.awaitSync(id, timeoutMs, shared);
}
