/**
 * HookRunner: the original's runner over sandboxed hooks. Order is hooks-array order, then
 * registration order; the conflict rules are `dispatch.ts`; every result is validated before it is
 * applied (`settle.ts`); every sandbox fault becomes a `HookError` with a code.
 */
import { finish, nextInput, ruleFor, type ConflictRule } from "./dispatch.js";
import { Errors, HookFailure, describeThrown, isSkip, type HookError } from "../contract/errors.js";
import { inlineUnit, type HookUnit, type LoadedHook } from "./hook.js";
import type { EmitReply, PlanName } from "../contract/protocol.js";
import { HostHandlers, type RunnerInitOptions } from "./host-handlers.js";
import { checkInitOptions, checkRunnerArguments, warnLackingAtConstruction } from "../bridge/host-setup.js";
import { checkOptions } from "../options/schemas.js";
import { isFailureBlock } from "./handler-failures.js";
import { Observer } from "../observe/observer.js";
import type { RecordListener } from "../observe/record.js";
import { StatsRecorder, type HookStats } from "./stats.js";
import { FAILED, Settler, type Fold } from "./settle.js";
import { IsolatedHook } from "./isolated-hook.js";
import { watchHooks, type HookWatcher, type WatchOptions } from "./watch.js";
import type {
  AgentMessage, BeforeAgentStartEventResult, EmitResultFor, HookCommandContext, HookContext, HookEvent, HookMessageRenderer, HookUIContext,
  ImageContent, ModelRegistry, ReadonlySessionManager, RegisteredCommand, ToolCallEvent, ToolCallEventResult,
} from "../contract/types.js";

export type { RunnerInitOptions };


export interface RunnerOptions {
  /** Where `pi.logger` lines of every hook go (overrides each hook's `onLog`). */
  onLog?: (hookPath: string, level: string, line: string) => void;
  /**
   * Hot reload: reload a hook that runs in a worker when its file, or a local file it imports,
   * changes, at the same place in the order (`watchHooks`'s options, or `true` for its defaults).
   * `dispose()` stops the watching.
   */
  watch?: boolean | WatchOptions;
}

export class HookRunner {
  /** One per hook, in order: a `IsolatedHook` is its own unit; a hand-built hook runs in-process. */
  readonly #units: HookUnit[];
  readonly #host: HostHandlers;
  readonly #errorListeners = new Set<(e: HookError) => void>();
  readonly #unlisten = new Map<LoadedHook, () => void>();
  readonly #onLog: RunnerOptions["onLog"];
  readonly #watcher: HookWatcher | undefined;
  #disposed: Promise<void> | undefined;
  readonly #stats = new StatsRecorder();
  readonly #observer: Observer;
  /** Observed: the failures reported while the current hook call settles. */
  #sink: HookFailure[] | undefined;
  /** The agent the modules run inside (hookbox/extension), and where a dropped result key is said. */
  #agent: { line: "pi" | "omp"; warn(hookPath: string, kind: string, line: string): void } | undefined;
  /** Applies each run's reply (./settle.ts), reporting through this runner. */
  readonly #settler = new Settler({ report: (f) => this.#report(f), stats: this.#stats, agent: () => this.#agent });

  constructor(hooks: LoadedHook[], cwd: string, sessionManager: ReadonlySessionManager, modelRegistry: ModelRegistry, options: RunnerOptions = {}) {
    const lacking = checkRunnerArguments(cwd, sessionManager, modelRegistry);
    checkOptions("HookRunner", options);
    warnLackingAtConstruction(lacking);
    this.#host = new HostHandlers(cwd, sessionManager, modelRegistry);
    this.#observer = new Observer(cwd);
    this.#onLog = options.onLog;
    this.#units = hooks.map((hook) => this.#adopt(hook));
    // pi.events: one bus for the hooks of this runner (the modules of one isolate()), data only.
    this.#host.setBus((from, channel, data) => {
      for (const hook of this.#hooks) if (hook.path !== from && hook instanceof IsolatedHook) hook.deliverEvent(channel, data);
    });
    this.#watcher = options.watch ? watchHooks(this, options.watch === true ? {} : options.watch) : undefined;
  }

  /**
   * @internal hookbox/extension: the modules run inside agent `line`. A result key that agent
   * ignores in its process (src/contract/events.ts `agentReads`) is then dropped, as the agent drops
   * it, and said once per module, event and key through `warn`, instead of refusing the result.
   * Results combine by the agent's own rule where its row has one (src/contract/events.ts
   * `agentRule`: every `before_agent_start` message kept, returned as `messages`).
   */
  insideAgent(line: "pi" | "omp", warn: (hookPath: string, kind: string, line: string) => void): void {
    this.#agent = { line, warn };
    this.#observer.agent = line;
  }

  /**
   * Every hook call as a decision record (src/observe/record.ts): the hook, the event, the tool call,
   * the outcome, the code, the duration, what would allow it. `content: true` adds what the hook
   * received and answered. Returns the function that stops listening.
   */
  onRecord(listener: RecordListener, options?: { content?: boolean }): () => void {
    return this.#observer.listen(listener, options);
  }

  /** @internal The runner's observer: a wall decision made outside a hook call (isolate()'s refusals) is emitted through it. */
  get observer(): Observer {
    return this.#observer;
  }

  /** The unit that runs `hook`; a worker hook gets the runner's side of its bridge and its fault listener. */
  #adopt(hook: LoadedHook): HookUnit {
    if (!(hook instanceof IsolatedHook)) return inlineUnit(hook);
    hook.connect(this.#host.surface(hook.path, this.#onLog ?? hook.sandbox.options.onLog));
    this.#unlisten.set(hook, hook.sandbox.listen({ fault: (f) => this.#report(f) }));
    return hook;
  }

  get #hooks(): LoadedHook[] {
    return this.#units.map((u) => u.hook);
  }

  /**
   * Reload the hook at `path` (as configured, or its absolute path) from its file, in a new worker
   * at the same place in the order; the old worker is then disposed. When the new version fails to
   * load, the old one keeps running and a `load_failed` HookError is reported (and returned).
   */
  async reload(path: string): Promise<HookError | undefined> {
    if (this.#disposed) throw new Error("HookRunner was disposed: create a new runner to reload hooks");
    const current = this.#units.find((u) => u.hook.path === path || u.hook.resolvedPath === path);
    if (!(current instanceof IsolatedHook)) throw new Error(`reload: no hook loaded from "${path}" runs in a worker in this runner`);
    const hook = current.fresh();
    this.#adopt(hook);
    if (this.#host.initialized) hook.markInitialized(this.#host.hasUI);
    const failure = await hook.start();
    const index = this.#units.indexOf(current);
    if (failure || this.#disposed || index < 0) {
      this.#unlisten.get(hook)?.();
      this.#unlisten.delete(hook);
      await hook.dispose();
      if (!failure) return undefined;
      const why = failure.code === "load_failed" ? failure.message.replace(/^Failed to load hook: /, "") : `${failure.code}: ${failure.message}`;
      // A module changed since its approval keeps that code: the approved version keeps running.
      const error = failure.code === "not_approved"
        ? new HookFailure("not_approved", current.path, "load", `reload refused, the approved version keeps running: ${failure.message}`)
        : Errors.loadFailed(current.path, `reload failed, the previous version keeps running: ${why}`);
      this.#report(error);
      return error.toHookError();
    }
    this.#units[index] = hook;
    this.#unlisten.get(current)?.();
    this.#unlisten.delete(current);
    this.#stats.reload(hook.path);
    await current.dispose();
    return undefined;
  }

  initialize(options: RunnerInitOptions): void {
    checkInitOptions(options);
    this.#host.initialize(options);
    for (const { hook } of this.#units) {
      hook.setSendMessageHandler(options.sendMessageHandler);
      hook.setAppendEntryHandler(options.appendEntryHandler);
      if (hook instanceof IsolatedHook) hook.markInitialized(this.#host.hasUI);
    }
  }

  getUIContext(): HookUIContext | null { return this.#host.ui; }
  getHasUI(): boolean { return this.#host.hasUI; }
  getHookPaths(): string[] { return this.#hooks.map((h) => h.path); }
  /** The hooks, in order, as loaded (with their sandbox state and restarts). */
  getHooks(): readonly LoadedHook[] { return this.#hooks; }
  /** Per hook, in order: state, calls and latency per event, errors by code, restarts, reloads. */
  stats(): HookStats[] { return this.#stats.snapshot(this.#hooks); }

  onError(listener: (e: HookError) => void): () => void {
    this.#errorListeners.add(listener);
    return () => { this.#errorListeners.delete(listener); };
  }

  emitError(error: HookError): void {
    for (const listener of this.#errorListeners) listener(error);
  }

  hasHandlers(eventType: string): boolean {
    return this.#units.some((u) => u.count(eventType) > 0);
  }

  getMessageRenderer(customType: string): HookMessageRenderer | undefined {
    for (const hook of this.#hooks) {
      const renderer = hook.messageRenderers.get(customType);
      if (renderer) return renderer;
    }
    return undefined;
  }

  getRegisteredCommands(): RegisteredCommand[] {
    return this.#hooks.flatMap((h) => [...h.commands.values()]);
  }

  getCommand(name: string): RegisteredCommand | undefined {
    for (const hook of this.#hooks) {
      const command = hook.commands.get(name);
      if (command) return command;
    }
    return undefined;
  }

  createCommandContext(): HookCommandContext {
    return this.#host.commandContext();
  }

  /** Emit any event; returns the combined result of the events that have one (typed per event). */
  emit<E extends HookEvent>(event: E): Promise<EmitResultFor<E["type"]>> {
    return this.#dispatch(event as HookEvent & Record<string, unknown>, false) as Promise<EmitResultFor<E["type"]>>;
  }

  /** `tool_call`: a handler that throws makes this reject; a sandbox fault blocks (fail closed). */
  emitToolCall(event: ToolCallEvent): Promise<ToolCallEventResult | undefined> {
    return this.#dispatch(event as ToolCallEvent & Record<string, unknown>, true) as Promise<ToolCallEventResult | undefined>;
  }

  /** `context`: chained; returns the input array itself when no hook changed it. */
  emitContext(messages: AgentMessage[]): Promise<AgentMessage[]> {
    return this.#dispatch({ type: "context", messages }, false) as Promise<AgentMessage[]>;
  }

  emitBeforeAgentStart(prompt: string, images?: ImageContent[], systemPrompt?: string): Promise<BeforeAgentStartEventResult | undefined> {
    const event: Record<string, unknown> & { type: string } = { type: "before_agent_start", prompt };
    if (images !== undefined) event.images = images;
    if (systemPrompt !== undefined) event.systemPrompt = systemPrompt;
    return this.#dispatch(event, false) as Promise<BeforeAgentStartEventResult | undefined>;
  }

  /** End every worker. Idempotent; later emits reject. */
  dispose(): Promise<void> {
    this.#disposed ??= (async () => {
      this.#watcher?.close();
      for (const off of this.#unlisten.values()) off();
      await Promise.all(this.#units.map(({ hook }) => hook.dispose?.()));
    })();
    return this.#disposed;
  }

  async #dispatch(event: Record<string, unknown> & { type: string }, toolCall: boolean): Promise<unknown> {
    if (this.#disposed) throw new Error("HookRunner was disposed: create a new runner to emit events");
    const type = event.type;
    const rule = ruleFor(type, this.#agent !== undefined);
    const plan = toolCall ? "blockOrThrow" : rule.plan;
    const state: Fold = { acc: undefined };
    let ctx: HookContext | undefined;
    for (const unit of this.#units) {
      const count = unit.count(type);
      if (count === 0) continue;
      ctx ??= this.#host.context();
      // A rule that feeds each handler's result to the next runs the hook's handlers one at a time.
      for (let only = 0; only < (rule.perHandler ? count : 1); only++) {
        const end = await this.#runUnit(unit, rule, plan, event, state, ctx, toolCall, rule.perHandler ? only : undefined);
        if (end === FAILED) break;
        if (end) return end.value;
      }
    }
    return finish(rule, state.acc, event);
  }

  /**
   * One run of a hook (its handlers, or the one at `only`): folds its results into `state`; an end
   * says what the emit returns now. The one place a hook call settles: observed (src/observe/), the
   * failures reported while its reply is applied (synchronously, after it arrived) are its own.
   */
  async #runUnit(
    unit: HookUnit, rule: ConflictRule, plan: PlanName, event: Record<string, unknown> & { type: string }, state: Fold, ctx: HookContext,
    toolCall: boolean, only: number | undefined,
  ): Promise<{ value: unknown } | typeof FAILED | undefined> {
    const input = nextInput(rule, event, state.acc);
    let reply: EmitReply | undefined;
    let failure: HookFailure | undefined;
    const started = performance.now();
    try {
      reply = await unit.run(input, plan, ctx, only);
    } catch (err) {
      failure = this.#failureOf(err, unit, input.type);
    }
    const ms = performance.now() - started;
    if (failure && isSkip(failure.code)) this.#stats.skip(unit.hook.path);
    else this.#stats.call(unit.hook.path, input.type, ms);
    if (!this.#observer.active) return failure ? this.#settler.failed(unit, failure, toolCall) : this.#settler.reply(unit, rule, event, input, reply!, state, toolCall);
    const reported: HookFailure[] = (this.#sink = []);
    const before = state.acc;
    let end: { value: unknown } | typeof FAILED | undefined;
    try {
      end = failure ? this.#settler.failed(unit, failure, toolCall) : this.#settler.reply(unit, rule, event, input, reply!, state, toolCall);
      return end;
    } catch (err) {
      failure = err as HookFailure;
      throw err;
    } finally {
      this.#sink = undefined;
      const ended = end === FAILED ? undefined : end;
      this.#observer.call({
        hookPath: unit.hook.path, options: unit.hook.sandbox?.options, approved: unit.hook.sandbox?.approvedDigest, event: input, started, ms, failure, reported, ended,
        failureBlock: ended !== undefined && isFailureBlock(ended.value),
        changed: Object.keys(reply?.edits ?? {}).length > 0 || (rule.kind !== "bail" && rule.kind !== "series" && state.acc !== before),
      });
    }
  }

  #failureOf(err: unknown, unit: HookUnit, type: string): HookFailure {
    if (err instanceof HookFailure) return err;
    const e = err as Error | undefined;
    return Errors.handlerThrew(unit.hook.path, type, describeThrown(err), e instanceof Error ? e.stack : undefined);
  }

  #report(failure: HookFailure): void {
    this.#sink?.push(failure);
    this.#stats.error(failure.hookPath, failure.code);
    this.emitError(failure.toHookError());
  }
}
