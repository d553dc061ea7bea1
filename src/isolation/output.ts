/**
 * A hook's stdout and stderr, in every mode: never the host's streams, always `onLog(hookPath,
 * "stdout" | "stderr", line)`, bounded. A line longer than `MAX_LINE_CHARS` is cut with a marker;
 * past `MAX_BYTES_PER_SECOND` a stream's output is dropped and one line says how much. The stream
 * is always read, so the hook never blocks on a full pipe and the host keeps no partial line: text
 * the hook wrote without ending its line (a prompt, a progress mark, an OSC 777 notification) is
 * passed on as it comes, marked unterminated, and the rest of its line follows as its own piece.
 */
import type { Readable } from "node:stream";

/** Longest line passed to `onLog`. */
export const MAX_LINE_CHARS = 4096;
/** Output a hook may print per stream per second before the rest of that second is dropped. */
export const MAX_BYTES_PER_SECOND = 256 * 1024;

const CUT = "… [hookbox: line cut]";

/** One line of a stream, or (`unterminated`) the start of one whose end has not come yet. */
export type OutputSink = (stream: "stdout" | "stderr", line: string, unterminated?: boolean) => void;

/**
 * One stream of a hook's output cut into lines for `sink`, within the bounds above: its pipe (read by
 * `drainOutput`), or what its runtime sent over the channel (worker/stdio-bound.mjs).
 */
export class OutputLines {
  readonly #stream: "stdout" | "stderr";
  readonly #sink: OutputSink;
  /** Characters of the current line already passed on. */
  #lineChars = 0;
  /** The current line was cut: the rest of it is dropped, up to its newline. */
  #cutting = false;
  #windowStart = Date.now();
  #windowBytes = 0;
  #dropped = 0;

  constructor(stream: "stdout" | "stderr", sink: OutputSink) {
    this.#stream = stream;
    this.#sink = sink;
  }

  write(chunk: Buffer | string): void {
    const now = Date.now();
    if (now - this.#windowStart >= 1000) {
      this.#reportDropped();
      this.#windowStart = now;
      this.#windowBytes = 0;
    }
    const size = typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.length;
    this.#windowBytes += size;
    if (this.#windowBytes > MAX_BYTES_PER_SECOND) {
      this.#dropped += size;
      return;
    }
    const pieces = chunk.toString().split("\n");
    pieces.forEach((piece, i) => {
      const ended = i < pieces.length - 1;
      if (this.#cutting) {
        if (ended) this.#cutting = false;
        return;
      }
      if (this.#lineChars + piece.length > MAX_LINE_CHARS) {
        // Why cut here too: a hook that never prints a newline must not grow what the host passes on as one line.
        this.#emit(`${piece.slice(0, MAX_LINE_CHARS - this.#lineChars)}${CUT}`);
        this.#lineChars = 0;
        this.#cutting = !ended;
        return;
      }
      if (ended) {
        this.#emit(piece);
        this.#lineChars = 0;
      } else if (piece !== "") {
        this.#emit(piece, true);
        this.#lineChars += piece.length;
      }
    });
  }

  /** The stream ended: say what was dropped, if anything. */
  end(): void {
    this.#reportDropped();
  }

  #emit(line: string, unterminated = false): void {
    try { this.#sink(this.#stream, line, ...(unterminated ? [true] as const : [])); } catch { /* the embedder's logger must not break the stream */ }
  }

  #reportDropped(): void {
    if (this.#dropped === 0) return;
    // The notice is a line of its own: a line the hook left open ends first.
    if (this.#lineChars > 0) this.#emit("");
    this.#emit(`[hookbox: ${this.#dropped} bytes of ${this.#stream} dropped (over ${MAX_BYTES_PER_SECOND} bytes/s)]`);
    this.#lineChars = 0;
    this.#dropped = 0;
  }
}

/** Read `readable` to its end, as lines to `sink`, within the bounds above. */
export function drainOutput(readable: Readable, stream: "stdout" | "stderr", sink: OutputSink): void {
  const lines = new OutputLines(stream, sink);
  readable.on("data", (chunk: Buffer | string) => lines.write(chunk));
  readable.on("end", () => lines.end());
  readable.on("error", () => {});
}
