// The hook's `process.stdout` and `process.stderr` (worker thread and child process alike): what it
// writes is bounded here, then sent to the host over hookbox's own channel (`queueOutput`,
// worker/transport.mjs), not the runtime's stdio. Why the channel: it is one ordered stream with the
// worker's replies, so a line a handler wrote before it returned reaches the host before its answer
// (and is not lost when the agent ends the hook right after: a thread's own stdio waits for the host
// chunk by chunk, and lagged behind replies). Why bound here too, not only on the host
// (src/isolation/output.ts MAX_BYTES_PER_SECOND): a hook writing 256 MiB and 200 000 lines without
// waiting lagged the host 1.7 s (measured). Past `MAX_BYTES_PER_SECOND` a stream's writes are dropped
// and one line says how much; the host's own bound stays behind it (a hook can post output itself).
// What bypasses these streams (a write to fd 1, a program the hook starts) still reaches the host
// through the pipes it reads. The streams are replaced before the hook loads, not patched: the
// originals stay in this closure, out of the hook's reach.
import { Writable } from "node:stream";
import { mode, queueOutput } from "./transport.mjs";

/** The host's bound (src/isolation/output.ts MAX_BYTES_PER_SECOND). */
const MAX_BYTES_PER_SECOND = 256 * 1024;

export function boundStdio() {
  for (const name of /** @type {const} */ (["stdout", "stderr"])) {
    const original = process[name];
    let windowStart = Date.now();
    let bytes = 0;
    let dropped = 0;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    const report = () => {
      clearTimeout(timer);
      timer = undefined;
      if (dropped > 0) queueOutput(name, `\n[hookbox: ${dropped} bytes of ${name} dropped in the hook's runtime (over ${MAX_BYTES_PER_SECOND} bytes/s)]\n`);
      dropped = 0;
    };
    const bounded = new Writable({
      decodeStrings: false,
      write(chunk, encoding, callback) {
        const now = Date.now();
        if (now - windowStart >= 1000) {
          report();
          windowStart = now;
          bytes = 0;
        }
        const size = typeof chunk === "string" ? Buffer.byteLength(chunk, encoding) : chunk.length;
        if (bytes + size > MAX_BYTES_PER_SECOND) {
          dropped += size;
          timer ??= setTimeout(report, windowStart + 1000 - now).unref();
        } else {
          bytes += size;
          queueOutput(name, typeof chunk === "string" ? (encoding === "utf8" || encoding === "utf-8" ? chunk : Buffer.from(chunk, encoding).toString()) : Buffer.from(chunk).toString());
        }
        callback();
      },
    });
    Object.defineProperty(bounded, "isTTY", { value: false });
    // Node's worker internals call `process.stdout[kStdioWantsMoreDataCallback]()` when the host
    // wants more: forward every symbol-keyed method of the original (the symbol is not exported).
    for (let o = mode === "worker" ? original : undefined; o && o !== Writable.prototype; o = Object.getPrototypeOf(o)) {
      for (const sym of Object.getOwnPropertySymbols(o)) {
        const value = /** @type {any} */ (original)[sym];
        if (typeof value === "function" && !(sym in bounded)) Object.defineProperty(bounded, sym, { value: (/** @type {unknown[]} */ ...args) => value.apply(original, args) });
      }
    }
    Object.defineProperty(process, name, { value: bounded, enumerable: true, configurable: false, writable: false });
  }
}
