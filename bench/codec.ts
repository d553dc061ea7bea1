/**
 * `npx tsx bench/codec.ts`: what one frame of the framed channel (process and sandbox modes,
 * worker/wire.mjs) costs to write and read, against the options it was chosen over: the JSON
 * encoder it replaced (`JSON.stringify` with a replacer refusing functions and symbols), devalue
 * for every frame, and the frame codec (one scan, JSON for plain data, devalue's text for a value
 * JSON would change). Values: the bench's 1 MiB context (one text repeated, which devalue writes
 * once), the same with a distinct text per message, that context with a Set beside it (what
 * `session_before_compact` carries), and a tool_call emit. Medians of 9 rounds, with their range;
 * the options alternate within each value. Numbers only; docs/performance.md has a run.
 */
import { parse, stringify } from "devalue";
import { history } from "./lib/host.js";
import { MAX_FRAME_DEPTH } from "../worker/wire.mjs";
import { decodeFrameBody, encodeFrame } from "../worker/frames.mjs";

const same = history();
const unique = same.map((m, i) => JSON.parse(JSON.stringify(m).replace(/lorem/g, `l${i}`)) as unknown);
const withSet = { preparation: { messagesToSummarize: unique, fileOps: { read: new Set(["a.ts", "b.ts"]), written: new Set() } }, customInstructions: undefined };
const toolCall = { t: "emit", id: 1, type: "tool_call", e: { type: "tool_call", toolName: "bash", toolCallId: "c1", input: { command: "ls" } } };

const framed = (text: string) => {
  const frame = Buffer.allocUnsafe(4 + Buffer.byteLength(text));
  frame.writeUInt32BE(frame.length - 4, 0);
  frame.write(text, 4);
  return frame;
};
function refuseCode(_key: string, value: unknown) {
  if (typeof value === "function" || typeof value === "symbol") throw new TypeError("not JSON data");
  return value;
}
const bounds = { maxDepth: MAX_FRAME_DEPTH, maxFrameBytes: 64 * 1024 * 1024 };
const CODECS: Record<string, { encode: (v: unknown) => Buffer; decode: (f: Buffer) => unknown }> = {
  "JSON (the encoder before)": { encode: (v) => framed(JSON.stringify(v, refuseCode)), decode: (f) => JSON.parse(f.toString("utf8", 4)) },
  "devalue for every frame": { encode: (v) => framed(stringify(v)), decode: (f) => parse(f.toString("utf8", 4)) },
  "the frame codec": { encode: encodeFrame, decode: (f) => decodeFrameBody(f.subarray(4), bounds) },
};

function rounds(fn: () => unknown, n: number): number[] {
  for (let i = 0; i < Math.min(n, 20); i++) fn();
  const out: number[] = [];
  for (let r = 0; r < 9; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) fn();
    out.push(((performance.now() - t0) / n) * 1000);
  }
  return out.sort((a, b) => a - b);
}
const show = (xs: number[]) => `${xs[4]!.toFixed(1)} µs (${xs[0]!.toFixed(1)}-${xs[8]!.toFixed(1)})`;

for (const [name, value, n] of [["1 MiB context (bench)", same, 10], ["1 MiB context, distinct texts", unique, 10], ["1 MiB context and a Set", withSet, 10], ["tool_call emit", toolCall, 20_000]] as const) {
  console.log(`${name}`);
  const seen: Record<string, { encode: number[]; decode: number[]; bytes: number }> = {};
  for (const [label, codec] of Object.entries(CODECS)) {
    const frame = codec.encode(value);
    seen[label] = { encode: rounds(() => codec.encode(value), n), decode: rounds(() => codec.decode(frame), n), bytes: frame.length };
  }
  for (const [label, s] of Object.entries(seen)) console.log(`  ${label.padEnd(26)} write ${show(s.encode).padEnd(26)} read ${show(s.decode).padEnd(26)} ${s.bytes} bytes`);
}
