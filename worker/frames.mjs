// The framed channel's codec (process and sandbox modes): a value as one frame's bytes and back.
// Apart from worker/wire.mjs so that a worker thread, which never frames, does not load devalue
// (about 0.5 MB of private memory per runtime, docs/performance.md). Shared by both sides unchanged:
// the host's frames (src/isolation/frames.ts) and the child's link (worker/link-process.mjs).

import { stringify, unflatten } from "devalue";
import { FRAME_HEADER_BYTES, LIMITS } from "./wire.mjs";

/**
 * One frame of the framed channel: its length, then `value` as UTF-8 text in one of two forms.
 * Plain data (what JSON writes back unchanged: no `undefined`, hole, NaN, ±Infinity or -0, only
 * plain objects and arrays) is JSON, at JSON's speed. Anything else is `~` and devalue's text
 * (npm `devalue`, a JSON array of the value's nodes by index), which keeps what structured clone
 * keeps in worker mode and the contract carries: `Set`, `Map`, `Date`, `BigInt`, `undefined`
 * (a key whose value is undefined stays a key), holes, NaN, ±Infinity and -0; a shared object
 * stays shared. Another class's instance travels as its own enumerable keys (structured clone's
 * copy of an ordinary object). Why not node:v8: its formats differ between Node and Bun (a Bun
 * host cannot read a Node child's); devalue is plain JavaScript both read. Throws a TypeError on
 * what structured clone refuses (a function, a symbol) and on a cycle, which no message holds.
 * @param {unknown} value @returns {Buffer}
 */
export function encodeFrame(value) {
  needsTags = false;
  budget = SCAN_NODES;
  scan(value, 0);
  const text = needsTags ? `${TAGGED}${stringify(value, undefined, { operations: STRINGIFY })}` : /** @type {string} */ (JSON.stringify(value));
  const length = Buffer.byteLength(text);
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + length);
  frame.writeUInt32BE(length, 0);
  frame.write(text, FRAME_HEADER_BYTES);
  return frame;
}

/** The first character of a devalue body; no JSON text starts with it. */
const TAGGED = "~";
/** Levels `scan` walks: past any frame the reader takes, whose bound refuses what lies deeper. */
const SCAN_DEPTH = LIMITS.maxDepth + LIMITS.envelopeDepth + 1;
/**
 * Objects `scan` walks before it leaves the rest to devalue, which writes a shared object once: a
 * value shared 2^60 ways (a few nodes) costs this many steps, not 2^60 (JSON would write them all).
 * (A 16 MiB result of small objects has about a million: past this, devalue writes it, slower.)
 */
const SCAN_NODES = 1 << 20;
let budget = 0;
/** Whether the value `scan` walked needs devalue. */
let needsTags = false;
/** The objects above the one `scan` walks, by depth (a cycle is one of them met again). @type {object[]} */
const above = [];

/**
 * Walks `value` once, as JSON would: sets `needsTags` when JSON would change it, throws on a
 * function, a symbol or a cycle. A plain recursion over module state: it runs on every message
 * (a 1 MiB context's 500 messages, a tool_call's handful of keys).
 * @param {unknown} v @param {number} depth
 */
function scan(v, depth) {
  switch (typeof v) {
    case "string": case "boolean": return;
    case "number": if (v === 0 ? 1 / v < 0 : !Number.isFinite(v)) needsTags = true; return;
    case "undefined": case "bigint": needsTags = true; return;
    case "object": break;
    default: throw new TypeError(`a ${typeof v} could not be cloned: it is not data`);
  }
  if (v === null || depth > SCAN_DEPTH) return;
  if (--budget < 0) { needsTags = true; return; }
  for (let i = 0; i < depth; i++) if (above[i] === v) throw new TypeError("the value contains a cycle");
  above[depth] = v;
  // An array's hole reads as undefined: tagged, so it stays a hole.
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) scan(v[i], depth + 1);
    return;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto === Object.prototype || proto === null) {
    for (const key in v) scan(/** @type {Record<string, unknown>} */ (v)[key], depth + 1);
    return;
  }
  needsTags = true;
  if (v instanceof Set) for (const x of v) scan(x, depth + 1);
  else if (v instanceof Map) for (const [k, x] of v) { scan(k, depth + 1); scan(x, depth + 1); }
  else if (!(v instanceof Date)) for (const key of Object.keys(v)) scan(/** @type {Record<string, unknown>} */ (v)[key], depth + 1);
}

/**
 * devalue's stringify, held to what the frame carries: `Date`, `Set`, `Map` and arrays as
 * themselves, any other object as its own enumerable keys. An own `__proto__` key (devalue
 * refuses one) is written `\0__proto__`, and a key starting with NUL gets one more, so the
 * reader rebuilds it as the own data property JSON.parse and structured clone make: the host's key
 * gate then refuses it by its path, as in every mode.
 * @type {Partial<import("devalue").StringifyOperations>}
 */
const STRINGIFY = {
  tagOf: (v) => (v instanceof Date ? "Date" : v instanceof Set ? "Set" : v instanceof Map ? "Map" : Array.isArray(v) ? "Array" : "Object"),
  shapeOf: (v) => ({ kind: "plain", keys: Object.keys(v).map((k) => (k === "__proto__" || k.charCodeAt(0) === 0 ? `\0${k}` : k)) }),
  get: (v, key) => v[typeof key === "string" && key.charCodeAt(0) === 0 ? key.slice(1) : key],
};
/** @type {Partial<import("devalue").ParseOperations>} */
const PARSE = {
  set: (target, key, value) => {
    if (typeof key === "string" && key.charCodeAt(0) === 0) Object.defineProperty(target, key.slice(1), { value, writable: true, enumerable: true, configurable: true });
    else target[key] = value;
  },
};

/**
 * The value of a frame's body. Throws on bytes that are neither JSON nor devalue's text the frame
 * carries (the reader catches it). Like V8's deserialiser, both make own data properties only and
 * call no setter (an own `__proto__` key stays a key), so the value is harmless until something
 * walks it. A devalue body is checked before a node of it is built (`checkTagged`): only the types
 * above, no cycle, no reference outside it, at most `maxDepth` levels (so building it cannot
 * overflow the stack), a sparse array no longer than `maxFrameBytes` (a walk of it costs what a
 * dense one the frame could hold costs), a Date's or BigInt's text short.
 * @param {Uint8Array} body @param {{ maxDepth: number; maxFrameBytes: number }} [bounds] @returns {unknown}
 */
export function decodeFrameBody(body, bounds = { maxDepth: Infinity, maxFrameBytes: Infinity }) {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (bytes[0] !== 0x7e) return JSON.parse(bytes.toString("utf8"));
  const nodes = JSON.parse(bytes.toString("utf8", 1));
  checkTagged(nodes, bounds.maxDepth, bounds.maxFrameBytes);
  return unflatten(nodes, undefined, { operations: PARSE });
}

/** devalue's references below 0 that stand for a value (undefined, a hole, NaN, Infinity, -Infinity, -0), and its sparse array's mark. */
const LOWEST_REF = -6;
const SPARSE = -7;
/** Characters of a Date's text (an ISO string is at most 27) and of a BigInt's (its digits: parsing costs their square). */
const MAX_DATE_CHARS = 32;
const MAX_BIGINT_CHARS = 1024;

/**
 * Refuses a devalue node list the frame does not carry; see `decodeFrameBody`. One depth-first
 * walk without recursion from node 0, each node once (a value shared N times costs one visit).
 * @param {unknown} nodes @param {number} maxDepth @param {number} maxLength
 */
function checkTagged(nodes, maxDepth, maxLength) {
  if (typeof nodes === "number") return; // a lone undefined, NaN, …: devalue takes only those
  if (!Array.isArray(nodes) || nodes.length === 0) throw new Error("a tagged body that is not a list of nodes");
  const n = nodes.length;
  // 0 unseen, 1 on the path being walked, 2 done; `depth` holds a done node's levels.
  const state = new Uint8Array(n);
  const depth = new Uint32Array(n);
  /** @type {number[]} */
  const stack = [0];
  while (stack.length > 0) {
    const top = /** @type {number} */ (stack.pop());
    if (top < 0) {
      const i = ~top;
      let deepest = 0;
      for (const c of children(nodes[i], maxLength)) if (c >= 0 && depth[c] > deepest) deepest = depth[c];
      depth[i] = isObjectNode(nodes[i]) ? deepest + 1 : 0;
      if (depth[i] > maxDepth) throw new Error(`a value nested deeper than ${maxDepth} levels`);
      state[i] = 2;
      continue;
    }
    if (state[top] !== 0) continue;
    state[top] = 1;
    stack.push(~top);
    for (const c of children(nodes[top], maxLength)) {
      if (!Number.isInteger(c) || c < LOWEST_REF || c >= n) throw new Error("a reference outside the body");
      if (c < 0) continue;
      if (state[c] === 1) throw new Error("the value contains a cycle");
      if (state[c] === 0) stack.push(c);
    }
  }
}

/** Whether node `v` builds an object (a level), not a primitive. @param {unknown} v */
function isObjectNode(v) {
  return typeof v === "object" && v !== null && !(Array.isArray(v) && v[0] === "BigInt");
}

/**
 * The references of node `v`, after its own shape is checked: a primitive has none; a tag is one
 * of the frame's types. Unchecked: `checkTagged` refuses a reference that is not a node's index.
 * @param {unknown} v @param {number} maxLength @returns {number[]}
 */
function children(v, maxLength) {
  if (typeof v !== "object" || v === null) return [];
  if (!Array.isArray(v)) return Object.values(v);
  const head = v[0];
  if (typeof head === "string") {
    switch (head) {
      case "Set": case "Map": return v.slice(1);
      case "Date": if (v.length === 2 && typeof v[1] === "string" && v[1].length <= MAX_DATE_CHARS) return []; break;
      case "BigInt": if (v.length === 2 && typeof v[1] === "string" && v[1].length <= MAX_BIGINT_CHARS) return []; break;
      default: throw new Error(`a value of type ${JSON.stringify(head.slice(0, 64))}, which the wire does not carry`);
    }
    throw new Error(`a ${head} out of shape`);
  }
  if (head === SPARSE) {
    if (!Number.isInteger(v[1]) || v[1] < 0 || v[1] > maxLength) throw new Error("a sparse array longer than a frame");
    return v.filter((_, i) => i >= 3 && i % 2 === 1);
  }
  return v;
}
