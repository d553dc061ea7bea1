/**
 * HookRunner: the original's runner over sandboxed hooks. Order is hooks-array order, then
 * registration order; the conflict rules are `dispatch.ts`; every result is validated before it is
 * applied; every sandbox fault becomes a `HookError` with a code.
 */
import { terminalText } from "../gates/terminal-text.js";
import { finish, nextInput, ruleFor, type ConflictRule } from "./dispatch.js";
import { Errors, HookFailure, describeThrown, isSkip, type HookError } from "../contract/errors.js";
import { inlineUnit, type HookUnit, type LoadedHook } from "./hook.js";
import type { EmitReply, PlanName } from "../contract/protocol.js";
import { gateAgentResult } from "./agent-results.js";
import { HostHandlers, type RunnerInitOptions } from "./host-handlers.js";
import { checkInitOptions, checkRunnerArguments, warnLackingAtConstruction } from "../bridge/host-setup.js";
import { checkOptions } from "../options/schemas.js";
import { describeIssues } from "../contract/schemas.js";
import { applyEdits, checkEdits } from "./edits.js";
import { gateEdits, gateResult, type Refusal } from "./effects.js";
import type { Effect } from "../policy/policy.js";
import { asThrownInToolCall, blocked, isFailureBlock, stepFailure } from "./handler-failures.js";
import { Observer } from "../observe/observer.js";
import type { RecordListener } from "../observe/record.js";
import { StatsRecorder, type HookStats } from "./stats.js";
import { IsolatedHook } from "./isolated-hook.js";
import { LIMITS, isMessageList } from "../../worker/wire.mjs";
import { keysAreSafe } from "../gates/safe-keys.js";
import { watchHooks, type HookWatcher, type WatchOptions } from "./watch.js";
import type {
  AgentMessage, BeforeAgentStartEventResult, EmitResultFor, HookCommandContext, HookContext, HookEvent, HookMessageRenderer, HookUIContext,
  ImageContent, ModelRegistry, ReadonlySessionManager, RegisteredCommand, ToolCallEvent, ToolCallEventResult,
} from "../contract/types.js";

export type { RunnerInitOptions };

/** What an emit has folded so far. */
interface Fold { acc: unknown }
/** A run of a hook failed (reported): its later handlers are not run in this emit. */
const FAILED = Symbol("failed");

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
    const rule = ruleFor(type);
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
    if (!this.#observer.active) return failure ? this.#settleFailure(unit, failure, toolCall) : this.#settle(unit, rule, event, input, reply!, state, toolCall);
    const reported: HookFailure[] = (this.#sink = []);
    const before = state.acc;
    let end: { value: unknown } | typeof FAILED | undefined;
    try {
      end = failure ? this.#settleFailure(unit, failure, toolCall) : this.#settle(unit, rule, event, input, reply!, state, toolCall);
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

  /** A run whose reply never came: reported; a tool call is blocked unless the hook fails open. */
  #settleFailure(unit: HookUnit, failure: HookFailure, toolCall: boolean): { value: unknown } | typeof FAILED {
    if (this.#fail(unit, failure, toolCall)) return { value: blocked(failure) };
    return FAILED;
  }

  /** Apply one run's reply (synchronous): its edits, then each handler's result through the rule. */
  #settle(
    unit: HookUnit, rule: ConflictRule, event: Record<string, unknown> & { type: string }, input: Record<string, unknown> & { type: string }, reply: EmitReply,
    state: Fold, toolCall: boolean,
  ): { value: unknown } | undefined {
    const type = event.type;
    if (reply.edits) {
      const applied = this.#applyEdits(unit, type, rule, event, input, reply.edits, state.acc, toolCall);
      state.acc = applied.acc;
      // Why blocked: a hook that edits a tool call's input means to change what the tool runs. An
      // edit its policy does not grant blocks whatever the fault policy: running the agent's own
      // input instead would run what the hook meant to stop (fail closed).
      if (toolCall && applied.overGrant) return { value: blocked(applied.overGrant) };
      // An invalid one fails closed like an invalid result.
      if (toolCall && applied.refused && this.#failClosed(unit)) return { value: blocked(applied.refused) };
    }
    for (const step of reply.steps) {
      if (!step.ok) {
        const failure = stepFailure(unit, type, step.e);
        if (this.#fail(unit, failure, toolCall)) return { value: blocked(failure) };
        continue;
      }
      if (!step.r || rule.kind === "series") continue;
      const result = this.#validate(rule, unit, type, step.r);
      if (!result) {
        if (toolCall && this.#failClosed(unit)) return { value: blocked(Errors.invalidResult(unit.hook.path, type, describeIssues(rule.schema!.safeParse(step.r).error!))) };
        continue;
      }
      // A block reason is text the model and the user read: cut, then through the terminal-text gate (src/gates/terminal-text.ts).
      if (typeof result.reason === "string") result.reason = terminalText(result.reason.slice(0, LIMITS.maxBlockReason), { ...unit.hook.sandbox?.options.terminalText, multiline: true });
      // pi's own result gates (resource paths, a user bash output): src/runner/agent-results.ts.
      const gated = rule.gated ? gateAgentResult(type, result, unit.hook) : result;
      if (typeof gated === "string") {
        this.#report(Errors.invalidResult(unit.hook.path, type, gated));
        continue;
      }
      // What the hook's policy.effects grants of it (src/runner/effects.ts); the rest is refused.
      const granted = this.#granted(unit, type, gated, input);
      if (granted === undefined) continue;
      const next = rule.step(state.acc, granted as Record<string, unknown>, input);
      if (next.refused) this.#report(Errors.invalidResult(unit.hook.path, type, next.refused));
      state.acc = next.acc;
      if (next.done) return { value: state.acc };
    }
    if (reply.value !== undefined) {
      // The worker's copy is the host's alone: a list of agent messages whose keys pass the key
      // gate is used as is (what the schema accepts, without its copy of a 1 MiB list); anything
      // else is validated and reported.
      let messages: unknown;
      if (isMessageList(reply.value) && keysAreSafe(reply.value)) messages = reply.value;
      else messages = this.#validate(rule, unit, type, { messages: reply.value })?.messages;
      const granted = messages === undefined ? undefined : this.#granted(unit, type, { [rule.key!]: messages }, input);
      if (granted !== undefined) state.acc = (granted as Record<string, unknown>)[rule.key!] ?? state.acc;
    }
    return undefined;
  }

  /**
   * A hook's in-place edits, validated and applied to the caller's event, so the next hook and the
   * caller see them as in the original. In a waterfall whose value a hook already replaced, an
   * edit of `messages` edits that value. The first refused edit is returned (a tool call blocks on it).
   */
  #applyEdits(
    unit: HookUnit, type: string, rule: ConflictRule, event: Record<string, unknown>, received: Record<string, unknown>, edits: Record<string, unknown>,
    acc: unknown, toolCall: boolean,
  ): { acc: unknown; refused?: HookFailure; overGrant?: HookFailure } {
    const checked = checkEdits(edits, event);
    const failures = checked.refused.map((r) => Errors.invalidEdit(unit.hook.path, type, r.field, r.detail));
    for (const failure of failures) this.#report(failure);
    // Compared with what the hook received (in a waterfall, the value so far).
    const grant = this.#grant(unit);
    const { valid, refused } = grant === "substitute" ? { valid: checked.valid, refused: [] } : gateEdits(type, checked.valid, received, grant);
    const over = refused.map((r) => this.#refusal(unit, type, `event.${r.field}`, r, grant, toolCall ? "the tool call was blocked" : "the agent's own value was kept"));
    if (toolCall && over.length > 0) return { acc, overGrant: over[0] };
    if (rule.kind === "waterfall" && acc !== undefined && Object.hasOwn(valid, "messages")) {
      acc = valid.messages;
      delete valid.messages;
    }
    applyEdits(event, valid);
    return { acc, refused: failures[0] };
  }

  /**
   * Report a failure; true when the tool call must be blocked. A handler error in `tool_call`
   * propagates to the caller as the original does; every other fault is reported and, in
   * `tool_call`, blocks unless the hook's policy is fail-open.
   */
  #fail(unit: HookUnit, failure: HookFailure, toolCall: boolean): boolean {
    if (toolCall && failure.code === "handler_threw") {
      this.#stats.error(failure.hookPath, failure.code);
      throw asThrownInToolCall(failure);
    }
    if (this.#shouldReport(failure)) this.#report(failure);
    return toolCall && this.#failClosed(unit);
  }

  #validate(rule: ConflictRule, unit: HookUnit, type: string, value: unknown): Record<string, unknown> | undefined {
    const ignored = this.#agent ? rule.ignoredKeys(this.#agent.line, value) : [];
    if (ignored.length > 0) value = this.#dropIgnored(unit, type, value as Record<string, unknown>, ignored);
    const parsed = rule.schema!.safeParse(value);
    if (parsed.success) return parsed.data as Record<string, unknown>;
    this.#report(Errors.invalidResult(unit.hook.path, type, describeIssues(parsed.error)));
    return undefined;
  }

  /** `result` without the keys the agent ignores; each said once (the rest is validated as before). */
  #dropIgnored(unit: HookUnit, type: string, result: Record<string, unknown>, ignored: string[]): Record<string, unknown> {
    const { line, warn } = this.#agent!;
    const agent = line === "omp" ? "oh-my-pi" : "pi";
    for (const key of ignored) {
      const name = JSON.stringify(key.slice(0, 64));
      warn(unit.hook.path, `ignored:${type}:${key.slice(0, 64)}`,
        `hookbox: ${unit.hook.path}: the result of its ${type} handler has the key ${name}, which ${agent} ignores in its process: dropped, as ${agent} drops it (the rest of the result is used)`);
    }
    return Object.fromEntries(Object.entries(result).filter(([k]) => !ignored.includes(k)));
  }

  #failureOf(err: unknown, unit: HookUnit, type: string): HookFailure {
    if (err instanceof HookFailure) return err;
    const e = err as Error | undefined;
    return Errors.handlerThrew(unit.hook.path, type, describeThrown(err), e instanceof Error ? e.stack : undefined);
  }

  /** A disabled hook was reported once, by its sandbox, when it was disabled; skips are not reported again. */
  #shouldReport(failure: HookFailure): boolean {
    return !isSkip(failure.code);
  }

  /** The highest effect `unit` may have on the agent: its policy's; a hand-built in-process hook's is the original's. */
  #grant(unit: HookUnit): Effect {
    return unit.hook.sandbox?.options.policy.effects ?? "substitute";
  }

  /** `result` (valid) as far as the hook's policy.effects grants it, or undefined when nothing of it applies; each refused field is reported. */
  #granted(unit: HookUnit, type: string, result: unknown, received: Record<string, unknown>): unknown {
    const grant = this.#grant(unit);
    // The common grant passes everything: the rules are not even looked up.
    if (grant === "substitute") return result;
    const gated = gateResult(type, result, received, grant);
    for (const r of gated.refused) this.#refusal(unit, type, r.field === "payload" && type === "before_provider_request" ? "the request's payload" : `result.${r.field}`, r, grant, "the agent's own value was kept");
    return gated.result;
  }

  #refusal(unit: HookUnit, type: string, field: string, r: Refusal, grant: Effect, kept: string): HookFailure {
    const failure = Errors.effectRefused(unit.hook.path, type, field, r.effect, grant, kept);
    this.#report(failure);
    return failure;
  }

  #failClosed(unit: HookUnit): boolean {
    return (unit.hook.sandbox?.options.toolCallFailure ?? unit.hook.toolCallFailure) !== "open";
  }

  #report(failure: HookFailure): void {
    this.#sink?.push(failure);
    this.#stats.error(failure.hookPath, failure.code);
    this.emitError(failure.toHookError());
  }
}
