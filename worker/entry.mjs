// The hook runtime: one hook module per worker thread or child process. Plain JS on purpose: vitest
// and the built package both run it unchanged. Imported by the entry of its mode (entry-thread.mjs,
// entry-process.mjs) once that installed its link; it loads the hook with jiti, runs the factory,
// then serves the host's requests over the link. See src/protocol.ts.
/** @import { HostMessage, WorkerBoot, WorkerControl, LoadSpec, ContextSnapshot } from "../src/protocol.js" */
import { pathToFileURL } from "node:url";
import * as Comlink from "comlink";
import nodeEndpoint from "comlink/dist/esm/node-adapter.mjs";
import { Registrations, createHookAPI } from "./api.mjs";
import { callSync, currentRequest, refuseUnsendable, send, settleCall, setSyncChannel, toWireError } from "./channel.mjs";
import { createCommandContext, createContext, createSetupSessionManager, pendingSetups } from "./context.mjs";
import { runHandlers } from "./run.mjs";
import { factoryOf } from "./factory.mjs";
import { hostModuleObjects } from "./host-modules.mjs";
import { withAccessDetail } from "./access.mjs";
import { serveRenders } from "./render.mjs";
import { boot as booted, flushTurn, mode, onMessage, onUnsendable, processControl, queue } from "./transport.mjs";
import { LIMITS, METHOD } from "./wire.mjs";

const boot = /** @type {WorkerBoot} */ (booted);
const { control, sync, syncState, render, renderState } = boot;
// Why: hook code can read `workerData`; the ports are the runtime's, not the hook's.
delete (/** @type {any} */ (boot)).control;
delete (/** @type {any} */ (boot)).sync;
delete (/** @type {any} */ (boot)).syncState;
delete (/** @type {any} */ (boot)).render;
delete (/** @type {any} */ (boot)).renderState;
if (mode === "worker") setSyncChannel(sync, syncState);
const registry = new Registrations();
/** Requests the host gave up on (timeout): their results are not sent. @type {Set<number>} */
const cancelled = new Set();
/** Live AbortControllers for AbortSignal fields of in-flight events. @type {Map<number, Map<string, AbortController>>} */
const signals = new Map();

/** @param {string} specifier @param {Record<string, object>} [virtualModules] host modules (worker/host-modules.mjs) */
async function importHook(specifier, virtualModules = {}) {
  const hasHostModules = Object.keys(virtualModules).length > 0;
  if (/\.(mjs|cjs|js)$/.test(specifier)) {
    try {
      return await import(pathToFileURL(specifier).href);
    } catch (err) {
      // A `.js` file in a CommonJS or TS-flavoured project: let jiti try before giving up.
      // A host module is only known to jiti: a native import of one is not found.
      const hostModuleMissing = hasHostModules && /** @type {{ code?: unknown }} */ (err)?.code === "ERR_MODULE_NOT_FOUND";
      if (!(err instanceof SyntaxError) && !hostModuleMissing) throw err;
    }
  }
  const { createJiti } = await import("jiti");
  const jiti = createJiti(import.meta.url, { fsCache: false, moduleCache: false, interopDefault: true, transform: hostTransform, virtualModules });
  return jiti.import(specifier);
}

/**
 * Why the host transforms: a cache folder the hook could write would let it change the code of
 * every hook loaded after it. The host caches by the hash of what is sent here, so a hook only
 * ever gets the transform of source it already has.
 * @param {import("jiti").TransformOptions} opts
 */
function hostTransform(opts) {
  const { source, filename = "", ts, retainLines, interopDefault, async, jsx, babel } = opts;
  /** @type {Record<string, unknown>} */
  const request = { source, filename, ts, retainLines, interopDefault, async, jsx: jsx === undefined ? undefined : Boolean(jsx) };
  if (babel) request.babel = Object.fromEntries(["sourceFileName", "sourceMaps"].filter((k) => babel[k] !== undefined).map((k) => [k, babel[k]]));
  for (const key of Object.keys(request)) if (request[key] === undefined) delete request[key];
  return /** @type {{ code: string }} */ (callSync(METHOD.transform, [request], LIMITS.transformTimeoutMs));
}

/** @type {WorkerControl} */
const controlApi = {
  async load(/** @type {LoadSpec} */ spec) {
    registry.initialized = spec.initialized;
    try {
      const mod = /** @type {any} */ (await importHook(spec.resolvedPath, hostModuleObjects(spec.hostModules ?? {})));
      const factory = factoryOf(mod);
      if (typeof factory !== "function") return { ok: false, e: { message: "Hook must export a default function" } };
      await factory(createHookAPI(registry, spec.cwd));
      registry.loaded = true;
      return { ok: true, manifest: registry.manifest() };
    } catch (err) {
      return { ok: false, e: toWireError(withAccessDetail(err)) };
    }
  },
};
if (mode === "worker") {
  Comlink.expose(controlApi, nodeEndpoint(/** @type {any} */ (control)));
  serveRenders(render, renderState, registry.renderers, () => createContext({ hasUI: false, cwd: "", model: undefined }).ui.theme);
} else {
  Comlink.expose(controlApi, /** @type {any} */ (processControl));
}

/** Requests received in this turn, with whether each has settled; acked together at the turn's end. @type {Map<number, boolean>} */
const turn = new Map();
let turnScheduled = false;
/** Whether results go out at the turn's end (a batch came in) or at once (a lone request: lowest latency). */
let batching = false;

/**
 * Why one setImmediate per turn: a handler that finishes on microtasks alone is answered by its
 * result in this turn (no ack needed), so the common case costs one message each way; the rest
 * get an ack now. Everything the turn produced goes out as one message.
 */
function endTurn() {
  turnScheduled = false;
  for (const [id, settled] of turn) if (!settled && !cancelled.has(id)) queue({ t: "ack", id });
  turn.clear();
  batching = false;
  flushTurn();
}

/** @param {number} id @param {() => Promise<unknown>} work */
function serve(id, work) {
  turn.set(id, false);
  if (!turnScheduled) { turnScheduled = true; setImmediate(endTurn); }
  currentRequest.run(id, work).then(
    (v) => finish(id, { t: "res", id, ok: true, v }),
    (err) => finish(id, { t: "res", id, ok: false, e: toWireError(err) }),
  );
}

/** @param {number} id @param {import("../src/protocol.js").ResultMessage} message */
function finish(id, message) {
  if (turn.has(id)) turn.set(id, true);
  signals.delete(id);
  if (cancelled.delete(id)) return;
  try {
    // An emit reply holds the result 3 levels down ({ steps: [{ r }] }).
    if (message.ok && refuseUnsendable(message.v, { id }, 3)) return;
    if (batching) queue(message);
    else send(message);
  } catch (err) {
    unsendableResult(message, err);
  }
}

/** @param {any} message @param {unknown} err */
function unsendableResult(message, err) {
  if (message?.t !== "res") return;
  send({ t: "res", id: message.id, ok: false, e: { message: `the result could not be sent to the host: ${toWireError(err).message}`, name: "DataCloneError" } });
}
onUnsendable(unsendableResult);

/** @param {number} id @param {Record<string, unknown>} event @param {string[] | undefined} fields @param {string[] | undefined} [aborted] */
function reviveSignals(id, event, fields, aborted) {
  if (!fields?.length) return event;
  const controllers = new Map();
  const out = { ...event };
  for (const field of fields) {
    const controller = new AbortController();
    controllers.set(field, controller);
    if (aborted?.includes(field)) controller.abort();
    out[field] = controller.signal;
  }
  signals.set(id, controllers);
  return out;
}

/** The last context snapshot the host sent; it sends one only when it changed. @type {ContextSnapshot} */
let lastSnapshot = { hasUI: false, cwd: "", model: undefined };
/** @param {ContextSnapshot | undefined} snap */
const ctxOf = (snap) => createContext(snap ? (lastSnapshot = snap) : lastSnapshot);

onMessage((/** @type {HostMessage | import("../src/protocol.js").Batch<HostMessage>} */ msg) => {
  if (msg.t === "batch") {
    batching = true;
    if (!turnScheduled) { turnScheduled = true; setImmediate(endTurn); }
    for (const one of msg.m) handle(one);
    return;
  }
  handle(msg);
});

/** @param {HostMessage} msg */
function handle(msg) {
  switch (msg.t) {
    case "emit": {
      const handlers = registry.handlers.get(msg.event.type) ?? [];
      const event = reviveSignals(msg.id, msg.event, msg.signals, msg.aborted);
      // Why not cached: a handler called directly brings its own ctx, which the host's cache of
      // what this worker holds does not know about; the next emit must not run under it.
      const ctx = msg.plan.only === undefined ? ctxOf(msg.ctx) : createContext(msg.ctx ?? lastSnapshot);
      serve(msg.id, () => runHandlers(handlers, event, msg.plan, ctx));
      return;
    }
    case "command": {
      const command = registry.commands.get(msg.name);
      serve(msg.id, async () => {
        if (!command) throw new Error(`this hook has no command "${msg.name}"`);
        await command.handler(msg.args, createCommandContext(msg.ctx));
      });
      return;
    }
    case "setup": {
      const setup = pendingSetups.shift();
      serve(msg.id, async () => {
        if (!setup) throw new Error("no newSession setup callback is waiting");
        await setup(createSetupSessionManager());
      });
      return;
    }
    case "ret": settleCall(msg); return;
    case "ping": send({ t: "pong", id: msg.id }); return;
    case "cancel": {
      // A handler that never settles never removes its id: keep the set bounded.
      if (cancelled.size >= 10_000) cancelled.delete(/** @type {number} */ (cancelled.values().next().value));
      cancelled.add(msg.id);
      signals.get(msg.id)?.forEach((c) => c.abort(new Error("hook deadline passed")));
      signals.delete(msg.id);
      return;
    }
    case "abort": signals.get(msg.id)?.get(msg.field)?.abort(); return;
    case "initialized": registry.initialized = true; return;
    default: return;
  }
}
