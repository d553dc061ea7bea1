// The hook runtime: one hook module per worker thread or child process. Plain JS on purpose: vitest
// and the built package both run it unchanged. Imported by the entry of its mode (entry-thread.mjs,
// entry-process.mjs) once that installed its link; it loads the hook (worker/typescript.mjs), runs the factory,
// then serves the host's requests over the link. See src/contract/protocol.ts.
/** @import { HostMessage, WorkerBoot, WorkerControl, LoadSpec, ContextSnapshot } from "../src/contract/protocol.js" */
import { pathToFileURL } from "node:url";
import * as Comlink from "comlink";
import nodeEndpoint from "comlink/dist/esm/node-adapter.mjs";
import { Registrations, createHookAPI } from "./api.mjs";
import { callSync, post, refuseUnsendable, send, settleCall, setSyncChannel, startRequest, toWireError } from "./channel.mjs";
import { createCommandContext, createContext, createSetupSessionManager, pendingSetups, runnerTheme } from "./context.mjs";
import { runHandlers } from "./run.mjs";
import { plain } from "./edits.mjs";
import { factoryOf } from "./factory.mjs";
import { hostModuleObjects } from "./host-modules.mjs";
import { deniedSoFar, watchDenials, withAccessDetail } from "./access.mjs";
import { cut } from "./describe.mjs";
import { importWithJiti } from "./typescript.mjs";
import { nativeImport, useImport } from "./native-import.mjs";
import { agentPackagesLoaded, useAgentBundle } from "./agent-packages.mjs";
import { serveRenders } from "./render.mjs";
import { deliver } from "./bus.mjs";
import { boot as booted, flushTurn, mode, onMessage, onUnsendable, processControl, queue } from "./transport.mjs";
import { LIMITS, METHOD, PLANS } from "./wire.mjs";

const boot = /** @type {WorkerBoot} */ (booted);
const { control, sync, syncState, render, renderState } = boot;
/** What worker/entry-thread-cached.cjs left: whether V8 took the code cache, or how to make one. @type {import("../src/contract/protocol.js").RuntimeCodeCache | undefined} */
const codeCache = /** @type {any} */ (boot).codeCache;
// Why: hook code can read `workerData`; the ports are the runtime's, not the hook's.
delete (/** @type {any} */ (boot)).control;
delete (/** @type {any} */ (boot)).sync;
delete (/** @type {any} */ (boot)).syncState;
delete (/** @type {any} */ (boot)).render;
delete (/** @type {any} */ (boot)).renderState;
delete (/** @type {any} */ (boot)).codeCache;
useImport(codeCache?.importModule);
/** The load reply's word on the code cache: only when one was given. */
const cacheVerdict = codeCache?.rejected === undefined ? {} : { codeCache: /** @type {"accepted" | "rejected"} */ (codeCache.rejected ? "rejected" : "accepted") };
if (mode === "worker") setSyncChannel(sync, syncState);
// Each read the permission model denies the module is reported once, naming the grant (worker/access.mjs).
watchDenials((permission, resource) => post(METHOD.denied, [permission, resource]));
const registry = new Registrations();
/** Requests the host gave up on (timeout): their results are not sent. @type {Set<number>} */
const cancelled = new Set();
/** Live AbortControllers for AbortSignal fields of in-flight events. @type {Map<number, Map<string, AbortController>>} */
const signals = new Map();

/**
 * @param {string} specifier @param {Record<string, object>} [virtualModules] host modules (worker/host-modules.mjs)
 * @param {import("../src/contract/protocol.js").AgentModules} [agentModules] the agent's own package names as the agent resolves them
 */
async function importHook(specifier, virtualModules = {}, agentModules) {
  const hasHostModules = Object.keys(virtualModules).length > 0;
  if (/\.(mjs|cjs|js)$/.test(specifier)) {
    try {
      return await nativeImport(pathToFileURL(specifier).href);
    } catch (err) {
      // A `.js` file in a CommonJS or TS-flavoured project: let jiti try before giving up.
      // A host module is only known to jiti: a native import of one is not found.
      // So is a name the agent resolves to its own copy (agentModules: pi's peer packages).
      const aliasMissing = (hasHostModules || agentModules !== undefined) && /** @type {{ code?: unknown }} */ (err)?.code === "ERR_MODULE_NOT_FOUND";
      if (!(err instanceof SyntaxError) && !aliasMissing) throw err;
    }
  }
  // The agent's names go to the agent's files, which Bun loads itself; the module's own files are
  // evaluated by jiti (never by Bun's own import, which resolves those names elsewhere). On Node
  // (process and sandbox isolation) jiti evaluates the agent's files too: Node cannot import them
  // natively ("Unknown file extension .ts"), and those written for Node load as before the table.
  const onBun = "Bun" in globalThis;
  const agent = agentModules ? { alias: agentModules.alias, ...(onBun ? { nativeModules: agentModules.native, tryNative: false } : {}) } : {};
  return importWithJiti(specifier, { fsCache: false, moduleCache: false, interopDefault: true, transform: hostTransform, virtualModules, ...agent }, agentModules?.exports);
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
    useAgentBundle(spec.agentBundle);
    try {
      const mod = /** @type {any} */ (await importHook(spec.resolvedPath, hostModuleObjects(spec.hostModules ?? {}), spec.agentModules));
      const factory = factoryOf(mod);
      if (typeof factory !== "function") return { ok: false, e: { message: "Hook must export a default function" }, ...cacheVerdict };
      await factory(createHookAPI(registry, spec.cwd, spec.agent));
      registry.loaded = true;
      agentPackagesLoaded();
      // The host's own module loaded (src/isolation/code-cache.ts): the runtime's code, with every function compiled so far.
      if (codeCache?.produce) return { ok: true, manifest: registry.manifest(), made: codeCache.produce() };
      return { ok: true, manifest: registry.manifest(), ...cacheVerdict };
    } catch (err) {
      const e = toWireError(withAccessDetail(err));
      // A module that reads several files at start: every denial so far, not only the one that stopped it.
      const denied = deniedSoFar();
      if (denied?.includes(", ")) e.message = cut(`${e.message} (every access denied while loading: ${denied})`, LIMITS.maxText);
      return { ok: false, e, ...cacheVerdict };
    }
  },
};
if (mode === "worker") {
  Comlink.expose(controlApi, nodeEndpoint(/** @type {any} */ (control)));
  serveRenders(render, renderState, registry.renderers, () => runnerTheme, registry.tools);
} else {
  Comlink.expose(controlApi, /** @type {any} */ (processControl));
}

/** Whether results wait for the turn's end (a batch came in: its results go out as one message) or go out at once (a lone request: lowest latency). */
let batching = false;

/** The end of a turn that began with a batch: everything its requests answered goes out as one message. */
function endTurn() {
  batching = false;
  flushTurn();
}

/**
 * Run a request's work; its result or error goes back when it settles. Liveness needs nothing
 * more: a worker that is slow to answer is pinged by the host, and a pong proves its loop is free.
 * @param {import("./channel.mjs").Request} req @param {() => Promise<unknown>} work
 */
function serve(req, work) {
  const id = req.id;
  work().then(
    // Why no `v` key for nothing: one key less to clone on the commonest reply.
    (v) => finish(req, v === undefined ? { t: "res", id, ok: true } : { t: "res", id, ok: true, v }),
    (err) => finish(req, { t: "res", id, ok: false, e: toWireError(err) }),
  );
}

/**
 * Serve a request for one of the module's registrations (a command, tool or shortcut): `run` with
 * it, or an error saying the module has none by that name.
 * @template T
 * @param {number} id @param {T | undefined} entry @param {string} lacks
 * @param {(entry: T, req: import("./channel.mjs").Request) => unknown} run
 */
function serveOwn(id, entry, lacks, run) {
  const req = startRequest(id);
  serve(req, async () => {
    if (entry === undefined) throw new Error(lacks);
    return run(entry, req);
  });
}

/** @param {import("./channel.mjs").Request} req @param {import("../src/contract/protocol.js").ResultMessage} message */
function finish(req, message) {
  const id = req.id;
  req.done = true;
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
/** @param {ContextSnapshot | undefined} snap @param {import("./channel.mjs").Request} req */
const ctxOf = (snap, req) => createContext(snap ? (lastSnapshot = snap) : lastSnapshot, req);

onMessage((/** @type {HostMessage | import("../src/contract/protocol.js").Batch<HostMessage>} */ msg) => {
  if (msg.t === "batch") {
    if (!batching) { batching = true; setImmediate(endTurn); }
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
      const req = startRequest(msg.id);
      const only = msg.only;
      const ctx = only === undefined ? ctxOf(msg.ctx, req) : createContext(msg.ctx ?? lastSnapshot, req);
      const plan = only === undefined ? PLANS[msg.plan] : { ...PLANS[msg.plan], only };
      serve(req, () => runHandlers(handlers, event, plan, ctx));
      return;
    }
    case "command":
      serveOwn(msg.id, registry.commands.get(msg.name), `this hook has no command "${msg.name}"`, async (command, req) => {
        await command.handler(msg.args, createCommandContext(msg.ctx, req));
      });
      return;
    case "tool": {
      const { signal } = reviveSignals(msg.id, {}, msg.signals, msg.aborted);
      const update = msg.update;
      serveOwn(msg.id, registry.tools.get(msg.name), `this module has no tool "${msg.name}"`, (tool, req) => {
        const onUpdate = (/** @type {unknown} */ partial) => post(METHOD.toolUpdate, plain([update, partial]));
        return tool.execute(msg.toolCallId, msg.params, signal, onUpdate, createContext(msg.ctx, req));
      });
      return;
    }
    case "shortcut":
      serveOwn(msg.id, registry.shortcuts.get(msg.key), `this module has no shortcut "${msg.key}"`, async (shortcut, req) => {
        await shortcut.handler(createContext(msg.ctx, req));
      });
      return;
    case "complete": {
      const command = registry.commands.get(msg.name);
      serve(startRequest(msg.id), async () => {
        if (!command?.getArgumentCompletions) throw new Error(`this module has no completions for "${msg.name}"`);
        return command.getArgumentCompletions(msg.prefix);
      });
      return;
    }
    case "setup": {
      const setup = pendingSetups.shift();
      serve(startRequest(msg.id), async () => {
        if (!setup) throw new Error("no newSession setup callback is waiting");
        await setup(createSetupSessionManager());
      });
      return;
    }
    case "ret": settleCall(msg); return;
    case "ping": send({ t: "pong", id: msg.id }); return;
    case "cancel": {
      // A handler that never settles never removes its id: keep the set bounded.
      if (cancelled.size >= LIMITS.maxCancelled) cancelled.delete(/** @type {number} */ (cancelled.values().next().value));
      cancelled.add(msg.id);
      signals.get(msg.id)?.forEach((c) => c.abort(new Error("hook deadline passed")));
      signals.delete(msg.id);
      return;
    }
    case "abort": signals.get(msg.id)?.get(msg.field)?.abort(); return;
    case "initialized": registry.initialized = true; return;
    case "bus": deliver(msg.channel, msg.data); return;
    default: return;
  }
}
