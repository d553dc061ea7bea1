// The worker's side of the wire: posting results, bridge calls to the host, and synchronous
// calls answered through a SharedArrayBuffer. See src/contract/protocol.ts for every message shape and
// src/bridge/methods.ts for every method.
/** @import { WorkerMessage, WireError, BridgeReply } from "../src/contract/protocol.js" */
/** @import { CallMethod, PostMethod, SyncMethod } from "./wire.mjs" */
import { DEFAULTS, METHOD, measure } from "./wire.mjs";
import { awaitSyncReply, boot, send as post_ } from "./transport.mjs";

/**
 * A host request this worker runs (an emit, a command, a setup). The contexts made for it name
 * it in their calls: the host pauses its deadline for a prompt and checks its kind for
 * command-only methods. Why not AsyncLocalStorage: on Node 20 it turns on promise hooks, a cost
 * on every promise a hook makes.
 */
export class Request {
  /** @param {number} id */
  constructor(id) {
    this.id = id;
    /** Settled here (its result was sent, or dropped after the host gave up on it). */
    this.done = false;
  }
}

/** The request started last. @type {Request | undefined} */
let newest;

/** A request the host sent starts running. @param {number} id */
export function startRequest(id) {
  return (newest = new Request(id));
}

/**
 * The request a call from `req`'s context names: `req` while it runs. A context kept past its
 * request names the newest request if that still runs (what the hook is busy with when requests
 * come one at a time); with none, nothing is paused. The host checks whatever is named: it must
 * be a request of this hook that is still pending.
 * @param {Request} req
 */
export function requestOf(req) {
  if (!req.done) return req.id;
  return newest && !newest.done ? newest.id : undefined;
}

/** @param {WorkerMessage} message */
export function send(message) {
  post_(message);
}

export { toWireError } from "./describe.mjs";

/** @param {WireError} e */
function fromWireError(e) {
  const err = new Error(e.message);
  if (e.name) err.name = e.name;
  if (e.code) /** @type {any} */ (err).code = e.code;
  return err;
}

let nextCallId = 1;
/** @type {Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>} */
const pendingCalls = new Map();

/**
 * Ask the host to do something and wait for the answer. `rid` names the request the call belongs
 * to (a context's calls, see `requestOf`): a prompt pauses its deadline until the answer comes back.
 * @param {CallMethod} m @param {unknown[]} a @param {number} [rid]
 */
export function call(m, a, rid) {
  a = withoutTrailingUndefined(a);
  const id = nextCallId++;
  const refused = refuseUnsendable(a, { m });
  if (refused) return Promise.reject(new Error(`hookbox: the arguments to ${m} were not sent: ${refused}`));
  return new Promise((resolve, reject) => {
    pendingCalls.set(id, { resolve, reject });
    send(rid === undefined ? { t: "call", id, m, a } : { t: "call", id, rid, m, a });
  });
}

/** @param {BridgeReply} msg */
export function settleCall(msg) {
  const pending = pendingCalls.get(msg.id);
  if (!pending) return;
  pendingCalls.delete(msg.id);
  if (msg.ok) pending.resolve(msg.v);
  else pending.reject(fromWireError(msg.e ?? { message: "host call failed" }));
}

// No boot when the host imports this module for in-process hooks.
const maxBytes = boot?.maxMessageBytes ?? Infinity;

/**
 * Why `value` cannot be posted (over the size limit, or not JSON data: too deep, a cycle, a
 * BigInt), the host told; undefined when it can. The host checks again: this only spares the wire.
 * @param {unknown} value @param {{ id?: number; m?: string }} what @param {number} [depth] levels above the value in its message
 */
export function refuseUnsendable(value, what, depth = 0) {
  const { bytes, issue } = measure(value, maxBytes, depth);
  if (issue) {
    send(/** @type {WorkerMessage} */ ({ t: "invalid", ...what, issue }));
    return issue;
  }
  if (bytes <= maxBytes) return undefined;
  send(/** @type {WorkerMessage} */ ({ t: "big", ...what, bytes }));
  return `${bytes} bytes is over the size limit (maxMessageBytes ${maxBytes})`;
}

/**
 * The arguments without the omitted optional ones at the end, so the host sees one shape of a call
 * (`notify(m)` and `notify(m, undefined)` alike). An `undefined` elsewhere crosses as `undefined` in
 * every mode (the frames of worker/wire.mjs keep it, as structured clone does).
 * @param {unknown[]} a
 */
function withoutTrailingUndefined(a) {
  let n = a.length;
  while (n > 0 && a[n - 1] === undefined) n--;
  return n === a.length ? a : a.slice(0, n);
}

/** Fire and forget: the host applies these in the order they were posted. @param {PostMethod} m @param {unknown[]} a */
export function post(m, a) {
  a = withoutTrailingUndefined(a);
  if (refuseUnsendable(a, { m })) return;
  send({ t: "post", m, a });
  endsTurnWithEffects();
}

let turnMarked = false;
/**
 * The host holds this turn's posts and agent setters' effects until the worker's next message
 * (src/isolation/channel.ts), so a handler's effects and its answer reach the agent together: when
 * nothing else goes out by the end of the turn, `turn` says it ended.
 */
function endsTurnWithEffects() {
  if (turnMarked) return;
  turnMarked = true;
  setImmediate(() => {
    turnMarked = false;
    send({ t: "turn" });
  });
}

/** @type {{ port: import("node:worker_threads").MessagePort; state: Int32Array } | undefined} */
let shared;
/** Worker mode: answers come on `syncPort`, signalled through `buffer`. @param {import("node:worker_threads").MessagePort} syncPort @param {SharedArrayBuffer} buffer */
export function setSyncChannel(syncPort, buffer) {
  shared = { port: syncPort, state: new Int32Array(buffer) };
}
const syncTimeoutMs = boot?.syncTimeoutMs ?? DEFAULTS.syncTimeoutMs;

/** While a renderer runs, sync requests go to the render port (the host waits there). @type {((message: any) => void) | undefined} */
let syncRoute;
/** @param {((message: any) => void) | undefined} route */
export function setSyncRoute(route) {
  syncRoute = route;
}

let nextSyncId = 1;
/**
 * A synchronous call into the host: post the request, then block this thread (never the host)
 * until the host's answer is there (shared buffer and port for a worker, a pipe for a process).
 * @param {SyncMethod} m @param {unknown[]} a @param {number} [timeoutMs] default: the `syncTimeoutMs` option
 */
export function callSync(m, a, timeoutMs = syncTimeoutMs) {
  if (!boot) throw new Error("hookbox: synchronous host calls are only available inside a hook sandbox");
  a = withoutTrailingUndefined(a);
  const refused = refuseUnsendable(a, { m });
  if (refused) throw new Error(`hookbox: the arguments to ${m}() were not sent: ${refused}`);
  const id = nextSyncId++;
  if (shared) Atomics.store(shared.state, 0, 0);
  if (syncRoute) syncRoute({ kind: "sync", t: "sync", id, m, a });
  else send({ t: "sync", id, m, a });
  const reply = awaitSyncReply(id, timeoutMs, shared);
  if (m === METHOD.agentSet || (m === METHOD.scopedSync && a[1] === METHOD.agentSet)) endsTurnWithEffects();
  if (!reply) throw new Error(`hookbox: the host did not answer ${m}() within ${timeoutMs} ms`);
  if (reply.ok) return reply.v;
  throw fromWireError(reply.e ?? { message: `host call ${m} failed` });
}
