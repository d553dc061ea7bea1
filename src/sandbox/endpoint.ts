/**
 * Where a hook runs: a worker thread (default) or a child process (`isolation: "process"`). Both
 * carry the same protocol; this module hides the difference from the channel and the sandbox.
 * - worker: parentPort, a comlink control port, shared buffers for synchronous answers.
 * - process: IPC with structured-clone serialisation, the control plane multiplexed on it, and a
 *   pipe the child reads synchronously for synchronous answers. A process has its own heap, so a
 *   hook that exhausts memory or posts a giant message loses only its own process.
 */
import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { serialize } from "node:v8";
import { MessageChannel, Worker } from "node:worker_threads";
import type { Endpoint } from "comlink";
import nodeEndpoint from "comlink/dist/esm/node-adapter.mjs";
import type { SyncReply, WorkerBoot } from "../protocol.js";
import { RenderClient } from "./render.js";

export interface EndpointDeath {
  code: number | null;
  signal?: string | null;
  /** An uncaught exception ended it (worker 'error'); `error` is what was thrown, maybe `undefined`. */
  errored?: boolean;
  error?: unknown;
  /** What the process printed last on stderr (process mode), to name an out-of-memory death. */
  stderrTail?: string;
}

export interface HookEndpoint {
  readonly kind: "worker" | "process";
  post(message: Record<string, unknown>): void;
  onMessage(handler: (raw: unknown) => void): void;
  answerSync(reply: SyncReply): void;
  /** The comlink endpoint of the control plane (load). */
  readonly control: Endpoint;
  /** The load is over: release the control plane. */
  closeControl(): void;
  /** Synchronous rendering; worker mode only. */
  readonly render: RenderClient | undefined;
  ref(): void;
  unref(): void;
  terminate(): Promise<void>;
  /** Called once, when the hook's thread or process is gone. */
  onDeath(handler: (death: EndpointDeath) => void): void;
  /** Resolves once every port, pipe and handle of this endpoint is closed. */
  readonly released: Promise<void>;
}

export interface EndpointSpec {
  entry: URL;
  boot: Omit<WorkerBoot, "control" | "sync" | "syncState" | "render" | "renderState">;
  env: Record<string, string | undefined>;
  execArgv: string[] | undefined;
  resourceLimits: { maxOldGenerationSizeMb?: number; maxYoungGenerationSizeMb?: number; stackSizeMb?: number };
  renderTimeoutMs: number;
}

export function workerEndpoint(spec: EndpointSpec): HookEndpoint {
  const control = new MessageChannel();
  const sync = new MessageChannel();
  const render = new MessageChannel();
  const syncState = new SharedArrayBuffer(4);
  const renderState = new SharedArrayBuffer(4);
  const boot: WorkerBoot = { ...spec.boot, control: control.port2, sync: sync.port2, syncState, render: render.port2, renderState };
  const worker = new Worker(spec.entry, {
    workerData: boot,
    transferList: [control.port2, sync.port2, render.port2],
    resourceLimits: spec.resourceLimits,
    env: spec.env,
    ...(spec.execArgv ? { execArgv: spec.execArgv } : {}),
  });
  worker.unref();
  const syncView = new Int32Array(syncState);
  const released = Promise.all([once(control.port1, "close"), once(sync.port1, "close"), once(render.port1, "close")]).then(() => {});
  let error: unknown;
  let errored = false;
  worker.on("error", (err) => { errored = true; error = err; });
  const deathHandlers: Array<(d: EndpointDeath) => void> = [];
  worker.once("exit", (code) => {
    for (const port of [control.port1, sync.port1, render.port1]) port.close();
    for (const h of deathHandlers) h({ code, errored, error });
  });
  return {
    kind: "worker",
    post: (message) => worker.postMessage(message),
    onMessage: (handler) => { worker.on("message", handler); },
    answerSync(reply) {
      try {
        sync.port1.postMessage(reply);
      } catch (err) {
        sync.port1.postMessage({ id: reply.id, ok: false, e: { message: `the answer is not plain data: ${(err as Error).message}` } });
      }
      // Why this order: the answer is on the port before the worker wakes to read it.
      Atomics.store(syncView, 0, 1);
      Atomics.notify(syncView, 0);
    },
    control: nodeEndpoint(control.port1),
    closeControl: () => control.port1.close(),
    render: new RenderClient(render.port1, renderState, spec.boot.hookPath, spec.renderTimeoutMs),
    ref: () => worker.ref(),
    unref: () => worker.unref(),
    terminate: async () => { await worker.terminate().catch(() => {}); },
    onDeath: (handler) => { deathHandlers.push(handler); },
    released,
  };
}

/** The uncaught error the child's runtime wrote to stderr before dying (see worker/transport.mjs). */
function fatalFrom(stderr: string): Pick<EndpointDeath, "errored" | "error"> {
  const line = stderr.split("\n").reverse().find((l) => l.startsWith(FATAL_MARK));
  if (!line) return {};
  try {
    const e = JSON.parse(line.slice(FATAL_MARK.length)) as { message?: string; name?: string; stack?: string; value?: string };
    // A non-Error arrives already described (worker/describe.mjs).
    if (e.message === undefined) return { errored: true, error: e.value };
    return { errored: true, error: Object.assign(new Error(e.message), { name: e.name ?? "Error", stack: e.stack }) };
  } catch {
    return {};
  }
}
const FATAL_MARK = "[hookbox:fatal] ";

/** A failed IPC write means the child died; its death is reported through 'close', not here. */
const ignoreSendError = () => {};

/** How much of the child's stderr is kept to name its death. */
const STDERR_TAIL = 4096;

export function processEndpoint(spec: EndpointSpec): HookEndpoint {
  const { maxOldGenerationSizeMb, maxYoungGenerationSizeMb, stackSizeMb } = spec.resourceLimits;
  const v8Flags = [
    ...(maxOldGenerationSizeMb ? [`--max-old-space-size=${maxOldGenerationSizeMb}`] : []),
    ...(maxYoungGenerationSizeMb ? [`--max-semi-space-size=${Math.max(1, Math.floor(maxYoungGenerationSizeMb / 2))}`] : []),
    ...(stackSizeMb ? [`--stack-size=${Math.floor(stackSizeMb * 1024 * 0.9)}`] : []),
  ];
  const child: ChildProcess = fork(spec.entry, [JSON.stringify(spec.boot)], {
    execArgv: [...(spec.execArgv ?? []), ...v8Flags],
    env: spec.env as NodeJS.ProcessEnv,
    serialization: "advanced",
    stdio: ["ignore", "inherit", "pipe", "ipc", "pipe"],
  });
  let stderrTail = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    const text = chunk.toString();
    // The runtime's own fatal line is for the host, not for the terminal.
    process.stderr.write(text.split("\n").filter((l) => !l.startsWith(FATAL_MARK)).join("\n"));
    stderrTail = (stderrTail + text).slice(-STDERR_TAIL);
  });
  const syncPipe = child.stdio[4] as NodeJS.WritableStream & { destroy(): void };
  // Why: a child that dies with sync answers it never read (a hook posting raw `sync` messages)
  // resets the pipe; unhandled, that error would take the host down. Its death is reported by 'close'.
  syncPipe.on("error", () => {});
  const controlListeners = new Set<(ev: { data: unknown }) => void>();
  const messageHandlers: Array<(raw: unknown) => void> = [];
  child.on("message", (raw: unknown) => {
    // The control plane shares the IPC channel: `{ t: "ctl", d }` goes to comlink, the rest to the channel.
    if (raw && typeof raw === "object" && (raw as { t?: unknown }).t === "ctl") {
      for (const l of controlListeners) l({ data: (raw as { d?: unknown }).d });
      return;
    }
    for (const h of messageHandlers) h(raw);
  });
  const deathHandlers: Array<(d: EndpointDeath) => void> = [];
  const released = once(child, "close").then(() => {});
  // 'close', not 'exit': by then stderr has been read to the end, so its tail names the death.
  child.once("close", (code, signal) => {
    controlOpen = false;
    for (const h of deathHandlers) h({ code, signal, stderrTail, ...fatalFrom(stderrTail) });
  });
  child.on("error", () => {});
  child.unref();
  (child.channel as { unref?(): void } | undefined)?.unref?.();
  let controlOpen = true;
  const control: Endpoint = {
    // Why guarded twice: comlink may post (a RELEASE from its FinalizationRegistry) after the child
    // is gone; `connected` can still be true then, and the write fails with EPIPE asynchronously.
    postMessage: (data: unknown) => {
      if (!controlOpen || !child.connected) return;
      try { child.send({ t: "ctl", d: data }, ignoreSendError); } catch { /* the child is gone */ }
    },
    addEventListener: (_type: string, listener: any) => { controlListeners.add(listener); },
    removeEventListener: (_type: string, listener: any) => { controlListeners.delete(listener); },
  };
  return {
    kind: "process",
    // A child that is gone takes nothing; its 'close' rejects every pending request with its death.
    post: (message) => {
      if (child.connected) child.send(message, ignoreSendError);
    },
    onMessage: (handler) => { messageHandlers.push(handler); },
    answerSync(reply) {
      let body: Buffer;
      try {
        body = serialize(reply);
      } catch (err) {
        body = serialize({ id: reply.id, ok: false, e: { message: `the answer is not plain data: ${(err as Error).message}` } });
      }
      const head = Buffer.alloc(4);
      head.writeUInt32BE(body.length);
      syncPipe.write(Buffer.concat([head, body]));
    },
    control,
    closeControl: () => { controlOpen = false; controlListeners.clear(); },
    render: undefined,
    ref: () => { child.ref(); (child.channel as { ref?(): void } | undefined)?.ref?.(); },
    unref: () => { child.unref(); (child.channel as { unref?(): void } | undefined)?.unref?.(); },
    terminate: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGKILL");
      await once(child, "exit").catch(() => {});
    },
    onDeath: (handler) => { deathHandlers.push(handler); },
    released,
  };
}
