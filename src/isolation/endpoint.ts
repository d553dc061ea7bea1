/**
 * Where a hook runs: a worker thread (default), a child process (`isolation: "process"`) or a
 * child process inside an OS sandbox (`"sandbox"`). All carry the same protocol; this module
 * hides the difference from the channel and the sandbox.
 * - worker: parentPort, a comlink control port, shared buffers for synchronous answers.
 * - process / sandbox: hookbox's framed channel (./frames.ts, ./process-endpoint.ts). A process has
 *   its own heap, so a hook that exhausts memory or posts a giant message loses only its own process.
 * In every mode the hook's stdout and stderr go to `onLog` (./output.ts), never to the host's streams.
 */
import { once } from "node:events";
import { MessageChannel, Worker } from "node:worker_threads";
import type { Endpoint } from "comlink";
import nodeEndpoint from "comlink/dist/esm/node-adapter.mjs";
import type { Batch, HostMessage, SyncReply, WorkerBoot } from "../contract/protocol.js";
import { RenderClient } from "./render.js";
import { drainOutput, type OutputSink } from "./output.js";
import { childEnv } from "../../worker/child-env.mjs";
import { HOST_BUN } from "../policy/runtime.js";

/**
 * How a hook's thread or process ended, as the host observed it. Only host observations choose a
 * fault code; what the hook said about its own death (`claim`, `error`) only adds text.
 */
export interface EndpointDeath {
  kind: "worker" | "process" | "sandbox";
  code: number | null;
  signal?: string | null;
  /**
   * The runtime ran out of memory. Worker: Node's own ERR_WORKER_OUT_OF_MEMORY, raised during its
   * exit handling (after the thread's handle is gone, which no hook message can be). Process and
   * sandbox: death by SIGABRT (how V8 ends a process at its heap limit) or by the sandbox's memory
   * bound.
   */
  outOfMemory?: boolean;
  /** Worker: an uncaught exception ended it; `error` is what the hook threw (its content is the hook's). */
  errored?: boolean;
  error?: unknown;
  /** Process and sandbox: the hook runtime's account of an uncaught exception, unverified. */
  claim?: { message?: string; name?: string; stack?: string; value?: string };
  /** The host ended it because its channel broke the framing (process and sandbox). */
  violation?: string;
  /** Termination did not finish within `DISPOSE_BOUND_MS`; the host stopped waiting. */
  abandoned?: boolean;
}

/** How long terminating a hook may take before the host stops waiting for it (dispose's bound). */
export const DISPOSE_BOUND_MS = 2_000;

export interface HookEndpoint {
  post(message: HostMessage | Batch<HostMessage>): void;
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
  /** Process and sandbox modes: the node that runs the hook (src/policy/runtime.ts). */
  runtime?: string;
  resourceLimits: { maxOldGenerationSizeMb?: number; maxYoungGenerationSizeMb?: number; stackSizeMb?: number };
  renderTimeoutMs: number;
  /** Where the hook's stdout and stderr lines go. */
  onOutput: OutputSink;
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
    env: childEnv(spec.env),
    // Why: a hook's output never reaches the host's streams; it goes to onLog, bounded.
    stdout: true,
    stderr: true,
    stdin: false,
    ...(spec.execArgv ? { execArgv: spec.execArgv } : {}),
  });
  worker.unref();
  // Bun does not capture a worker's streams (null here; src/policy/runtime.ts says so in the load report).
  if (worker.stdout) drainOutput(worker.stdout, "stdout", spec.onOutput);
  if (worker.stderr) drainOutput(worker.stderr, "stderr", spec.onOutput);
  const syncView = new Int32Array(syncState);
  const ports = [control.port1, sync.port1, render.port1];
  let closedHere!: () => void;
  const portsClosedHere = new Promise<void>((resolve) => (closedHere = resolve));
  // Why not 'close' on Bun: its MessagePort never emits it (Bun 1.3.14), so dispose() would wait for
  // ever; there a port is closed once close() returned, which die() calls on all three.
  const released = HOST_BUN ? portsClosedHere : Promise.all(ports.map((port) => once(port, "close"))).then(() => {});
  let error: unknown;
  let errored = false;
  let outOfMemory = false;
  worker.on("error", (err) => {
    // Why threadId: Node raises its own ERR_WORKER_OUT_OF_MEMORY in the exit handler after
    // disposing the thread's handle (threadId is -1 from then on); a hook's uncaught exception,
    // whatever its `code`, arrives as a message before that (lib/internal/worker.js, kOnExit).
    if (worker.threadId === -1 && (err as { code?: unknown }).code === "ERR_WORKER_OUT_OF_MEMORY") outOfMemory = true;
    else { errored = true; error = err; }
  });
  const deathHandlers: Array<(d: EndpointDeath) => void> = [];
  let dead = false;
  const die = (death: EndpointDeath) => {
    if (dead) return;
    dead = true;
    for (const port of ports) port.close();
    closedHere();
    for (const h of deathHandlers) h(death);
  };
  let violation: string | undefined;
  // A message the host cannot deserialise (e.g. nested past its stack) ends the hook.
  worker.on("messageerror", (err) => {
    violation ??= `a message the host could not decode (${err.message})`;
    void worker.terminate();
  });
  worker.once("exit", (code) => die({ kind: "worker", code, outOfMemory, errored, error, violation }));
  return {
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
    // Why bounded: a thread blocked in a system call (readSync(0)) cannot be terminated; after
    // DISPOSE_BOUND_MS the host stops waiting and no longer keeps its event loop alive for it.
    terminate: async () => {
      if (!(await within(worker.terminate(), DISPOSE_BOUND_MS))) {
        worker.unref();
        die({ kind: "worker", code: null, abandoned: true });
      }
    },
    onDeath: (handler) => { deathHandlers.push(handler); },
    released,
  };
}


/** Whether `work` settled within `ms` (its rejection counts as settled); no timer outlives it. */
export async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => { timer = setTimeout(resolve, ms, false); });
  try {
    return await Promise.race([work.then(() => true, () => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
