/**
 * The wire protocol between the host and one hook worker. Both sides import this file with
 * `import type` only (the worker through JSDoc `@import`), so it holds no runtime code.
 *
 * Channels:
 * - `parentPort` (the worker's default port): the hot path. Host requests (`emit`, `command`,
 *   `render`, `ping`, replies to bridge calls) and worker replies (`ack`, `res`, `pong`) and bridge
 *   calls (`call`, `post`, `sync`). The host validates every message it reads here against
 *   `schemas.ts#WorkerMessage` and drops the rest as `protocol_violation`.
 * - `control` (a MessagePort handed over at start): comlink. The worker `expose()`s a
 *   `WorkerControl`; the host only ever `wrap()`s it. The host exposes nothing.
 * - `sync` (a MessagePort plus a SharedArrayBuffer): answers to the worker's synchronous calls
 *   (`ctx.sessionManager.*`, `ctx.isIdle()`, `ui.getEditorText()`, `ui.theme.*`). The worker
 *   blocks on `Atomics.wait`, never the host.
 * - `render` (a MessagePort plus a SharedArrayBuffer): synchronous message renderers; here the
 *   host blocks, for at most `renderTimeoutMs`.
 *
 * In process mode (`isolation: "process"`) the same messages travel over IPC; comlink's messages
 * are wrapped as `{ t: "ctl", d }`, and sync answers come on a pipe (fd 4) the child reads
 * synchronously. Either side may send several messages of one turn as one `Batch`.
 */
import type { MessagePort } from "node:worker_threads";

/** Several messages of one turn in one post (one level only: a batch inside a batch is refused). */
export interface Batch<M> { t: "batch"; m: M[] }

/** How the worker runs one hook's handlers for one event (see `dispatch.ts` for the host's rules). */
export interface RunPlan {
  /** Stop this hook's handlers at the first result whose `stop` key is `true` (bail). */
  stop?: "block" | "cancel";
  /** Feed each result's `chain` key into the next handler's event (waterfall). */
  chain?: "messages";
  /** The event returns nothing: do not send results back (series). */
  discard?: boolean;
  /** Stop at the first handler that throws (tool_call: the error propagates, later handlers do not run). */
  stopOnError?: boolean;
  /** Run only the handler at this registration index (a `LoadedHook.handlers` entry called directly). */
  only?: number;
}

/** What the worker knows of the host's context for one request (a snapshot, as the original). */
export interface ContextSnapshot {
  hasUI: boolean;
  cwd: string;
  model: unknown;
  /** A command's context built by the caller: the worker's context calls reach it under this number. */
  scope?: number;
}

/** A serialisable error. `stack` is the worker's, pointing into the hook file. */
export interface WireError {
  message: string; name?: string; stack?: string; code?: string;
  /** A thrown value that is not an Error (no `name` then), as thrown. */
  value?: unknown;
}

/** One handler's outcome. `r` absent: it returned nothing. */
export type Step = { ok: true; r?: unknown } | { ok: false; e: WireError };

export interface EmitReply {
  steps: Step[];
  /** For a waterfall: the chained value, present only if some handler changed it. */
  value?: unknown;
  /** Top-level event fields the handlers edited in place, with their new values (see worker/edits.mjs). */
  edits?: Record<string, unknown>;
}

// ---- host -> worker on parentPort -----------------------------------------------------------

export interface EmitRequest {
  /** `ctx` is absent when it is the same as the last one this worker was sent. */
  t: "emit"; id: number; event: Record<string, unknown> & { type: string }; plan: RunPlan; ctx?: ContextSnapshot;
  /** Payload fields that were AbortSignals on the host; the worker recreates them live. */
  signals?: string[];
  /** Those of `signals` already aborted when the event was sent: the worker creates them aborted. */
  aborted?: string[];
}
export interface CommandRequest { t: "command"; id: number; name: string; args: string; ctx: ContextSnapshot }
/** Run the `setup` callback the hook passed to `ctx.newSession` (the host opened the session). */
export interface SetupRequest { t: "setup"; id: number }
export interface PingRequest { t: "ping"; id: number }
export interface CancelNotice { t: "cancel"; id: number }
export interface AbortNotice { t: "abort"; id: number; field: string }
export interface InitializedNotice { t: "initialized"; hasUI: boolean }
export interface BridgeReply { t: "ret"; id: number; ok: boolean; v?: unknown; e?: WireError }
export type HostMessage =
  | EmitRequest | CommandRequest | SetupRequest | PingRequest | CancelNotice | AbortNotice | InitializedNotice | BridgeReply;

// ---- worker -> host on parentPort -----------------------------------------------------------

export interface AckMessage { t: "ack"; id: number }
export interface ResultMessage { t: "res"; id: number; ok: boolean; v?: unknown; e?: WireError }
export interface PongMessage { t: "pong"; id: number }
/** An async bridge call; `rid` is the host request it runs under (its deadline pauses meanwhile). */
export interface CallMessage { t: "call"; id: number; rid?: number; m: string; a: unknown[] }
/** A fire-and-forget bridge call (`sendMessage`, `appendEntry`, `notify`, `setStatus`, log lines…). */
export interface PostMessage { t: "post"; m: string; a: unknown[] }
/** A synchronous bridge call: the worker waits on the shared buffer for the answer on the sync port. */
export interface SyncMessage { t: "sync"; id: number; m: string; a: unknown[] }
/** Registrations changed after load (a handler called `pi.on` later). */
export interface ManifestMessage { t: "manifest"; manifest: Manifest }
/** The worker refused to post a result (`id`) or a call (`m`) over `maxMessageBytes`. */
export interface TooLargeMessage { t: "big"; id?: number; m?: string; bytes: number }
export type WorkerMessage = TooLargeMessage | AckMessage | ResultMessage | PongMessage | CallMessage | PostMessage | SyncMessage | ManifestMessage;

/** The answer to a sync call, posted on the sync port before the shared buffer is notified. */
export interface SyncReply { id: number; ok: boolean; v?: unknown; e?: WireError }

// ---- synchronous rendering (render port + shared buffer; the host blocks, boundedly) ---------

export type RenderRequest = { id: number } & (
  | { op: "create"; customType: string; message: unknown; options: { expanded: boolean } }
  | { op: "render"; cid: number; width: number }
  | { op: "input"; cid: number; data: string }
  | { op: "invalidate"; cid: number }
  | { op: "release"; cid: number }
);
/** On the render port: the answer (`reply`), or a synchronous host call made while rendering (`sync`). */
export type RenderReply =
  | { kind: "reply"; id: number; ok: boolean; v?: unknown; e?: WireError }
  | ({ kind: "sync" } & SyncMessage);

// ---- control plane (comlink) ----------------------------------------------------------------

/** What a hook registered, as the worker reports it. */
export interface Manifest {
  /** Event type -> number of handlers, in registration order. */
  events: Record<string, number>;
  commands: Array<{ name: string; description?: string }>;
  renderers: string[];
}

export interface LoadSpec {
  resolvedPath: string; cwd: string; initialized: boolean; hasUI: boolean;
  /** The host modules this hook may import: per module, its function names and plain values. */
  hostModules?: Record<string, { functions: string[]; values: Record<string, unknown> }>;
}

/** The object the worker exposes with comlink on the control port. */
export interface WorkerControl {
  load(spec: LoadSpec): Promise<{ ok: true; manifest: Manifest } | { ok: false; e: WireError }>;
}

/** `workerData` the host passes to a worker. The worker removes the ports from it before any hook runs. */
export interface WorkerBoot {
  hookPath: string;
  control: MessagePort;
  sync: MessagePort;
  syncState: SharedArrayBuffer;
  render: MessagePort;
  renderState: SharedArrayBuffer;
  jitiCacheDir: string | false;
  maxMessageBytes: number;
  syncTimeoutMs: number;
}
