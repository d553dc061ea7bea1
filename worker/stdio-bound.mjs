// Worker mode only: the hook's `process.stdout` and `process.stderr` are bounded inside its own
// thread, before a byte is posted to the host. Why here and not only on the host (src/isolation/
// output.ts): a worker's stdio reaches the host as messages its event loop must take, chunk by
// chunk; a hook writing 256 MiB and 200 000 lines without waiting lagged the host 1.7 s (measured).
// Past `MAX_BYTES_PER_SECOND` a stream's writes are dropped in the thread and one line
// says how much; the host's own bound stays behind it. The streams are replaced before the hook
// loads, not patched: the originals stay in this closure, out of the hook's reach.
import { Writable } from "node:stream";

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
      if (dropped > 0) original.write(`\n[hookbox: ${dropped} bytes of ${name} dropped in the hook's thread (over ${MAX_BYTES_PER_SECOND} bytes/s)]\n`);
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
          original.write(chunk, encoding);
        }
        callback();
      },
    });
    Object.defineProperty(bounded, "isTTY", { value: false });
    // Node's worker internals call `process.stdout[kStdioWantsMoreDataCallback]()` when the host
    // wants more: forward every symbol-keyed method of the original (the symbol is not exported).
    for (let o = original; o && o !== Writable.prototype; o = Object.getPrototypeOf(o)) {
      for (const sym of Object.getOwnPropertySymbols(o)) {
        const value = /** @type {any} */ (original)[sym];
        if (typeof value === "function" && !(sym in bounded)) Object.defineProperty(bounded, sym, { value: (/** @type {unknown[]} */ ...args) => value.apply(original, args) });
      }
    }
    Object.defineProperty(process, name, { value: bounded, enumerable: true, configurable: false, writable: false });
  }
}
