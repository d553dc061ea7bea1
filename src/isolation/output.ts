/**
 * A hook's stdout and stderr, in every mode: never the host's streams, always `onLog(hookPath,
 * "stdout" | "stderr", line)`, bounded. A line longer than `MAX_LINE_CHARS` is cut with a marker;
 * past `MAX_BYTES_PER_SECOND` a stream's output is dropped and one line says how much. The stream
 * is always read, so the hook never blocks on a full pipe and the host keeps one partial line at most.
 */
import type { Readable } from "node:stream";

/** Longest line passed to `onLog`. */
export const MAX_LINE_CHARS = 4096;
/** Output a hook may print per stream per second before the rest of that second is dropped. */
export const MAX_BYTES_PER_SECOND = 256 * 1024;

const CUT = "… [hookbox: line cut]";

export type OutputSink = (stream: "stdout" | "stderr", line: string) => void;

/** Read `readable` to its end, as lines to `sink`, within the bounds above. */
export function drainOutput(readable: Readable, stream: "stdout" | "stderr", sink: OutputSink): void {
  let partial = "";
  let cutting = false;
  let windowStart = Date.now();
  let windowBytes = 0;
  let dropped = 0;
  const emit = (line: string) => {
    try { sink(stream, line); } catch { /* the embedder's logger must not break the stream */ }
  };
  const reportDropped = () => {
    if (dropped > 0) emit(`[hookbox: ${dropped} bytes of ${stream} dropped (over ${MAX_BYTES_PER_SECOND} bytes/s)]`);
    dropped = 0;
  };
  readable.on("data", (chunk: Buffer | string) => {
    const now = Date.now();
    if (now - windowStart >= 1000) {
      reportDropped();
      windowStart = now;
      windowBytes = 0;
    }
    const size = typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.length;
    windowBytes += size;
    if (windowBytes > MAX_BYTES_PER_SECOND) {
      dropped += size;
      return;
    }
    let text = chunk.toString();
    if (cutting) {
      const nl = text.indexOf("\n");
      if (nl < 0) return;
      cutting = false;
      text = text.slice(nl + 1);
    }
    const lines = (partial + text).split("\n");
    partial = lines.pop()!;
    for (const line of lines) emit(line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}${CUT}` : line);
    // Why: a hook that never prints a newline must not grow the host's buffer.
    if (partial.length > MAX_LINE_CHARS) {
      emit(`${partial.slice(0, MAX_LINE_CHARS)}${CUT}`);
      partial = "";
      cutting = true;
    }
  });
  readable.on("end", () => {
    if (partial) emit(partial);
    partial = "";
    reportDropped();
  });
  readable.on("error", () => {});
}
