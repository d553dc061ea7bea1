/**
 * The framed channel between the host and a hook's child process (process and sandbox modes).
 * Node's own child_process IPC parses the child's bytes in the host with a parser that throws
 * outside any try/catch (a malformed frame or a value a few thousand levels deep ends the host),
 * so hookbox owns this one: each frame is a 4-byte big-endian length and a UTF-8 body, JSON for
 * plain data and devalue's text for the values JSON would change (a Set, a Map, a Date, undefined…)
 * (`encodeFrame`, worker/frames.mjs: one codec for both sides, which Node and Bun both read). The
 * host decodes inside try/catch, refuses frames over a size bound before buffering them, refuses a
 * devalue body that holds what the wire does not carry before building it, and refuses values
 * nested deeper than any message the runtime sends (`MAX_FRAME_DEPTH`, worker/wire.mjs); any of
 * these ends the hook as `protocol_violation`.
 *
 * Why not node:v8: Bun's `node:v8` writes JavaScriptCore's format, which Node cannot read (and
 * the reverse), so a Bun host could not talk to a Node child. Measured (docs/runtimes.md,
 * docs/performance.md): JSON is no slower than V8's; devalue's form costs only the values that need it.
 */
import { FRAME_HEADER_BYTES as HEADER } from "../../worker/wire.mjs";
import { decodeFrameBody } from "../../worker/frames.mjs";

export { encodeFrame } from "../../worker/frames.mjs";

/** How deep `value` nests, walked without recursion; stops counting past `limit`. */
export function depthOf(value: unknown, limit: number): number {
  let deepest = 0;
  const seen = new Set<object>();
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== "object" || v === null || seen.has(v)) continue;
    seen.add(v);
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    if (v instanceof Map) {
      for (const [k, x] of v) stack.push([k, depth + 1], [x, depth + 1]);
    } else if (v instanceof Set) {
      for (const x of v) stack.push([x, depth + 1]);
    } else if (!ArrayBuffer.isView(v)) {
      for (const key of Object.keys(v)) stack.push([(v as Record<string, unknown>)[key], depth + 1]);
    }
  }
  return deepest;
}

export interface FrameBounds {
  maxFrameBytes: number;
  maxDepth: number;
}

/**
 * Cuts a byte stream into frames and decodes them. `push` returns the decoded values in order, or
 * stops at the first bad frame with `violation` set; the reader is dead after that.
 */
export class FrameReader {
  #chunks: Buffer[] = [];
  #buffered = 0;
  #need = -1;
  violation: string | undefined;

  constructor(private readonly bounds: FrameBounds) {}

  push(chunk: Buffer): unknown[] {
    const out: unknown[] = [];
    if (this.violation) return out;
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    for (;;) {
      if (this.#need < 0) {
        if (this.#buffered < HEADER) return out;
        const length = this.#take(HEADER).readUInt32BE(0);
        // Why before buffering: a length is a promise of bytes; refusing it early bounds memory.
        if (length > this.bounds.maxFrameBytes) {
          this.violation = `a frame of ${length} bytes is over the bound of ${this.bounds.maxFrameBytes}`;
          return out;
        }
        this.#need = length;
      }
      if (this.#buffered < this.#need) return out;
      const body = this.#take(this.#need);
      this.#need = -1;
      let value: unknown;
      try {
        value = decodeFrameBody(body, this.bounds);
      } catch (err) {
        this.violation = `an undecodable frame (${(err as Error).message})`;
        return out;
      }
      if (depthOf(value, this.bounds.maxDepth) > this.bounds.maxDepth) {
        this.violation = `a value nested deeper than ${this.bounds.maxDepth} levels`;
        return out;
      }
      out.push(value);
    }
  }

  #take(n: number): Buffer {
    const all = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
    const rest = all.subarray(n);
    this.#chunks = rest.length > 0 ? [rest] : [];
    this.#buffered = rest.length;
    return all.subarray(0, n);
  }
}
