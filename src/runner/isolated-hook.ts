/**
 * A hook loaded by hookbox: its handlers live in its isolated runtime (a worker thread, a child
 * process, or a child process in the bubblewrap sandbox: the "worker" below). `IsolatedHook` is both the
 * `LoadedHook` the embedder sees (maps that are live views of what the worker registered) and the
 * `HookUnit` the runner runs, so everything about running in a worker is here: the run path,
 * which context the worker already holds, splitting AbortSignals off an event, checking each
 * reply, and the snapshot of the model that crosses.
 */
import { applyEdits, checkEdits } from "./edits.js";
import { gateEdits, gateResult } from "./effects.js";
import { Errors, type HookFailure } from "../contract/errors.js";
import type { HandlerFn, HookUnit, LoadedHook } from "./hook.js";
import { deadlineFor } from "../options/options.js";
import { registryAnswer } from "../bridge/model-registry-gate.js";
import { thrownValue } from "./handler-failures.js";
import { modelText, NO_RESULTS, snapshotModel, type ContextSnapshot, type HostRequest, type EmitReply, type Manifest, type PlanName } from "../contract/protocol.js";
import { withCallerTheme } from "../bridge/render-theme.js";
import type { RenderOutcome, ToolRendererStandIn } from "../isolation/render.js";

export type { StandIn } from "../isolation/render.js";
import type { BridgeSurface } from "../bridge/host-bridge.js";
import { HookSupervisor, type SandboxView } from "../isolation/supervisor.js";
import type { HookCommandContext, HookContext, HookMessageRenderer, RegisteredCommand } from "../contract/types.js";

/** What the context snapshot is made of: a `HookContext`'s, or what a direct handler call passed. */
type SnapshotSource = Pick<HookContext, "hasUI" | "cwd" | "model">;
type EmitRequest = Extract<HostRequest, { t: "emit" }>;

export class IsolatedHook implements LoadedHook, HookUnit {
  readonly path: string;
  readonly resolvedPath: string;
  readonly #sandbox: HookSupervisor;
  #seen: Manifest | undefined;
  #handlers = new Map<string, HandlerFn[]>();
  #commands = new Map<string, RegisteredCommand>();
  #renderers = new Map<string, HookMessageRenderer>();
  /** The context the worker holds (it keeps the last one it was sent), the model's text in it, and which worker that is. */
  #sent: ContextSnapshot | undefined;
  #sentModel: string | undefined;
  #sentTo = -1;

  constructor(sandbox: HookSupervisor) {
    this.#sandbox = sandbox;
    this.path = sandbox.hookPath;
    this.resolvedPath = sandbox.resolvedPath;
  }

  /** A hook of the same file and options in a new, not yet started sandbox (a reload). */
  fresh(): IsolatedHook {
    const old = this.#sandbox;
    return new IsolatedHook(new HookSupervisor(old.hookPath, old.resolvedPath, old.cwd, old.options, old.agent, old.agentModules));
  }

  get hook(): LoadedHook { return this; }
  get sandbox(): SandboxView { return this.#sandbox.view; }
  get handlers(): Map<string, HandlerFn[]> { this.#refresh(); return this.#handlers; }
  get commands(): Map<string, RegisteredCommand> { this.#refresh(); return this.#commands; }
  get messageRenderers(): Map<string, HookMessageRenderer> { this.#refresh(); return this.#renderers; }
  // The worker's sendMessage goes through the runner's bridge, which reads the runner's handlers.
  setSendMessageHandler(): void {}
  setAppendEntryHandler(): void {}

  /** What the host refuses before anything of the module runs (an approval it no longer matches, a runtime that cannot run its policy), or undefined. */
  refusedBeforeLoad(): HookFailure | undefined {
    return this.#sandbox.refusedBeforeLoad();
  }

  /** Start the worker and load the hook; the failure if it did not load (its worker is ended). */
  start(): Promise<HookFailure | undefined> {
    return this.#sandbox.start();
  }

  /** The runner's side of the bridge: from now on the worker reaches the runner's handlers. */
  connect(surface: BridgeSurface): void {
    this.#sandbox.bridge.install(surface);
  }

  /** The runner was initialized: `sendMessage` / `appendEntry` work from now on. */
  markInitialized(hasUI: boolean): void {
    this.#sandbox.markInitialized(hasUI);
  }

  dispose(): Promise<void> {
    return this.#sandbox.dispose();
  }

  count(type: string): number {
    const events = this.#sandbox.manifest.events;
    return Object.hasOwn(events, type) ? events[type]! : 0;
  }

  /** Run this hook's handlers of `event` in the worker, under `plan`; the reply is checked before it is returned. */
  run(event: Record<string, unknown> & { type: string }, plan: PlanName, ctx: HookContext, only?: number): Promise<EmitReply> {
    return this.#emit(event.type, event, plan, ctx, only);
  }

  /**
   * The one emit path: the runner's (every handler of `type`) and a handler called directly
   * (`only`: the one at that registration index). AbortSignals are split off, the context is sent
   * only when the worker does not hold it yet, and the reply is checked.
   */
  async #emit(type: string, event: Record<string, unknown>, plan: PlanName, ctx: SnapshotSource, only?: number): Promise<EmitReply> {
    const sandbox = this.#sandbox;
    const [payload, signals] = splitSignals(event);
    const body: EmitRequest = { t: "emit", event: payload as EmitRequest["event"], plan };
    if (only !== undefined) body.only = only;
    // The worker keeps the last context it was sent: send it only when it changed or the worker is new.
    // A handler called directly (`only`: pi's runner calls each) brings its own, which the worker does
    // not keep (worker/entry.mjs): sent whole, the cache left as it was.
    const snap = only === undefined ? this.#snapshot(ctx) : this.#fullSnapshot(ctx);
    if (snap) body.ctx = snap;
    if (signals) {
      body.signals = signals.map(([field]) => field);
      // A signal that is already aborted must arrive aborted, before any handler reads it.
      const aborted = signals.filter(([, signal]) => signal.aborted).map(([field]) => field);
      if (aborted.length > 0) body.aborted = aborted;
    }
    // A request that failed may never have reached the worker: send the context again next time.
    let raw: unknown;
    try {
      raw = await sandbox.request(body, type, deadlineFor(sandbox.options, type), signals);
    } catch (err) {
      this.#sent = undefined;
      throw err;
    }
    // The channel checked the reply against emitReplySchema (src/isolation/reply.ts).
    return raw === undefined ? NO_RESULTS : raw as EmitReply;
  }

  /**
   * The context to send, or undefined when the worker holds it already. Whether the model changed
   * is decided by the host's model's JSON text, not by identity, so a model changed in place is
   * sent again; only then is it passed through the registry gate and copied as JSON (one copy rule
   * for events and commands, see `snapshotModel`). That text stays on the host: what crosses is
   * the gated copy.
   */
  #snapshot(ctx: SnapshotSource): ContextSnapshot | undefined {
    const text = modelText(ctx.model);
    const last = this.#sent;
    const generation = this.#sandbox.generation;
    // A model that is not JSON (no text) is gated and copied again each time.
    const sameModel = last !== undefined && text === this.#sentModel && (text !== undefined || ctx.model === undefined);
    if (sameModel && this.#sentTo === generation && last.hasUI === ctx.hasUI && last.cwd === ctx.cwd) return undefined;
    const model = sameModel ? last.model : snapshotModel(this.#shownModel(ctx.model));
    this.#sentModel = text;
    this.#sentTo = generation;
    return (this.#sent = { hasUI: ctx.hasUI, cwd: ctx.cwd, model });
  }

  /** `ctx.model` as the hook may see it: without credential fields unless its policy grants keys (src/bridge/model-registry-gate.ts). */
  #shownModel(model: unknown): unknown {
    return registryAnswer(this.#sandbox.options.policy, model);
  }

  #refresh(): void {
    const m = this.#sandbox.manifest;
    if (m === this.#seen) return;
    this.#seen = m;
    this.#handlers = new Map(Object.entries(m.events).map(([type, n]) => [type, Array.from({ length: n }, (_, only) => this.#handler(type, only))]));
    this.#commands = new Map(m.commands.map((c): [string, RegisteredCommand] => [c.name, { ...c, handler: (args, ctx) => this.#command(c.name, args, ctx) }]));
    this.#renderers = new Map(m.renderers.map((type) => [type, withCallerTheme(this.#sandbox.renderer(type))]));
  }

  /**
   * Runs that one handler in the worker, as calling the original's handler would: through the one
   * emit path, with the caller's `ctx` (what it lacks, the defaults); it throws what the handler
   * threw (an Error with its name, message, stack and `code`, or the value itself).
   */
  #handler(type: string, only: number): HandlerFn {
    return async (event, ctx) => {
      const c = ctx as Partial<SnapshotSource> | undefined;
      const target = event as Record<string, unknown>;
      const reply = await this.#emit(type, target, "each", { hasUI: c?.hasUI ?? false, cwd: c?.cwd ?? this.#sandbox.cwd, model: c?.model }, only);
      // In-place edits reach the event the caller passed, as calling the original's handler would,
      // as far as the hook's policy.effects grants them (src/runner/effects.ts).
      const grant = this.#sandbox.options.policy.effects;
      const edits = reply.edits ? gateEdits(type, checkEdits(reply.edits, target).valid, target, grant) : undefined;
      if (edits) applyEdits(target, edits.valid);
      const step = reply.steps[0];
      if (step && !step.ok) throw thrownValue(step.e);
      // A direct call has no runner to report to: an effect above the grant throws, so a caller that blocks on a throw blocks.
      const result = step?.r === undefined ? undefined : gateResult(type, step.r, target, grant);
      const refused = edits?.refused[0] ?? result?.refused[0];
      if (refused) {
        throw Errors.effectRefused(this.path, type, `${edits?.refused[0] ? "event" : "result"}.${refused.field}`, refused.effect, grant,
          edits?.refused[0] ? "the edit was not applied" : "the result was not returned");
      }
      return result?.result;
    };
  }

  /** Everything the module registered (events and their counts, commands, renderers, tools, flags, shortcuts), as data. */
  get manifest(): Manifest {
    return this.#sandbox.manifest;
  }

  /** What this module registered as a pi extension (tools, flags, shortcuts, commands with completions): data from its manifest. */
  get registrations(): Pick<Manifest, "tools" | "flags" | "shortcuts" | "commands"> {
    return this.#sandbox.manifest;
  }

  /**
   * Run a pi tool's `execute` in the worker (hookbox/extension): the parameters cross as data, an
   * AbortSignal is relayed as an emit's is, each `onUpdate` of the worker reaches `onUpdate` here
   * (checked by the bridge's table) until the execution settles. Resolves with the worker's
   * answer, unchecked: the caller validates it; rejects with a `HookFailure`.
   */
  async runTool(name: string, toolCallId: string, params: unknown, signal: AbortSignal | undefined, onUpdate: (partial: unknown) => void, ctx: SnapshotSource): Promise<unknown> {
    const sandbox = this.#sandbox;
    const update = sandbox.bridge.openUpdates(onUpdate);
    const body: Extract<HostRequest, { t: "tool" }> = { t: "tool", name, toolCallId, params, update, ctx: this.#fullSnapshot(ctx) };
    if (signal) {
      body.signals = ["signal"];
      if (signal.aborted) body.aborted = ["signal"];
    }
    try {
      return await sandbox.request(body, `tool ${name}`, deadlineFor(sandbox.options, "tool"), signal ? [["signal", signal]] : undefined);
    } finally {
      sandbox.bridge.closeUpdates(update);
    }
  }

  /**
   * A pi tool's `renderCall` or `renderResult` (hookbox/extension, worker isolation): its stand-ins
   * render in the worker synchronously, bounded as message renderers are.
   */
  toolRenderer(name: string, slot: "call" | "result"): ToolRendererStandIn {
    return this.#sandbox.toolRenderer(name, slot);
  }

  /** A pi tool's `prepareArguments`, run synchronously in the worker (worker isolation); not ok when it failed (reported). */
  prepareArguments(name: string, args: unknown): RenderOutcome {
    return this.#sandbox.prepareArguments(name, args);
  }

  /** `pi.events` data another module of this runner emitted on `channel`: this module's listeners run in its worker. */
  deliverEvent(channel: string, data: unknown): void {
    this.#sandbox.deliverEvent(channel, data);
  }

  /** Run a pi shortcut's handler in the worker with the agent's context, as data. */
  async runShortcut(key: string, ctx: SnapshotSource): Promise<void> {
    const sandbox = this.#sandbox;
    await sandbox.request({ t: "shortcut", key, ctx: this.#fullSnapshot(ctx) }, "shortcut", deadlineFor(sandbox.options, "shortcut"));
  }

  /** A pi command's `getArgumentCompletions(prefix)`, run in the worker; the answer unchecked (the caller validates it). */
  completions(name: string, prefix: string): Promise<unknown> {
    const sandbox = this.#sandbox;
    return sandbox.request({ t: "complete", name, prefix }, "completions", deadlineFor(sandbox.options, "completions"));
  }

  #fullSnapshot(ctx: SnapshotSource): ContextSnapshot {
    return { hasUI: ctx.hasUI, cwd: ctx.cwd, model: snapshotModel(this.#shownModel(ctx.model)) };
  }

  /** The worker's command context reaches the caller's `ctx` (its ui, newSession…), as the original's would. */
  async #command(name: string, args: string, ctx: HookCommandContext): Promise<void> {
    const sandbox = this.#sandbox;
    const scope = sandbox.bridge.openScope(ctx);
    try {
      await sandbox.request({ t: "command", name, args, ctx: { ...this.#fullSnapshot(ctx), scope } },
        "command", deadlineFor(sandbox.options, "command"));
    } finally {
      sandbox.bridge.closeScope(scope);
    }
  }
}

/** AbortSignals cannot cross a thread: the worker gets live stand-ins, aborted when these abort. */
function splitSignals<E extends Record<string, unknown>>(event: E): [E, Array<[string, AbortSignal]> | undefined] {
  let signals: Array<[string, AbortSignal]> | undefined;
  let copy: E | undefined;
  for (const key of Object.keys(event)) {
    const value = event[key];
    if (value instanceof AbortSignal) {
      (signals ??= []).push([key, value]);
      copy ??= { ...event };
      delete copy[key];
    }
  }
  return [copy ?? event, signals];
}
