// The link of a child process (process and sandbox modes): hookbox's framed channel (see
// src/isolation/frames.ts; one codec, worker/wire.mjs `encodeFrame`: JSON, or devalue's text for a
// Set, a Map, a Date, undefined…). fd 3 carries frames to the host, written synchronously so a dying
// process still gets its last frame out; fd 4 carries the host's frames; fd 5 the answers to
// synchronous calls, read with readSync while the hook's thread waits. Imported only by
// worker/entry-process.mjs.
/** @import { WorkerBoot, SyncReply } from "../src/contract/protocol.js" */
import { readSync, writeSync } from "node:fs";
import { Socket } from "node:net";
import { cut, describeThrown, toWireError } from "./describe.mjs";
import { useLink } from "./transport.mjs";
import { decodeFrameBody, encodeFrame } from "./frames.mjs";
import { FATAL, FRAME_HEADER_BYTES, LIMITS, maxFrameBytes } from "./wire.mjs";

const TO_HOST = 3;
const FROM_HOST = 4;
const SYNC_FD = 5;
const nap = new Int32Array(new SharedArrayBuffer(4));

/** @param {unknown} message @param {number} bound */
function post(message, bound) {
  const frame = encodeFrame(message);
  // A turn's batch may hold several results each near the limit: over the frame bound, it goes one by one.
  const batch = /** @type {{ t?: unknown; m?: unknown }} */ (message);
  if (frame.length - FRAME_HEADER_BYTES > bound && batch?.t === "batch" && Array.isArray(batch.m)) {
    for (const one of batch.m) post(one, bound);
    return;
  }
  writeAll(frame);
}

/** @param {unknown} message */
function writeFrame(message) {
  writeAll(encodeFrame(message));
}

/** @param {Buffer} frame */
function writeAll(frame) {
  let off = 0;
  while (off < frame.length) {
    try {
      off += writeSync(TO_HOST, frame, off, frame.length - off);
    } catch (err) {
      if (/** @type {{ code?: string }} */ (err).code !== "EAGAIN") throw err;
      Atomics.wait(nap, 0, 0, 1);
    }
  }
}

/** @param {(message: unknown) => void} deliver */
function readFrames(deliver) {
  /** @type {Buffer} */
  let buffered = Buffer.alloc(0);
  const socket = new Socket({ fd: FROM_HOST, readable: true, writable: false });
  socket.on("data", (chunk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    while (buffered.length >= 4) {
      const length = buffered.readUInt32BE(0);
      if (buffered.length < 4 + length) break;
      const body = buffered.subarray(4, 4 + length);
      buffered = buffered.subarray(4 + length);
      deliver(decodeFrameBody(body));
    }
  });
  // The host closed the channel or is gone: nothing more will come, so this process ends.
  socket.on("close", () => process.exit(0));
  socket.on("error", () => {});
}

/** @param {number} length @param {number} end */
function readExactly(length, end) {
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
function readSyncFrame(end) {
  const head = readExactly(4, end);
  if (!head) return undefined;
  const body = readExactly(head.readUInt32BE(0), Infinity);
  return body ? decodeFrameBody(body) : undefined;
}

/** Install the process link; returns the boot the host passed as argv[2] (removed from argv). */
export function useProcess() {
  const booted = /** @type {WorkerBoot} */ (JSON.parse(/** @type {string} */ (process.argv[2])));
  process.argv.splice(2, 1);
  // Why a socket that never reads: opening fd 5 as a pipe handle makes it non-blocking, so the
  // synchronous reader can give up after its timeout instead of blocking forever.
  const syncHandle = new Socket({ fd: SYNC_FD, readable: false, writable: false });
  syncHandle.pause();
  syncHandle.unref();
  // The host is told what ended this process as the hook's own claim (it names no fault code).
  process.on("uncaughtExceptionMonitor", (err) => {
    const e = err instanceof Error ? toWireError(err) : { value: cut(describeThrown(err), LIMITS.maxText) };
    try { writeFrame({ t: FATAL, e }); } catch { /* the host is gone */ }
  });
  const bound = maxFrameBytes(booted.maxMessageBytes);
  useLink("process", booted, {
    post: (message) => post(message, bound),
    listen: readFrames,
    awaitSync(id, timeoutMs) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const reply = /** @type {SyncReply | undefined} */ (readSyncFrame(end));
        if (!reply) return undefined;
        if (reply.id === id) return reply;
      }
    },
  });
}
