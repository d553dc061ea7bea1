/**
 * The wire between the host and one hook's worker or process, with `worker/wire.mjs` (method
 * names and kinds, bounds, defaults, shared by both sides) and `bridge/methods.ts` (the bridge
 * table: each method's arguments and answer). Every message a worker sends has a zod schema here
 * and its type is inferred from it; the host validates each before it uses it, and what fails is
 * dropped as `protocol_violation`. What the host sends it builds itself: those messages are plain
 * TypeScript types (`HostMessage`), checked by the compiler, not parsed, but for its answers,
 * which share the worker's answer schema (`answerSchema`). The worker's JSDoc `@import`s the same
 * types.
 *
 * Channels:
 * - the message channel (parentPort, or the framed pipe in process and sandbox modes): from the
 *   host `emit`, `command`, `tool`, `shortcut`, `complete`, `setup`, `ping`, `cancel`, `abort`,
 *   `initialized` and `ret` (the answer to a bridge call); from the worker `res`, `pong`, the bridge calls `call`, `post` and
 *   `sync`, `turn` (a turn that made posts or agent setter calls ended), `manifest`, and the refusals `big` and `invalid`. Either side may send one turn as one
 *   `batch`. Render operations never travel here: they have their own port (below).
 * - `control`: comlink, for `load` only. The worker `expose()`s a `WorkerControl`; the host only
 *   `wrap()`s it and validates the answer (`loadReplySchema`).
 * - `sync`: answers to the worker's synchronous calls; the worker blocks, never the host.
 * - `render` (worker mode): synchronous message renderers; here the host blocks, boundedly.
 */
import type { MessagePort } from "node:worker_threads";
import { z } from "zod";
import { LIMITS, METHOD, PLANS } from "../../worker/wire.mjs";
import { keySafe, safeData } from "../gates/safe-keys.js";
import { flagSpecSchema, shortcutSpecSchema, toolSpecSchema } from "./registration-schemas.js";

const id = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const name = z.string().max(LIMITS.maxName);
const text = z.string().max(LIMITS.maxText);

/** A plain object with at most `max` own keys, checked before any key is parsed. */
const fewKeys = (max: number) => z.custom<Record<string, unknown>>(
  (v) => typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length <= max,
  { message: `expected an object with at most ${max} keys` },
);

/** A serialisable error. `stack` is the worker's, pointing into the hook file. */
export const wireErrorSchema = z.strictObject({
  message: text, name: name.optional(), stack: text.optional(), code: name.optional(),
  /** A thrown value that is not an Error (no `name` then), as thrown, when it is JSON data (and passes the key gate: it becomes an error's `cause`). */
  value: safeData.optional(),
});
export type WireError = z.infer<typeof wireErrorSchema>;

/** What a hook registered, as the worker reports it. Every count is bounded (`LIMITS`); no event type names a prototype (src/gates/safe-keys.ts). */
export const manifestSchema = keySafe(z.strictObject({
  /** Event type -> number of handlers, in registration order. */
  events: fewKeys(LIMITS.maxEvents).pipe(z.record(name, z.number().int().nonnegative().max(LIMITS.maxHandlers))),
  /** `completions`: the command has `getArgumentCompletions` (pi extensions). */
  commands: z.array(z.strictObject({ name, description: text.optional(), completions: z.literal(true).optional() })).max(LIMITS.maxCommands),
  renderers: z.array(name).max(LIMITS.maxCommands),
  // pi extensions only (worker/api.mjs): present when the module registered one.
  tools: z.array(toolSpecSchema).max(LIMITS.maxCommands).optional(),
  flags: z.array(flagSpecSchema).max(LIMITS.maxCommands).optional(),
  shortcuts: z.array(shortcutSpecSchema).max(LIMITS.maxCommands).optional(),
}));
export type Manifest = z.infer<typeof manifestSchema>;

/** One handler's outcome. `r` absent: it returned nothing. */
const stepSchema = z.union([
  z.strictObject({ ok: z.literal(true), r: z.unknown().optional() }),
  z.strictObject({ ok: z.literal(false), e: wireErrorSchema }),
]);
export type Step = z.infer<typeof stepSchema>;
export const emitReplySchema = z.strictObject({
  steps: z.array(stepSchema).max(LIMITS.maxHandlers),
  /** For a waterfall: the chained value, present only if some handler changed it. */
  value: z.unknown().optional(),
  /**
   * Top-level event fields the handlers edited in place, with their new values (worker/edits.mjs).
   * Kept as sent: src/runner/edits.ts checks each field name and value (the key gate included) and reports
   * a refused one as an edit refused, naming the field.
   */
  edits: fewKeys(LIMITS.maxEvents).optional(),
});
export type EmitReply = z.infer<typeof emitReplySchema>;
/** What a worker's empty answer means: every handler ran and returned nothing. */
export const NO_RESULTS: EmitReply = Object.freeze({ steps: [] }) as EmitReply;

/** Whether V8 took the code cache the thread was given (absent: none was given). What a hook says here only ever makes the host make a new one, once. */
const codeCacheVerdict = z.enum(["accepted", "rejected"]).optional();
export const loadReplySchema = z.union([
  z.strictObject({ ok: z.literal(true), manifest: manifestSchema, codeCache: codeCacheVerdict }),
  z.strictObject({ ok: z.literal(false), e: wireErrorSchema, codeCache: codeCacheVerdict }),
]);
/**
 * The bound of a code cache's size: the runtime's is about 100 KB. Why a bound: the host keeps it and hands it to every
 * hook thread.
 */
export const MAX_CODE_CACHE_BYTES = 4 * 1024 * 1024;
/** The reply of the one thread the host started on its own module to make the code cache: the load's, with the bytes. */
export const codeCacheReplySchema = z.strictObject({ ok: z.literal(true), manifest: manifestSchema, made: z.instanceof(Uint8Array).refine((b) => b.byteLength > 0 && b.byteLength <= MAX_CODE_CACHE_BYTES) });
export type LoadReply = z.infer<typeof loadReplySchema>;

/** A method name of the bridge table (anything else fails the envelope). */
const method = z.enum(Object.values(METHOD) as [string, ...string[]]);
const args = z.array(z.unknown()).max(LIMITS.maxArgs);

/**
 * The one answer shape, for a request both ways: a handler's result (`res`, worker to host), a
 * bridge call's (`ret`, host to worker), a sync call's (on the sync channel) and a render's.
 */
const answerSchema = z.strictObject({ id, ok: z.boolean(), v: z.unknown().optional(), e: wireErrorSchema.optional() });
/** The answer to a sync call, posted on the sync channel before the worker is woken. */
export type SyncReply = z.infer<typeof answerSchema>;
/** A synchronous bridge call: the worker waits on the sync channel (or the render port) for the answer. */
const syncCallSchema = z.strictObject({ t: z.literal("sync"), id, m: method, a: args });

// ---- worker -> host --------------------------------------------------------------------------

export const workerMessageSchema = z.discriminatedUnion("t", [
  answerSchema.extend({ t: z.literal("res") }),
  z.strictObject({ t: z.literal("pong"), id }),
  /** An async bridge call; `rid` names the request it runs under, which the host checks (see channel.ts). */
  z.strictObject({ t: z.literal("call"), id, rid: id.optional(), m: method, a: args }),
  /** Fire and forget (`sendMessage`, `appendEntry`, `notify`, `setStatus`, log lines…). */
  z.strictObject({ t: z.literal("post"), m: method, a: args }),
  syncCallSchema,
  /** The worker's turn that posted or called an agent setter ended: the host applies those effects now, if nothing else came after them (src/isolation/channel.ts). */
  z.strictObject({ t: z.literal("turn") }),
  /** Registrations changed after load (a handler called `pi.on` later). */
  z.strictObject({ t: z.literal("manifest"), manifest: manifestSchema }),
  /** The worker refused to post a result (`id`) or a call (`m`) over `maxMessageBytes`. */
  z.strictObject({ t: z.literal("big"), id: id.optional(), m: method.optional(), bytes: z.number().nonnegative() }),
  /** The worker refused to post a result (`id`) or a call (`m`) that is not JSON data (depth, cycle, BigInt). */
  z.strictObject({ t: z.literal("invalid"), id: id.optional(), m: method.optional(), issue: text }),
]);
export type WorkerMessage = z.infer<typeof workerMessageSchema>;

const isId = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/**
 * `workerMessageSchema.safeParse(raw)`, with the commonest message checked by hand first: a
 * handler's success `{ t: "res", id, ok: true, v? }`. What that check accepts is a subset of what
 * the schema accepts; everything else goes through the schema. No copy is made of `raw`.
 */
export function parseWorkerMessage(raw: unknown): ReturnType<typeof workerMessageSchema.safeParse> {
  if (typeof raw === "object" && raw !== null) {
    const m = raw as Record<string, unknown>;
    if (m.t === "res" && m.ok === true && isId(m.id) && onlyKeys(m, RES_KEYS)) return { success: true, data: m as WorkerMessage };
  }
  return workerMessageSchema.safeParse(raw);
}

const RES_KEYS = new Set(["t", "id", "ok", "v"]);
const onlyKeys = (m: object, allowed: Set<string>) => {
  const keys = Object.keys(m);
  return keys.length <= allowed.size && keys.every((k) => allowed.has(k));
};
export type ResultMessage = Extract<WorkerMessage, { t: "res" }>;

/** Several messages of one turn in one post (one level only: a batch inside a batch is refused). */
export interface Batch<M> { t: "batch"; m: M[] }

/** A turn's messages in one (see worker/transport.mjs flushTurn): exactly `{ t: "batch", m: [...] }`. */
export function isBatch(raw: unknown): raw is Batch<unknown> {
  return typeof raw === "object" && raw !== null && (raw as { t?: unknown }).t === "batch" && Array.isArray((raw as { m?: unknown }).m)
    && Object.keys(raw).length === 2;
}

// ---- host -> worker: built by the host, so TypeScript types rather than schemas ----------------

/** How the worker runs one hook's handlers for one event (worker/run.mjs; `PLANS` names them). */
export interface RunPlan {
  /** Stop this hook's handlers at the first result whose `stop` key is `true` (bail). */
  stop?: "block" | "cancel";
  /** Feed each result's `chain` key into the next handler's event (waterfall). */
  chain?: "messages";
  /** The event returns nothing: do not send results back (series). */
  discard?: boolean;
  /** Stop at the first handler that throws (tool_call: the error propagates, later handlers do not run). */
  stopOnError?: boolean;
  /** Run only the handler at this registration index (set by the worker from an `emit`'s `only`). */
  only?: number;
}
/** A plan by name (`worker/wire.mjs` `PLANS`): what the host sends. */
export type PlanName = keyof typeof PLANS;

/** What the worker knows of the host's context for one request (a JSON snapshot, see `snapshotModel`). */
export interface ContextSnapshot {
  hasUI: boolean;
  cwd: string;
  model: unknown;
  /** A command's context built by the caller: the worker's context calls reach it under this number (src/bridge/command-scope.ts). */
  scope?: number;
}

/** The requests the host sends; each gets an `id` from the channel and is answered by one `res`. */
export type HostRequest =
  /** `ctx` is absent when it is the same as the last one this worker was sent. `signals`: payload fields that were AbortSignals. */
  | {
    t: "emit"; event: Record<string, unknown> & { type: string }; plan: PlanName;
    /** Run only the handler at this registration index (a `LoadedHook.handlers` entry called directly). */
    only?: number;
    ctx?: ContextSnapshot; signals?: string[];
    /** Those of `signals` already aborted when the event was sent: the worker creates them aborted. */
    aborted?: string[];
  }
  | { t: "command"; name: string; args: string; ctx: ContextSnapshot }
  /**
   * Run a pi tool's `execute` in the worker. `update`: the number its `onUpdate` calls carry
   * (`tool.update`); `signals: ["signal"]` when the agent passed an AbortSignal (relayed as for an emit).
   */
  | { t: "tool"; name: string; toolCallId: string; params: unknown; update: number; ctx: ContextSnapshot; signals?: string[]; aborted?: string[] }
  /** Run a pi shortcut's handler; `complete`: a pi command's `getArgumentCompletions(prefix)`. */
  | { t: "shortcut"; key: string; ctx: ContextSnapshot }
  | { t: "complete"; name: string; prefix: string }
  /** Run the `setup` callback the hook passed to `ctx.newSession` (the host opened the session). */
  | { t: "setup" };

/** Every message the host sends on the message channel. */
export type HostMessage =
  | (HostRequest & { id: number })
  | { t: "ping"; id: number }
  | { t: "cancel"; id: number }
  | { t: "abort"; id: number; field: string }
  | { t: "initialized"; hasUI: boolean }
  /** `pi.events` data another module of the same isolate() emitted (worker/bus.mjs). */
  | { t: "bus"; channel: string; data: unknown }
  | BridgeReply;
/** The answer to a bridge call. */
export type BridgeReply = { t: "ret" } & SyncReply;

// ---- synchronous rendering (worker mode: render port + shared buffer; the host blocks) -------

export type RenderRequest = { id: number } & (
  | { op: "create"; cid: number; customType: string; message: unknown; options: { expanded: boolean } }
  // A tool's renderCall or renderResult (`value`: the call's arguments, or the result), with pi's
  // render context as data; `last`: the component this slot rendered before, when the worker holds it.
  | { op: "tool"; cid: number; name: string; slot: "call" | "result"; value: unknown; options: { expanded: boolean; isPartial: boolean }; context: Record<string, unknown>; last?: number }
  // A tool's prepareArguments: the model's raw arguments in, the prepared ones out (data).
  | { op: "prepare"; name: string; args: unknown }
  // A ctx.ui.custom() call's factory, run when the host's UI calls the stand-in factory (not before).
  | { op: "make"; key: string }
  // The branch changed (pi's footer data): the footer `key`'s onBranchChange listeners run.
  | { op: "branch"; key: string }
  | { op: "render"; cid: number; width: number }
  | { op: "input"; cid: number; data: string }
  | { op: "invalidate"; cid: number }
  | { op: "release"; cid: number }
);
/**
 * On the render port: the answer (`reply`), or a synchronous host call made while rendering (`sync`).
 * `released`: the component is not in the worker (the host released it, or a new worker runs), so
 * the host creates it again; a `release` is not answered.
 */
export const renderReplySchema = z.discriminatedUnion("kind", [
  answerSchema.extend({ kind: z.literal("reply"), released: z.literal(true).optional() }),
  syncCallSchema.extend({ kind: z.literal("sync") }),
]);
export type RenderReply = z.infer<typeof renderReplySchema>;
/** What each render operation answers: a component id (or null: default rendering), lines, or nothing. */
export const renderValueSchemas = {
  create: z.union([z.literal(true), z.null()]),
  // The factory made its component (true), returned a promise (its `ui.custom.ready` post follows) or threw.
  make: z.union([z.literal(true), z.literal("pending"), z.literal("failed")]),
  branch: z.null(),
  tool: z.union([z.literal(true), z.null()]),
  // Plain data without a prototype key, at most maxPrompt characters as JSON (pi validates it against the tool's schema next).
  prepare: safeData.refine((v) => {
    try { return (JSON.stringify(v) ?? "").length <= LIMITS.maxPrompt; } catch { return false; }
  }, { message: `prepared arguments must be JSON data of at most ${LIMITS.maxPrompt} characters` }),
  render: z.array(z.string().max(LIMITS.maxText)).max(LIMITS.maxRenderLines),
  input: z.null(),
  invalidate: z.null(),
  release: z.null(),
} as const;

// ---- control plane (comlink) ----------------------------------------------------------------

/** The host modules this hook may import: per module, its function names and plain values (src/bridge/host-modules.ts). */
export type HostModuleManifest = Record<string, { functions: string[]; values: Record<string, unknown> }>;

export interface LoadSpec {
  resolvedPath: string; cwd: string; initialized: boolean; hasUI: boolean;
  /** The module is an agent's extension (hookbox/extension): pi's agent-only registrations work. */
  agent: boolean;
  hostModules?: HostModuleManifest;
  /** The agent's own package names as the agent resolves them for its in-process extensions (src/discovery/agent-packages.ts). */
  agentModules?: AgentModules;
  /** The agent's TypeBox as one file, when the module's top file imports it (src/isolation/agent-bundle.ts). */
  agentBundle?: AgentBundle;
}

/**
 * One of the agent's packages as one CommonJS file the host built: its text, each alias target's
 * key among its exports (a namespace each), and the file name its code is evaluated under.
 */
export interface AgentBundle { text: string; entries: Record<string, string>; name: string }

/**
 * jiti aliases (a name, or a prefix ending in `/`, to an absolute file or folder) and the package
 * folders (`@scope/name/src`, under `node_modules`) the hook's runtime loads natively, not through jiti.
 */
export interface AgentModules {
  alias: Record<string, string>;
  native: string[];
  /** Per alias target whose entry is only re-exports: where each name it exports is defined (src/discovery/agent-exports.ts). */
  exports?: Record<string, AgentExports>;
}

/** An entry's names → [index in `files`, the name there]; a name not here is read from the whole package. */
export interface AgentExports { files: string[]; names: Record<string, [number, string]> }

/** The object the worker exposes with comlink on the control port. */
export interface WorkerControl {
  load(spec: LoadSpec): Promise<LoadReply | z.infer<typeof codeCacheReplySchema>>;
}

/** `workerData` the host passes to a worker. The worker removes the ports from it before any hook runs. */
export interface WorkerBoot {
  hookPath: string;
  control: MessagePort;
  sync: MessagePort;
  syncState: SharedArrayBuffer;
  render: MessagePort;
  renderState: SharedArrayBuffer;
  maxMessageBytes: number;
  syncTimeoutMs: number;
  /** Worker mode in the built package: the runtime's code cache (src/isolation/code-cache.ts). */
  codeCache?: BootCodeCache;
}

/**
 * The code cache a hook thread gets (src/isolation/code-cache.ts): `bytes` to compile the runtime
 * with, or `produce` in the one thread the host starts on its own module to make them.
 */
export interface BootCodeCache { bytes?: Uint8Array; produce?: true }
/** What the thread's entry (worker/entry-thread-cached.cjs) leaves in its place for the runtime. */
export interface RuntimeCodeCache { rejected?: boolean; produce?: () => Uint8Array; importModule: (url: string) => Promise<unknown> }

/** The model as JSON text (methods and cycles dropped the way JSON drops them); undefined when there is none or it cannot be one. */
export function modelText(model: unknown): string | undefined {
  if (model === undefined) return undefined;
  try {
    return JSON.stringify(model);
  } catch {
    return undefined;
  }
}

/** The model as a worker sees it, the same on the event and the command path: a JSON copy. */
export function snapshotModel(model: unknown): unknown {
  const text = modelText(model);
  return text === undefined ? undefined : JSON.parse(text);
}
