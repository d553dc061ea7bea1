/**
 * One `isolate()` inside the agent (src/extension/adapter.ts makes it): the runner over its modules
 * and the handlers mirrored on the agent's `pi`, each event forwarded to hookbox's `HookRunner`
 * and its result returned to the agent's runner. At an early start (./early-start.ts) it mirrors
 * modules before they loaded and checks each as it arrives.
 */
import { terminalText } from "../gates/terminal-text.js";
import { Errors, type HookError, type HookFailure } from "../contract/errors.js";
import type { LoadedHook } from "../runner/hook.js";
import { loadWarnings } from "../runner/loader.js";
import { UNLOADED, sameManifest, writeStartsAfterLoad } from "./starts.js";
import type { Manifest } from "../contract/protocol.js";
import { Notices } from "./notices.js";
import { HookRunner } from "../runner/runner.js";
import { auditRunner, unloadedRecord } from "../observe/launch.js";
import { LiveAgentContext, agentAccess, type AgentContext } from "./context.js";
import {
  builtInTools, manifestKeys, mirrorRegistrations, mirrorTool, registeredFlag, registrationKeys, registrationRefusal, type AgentRegistrationAPI, type MirrorDeps,
} from "./registrations.js";
import { IsolatedHook } from "../runner/isolated-hook.js";
import { agentLine } from "./carried.js";
import type { HookEvent } from "../contract/types.js";
import { BEFORE_FIRST_REQUEST, IDLE_START_MS, WAIT_FOR_ALL, calledSynchronously, type Early } from "./early-start.js";
import { refusedEffect, refusedRegistration, refusedToolEffect, showUnfired, type Carried, type Unloaded } from "./refusals.js";

/** The part of the agent's `ExtensionAPI` (pi 0.73.1) the adapter uses. */
export interface AgentExtensionAPI extends AgentRegistrationAPI {
  // `any`: pi's ExtensionAPI overloads `on` per event; this keeps it assignable to the parameter.
  on(event: any, handler: any): void;
  sendMessage(message: any, options?: any): void;
  appendEntry(customType: string, data?: unknown): void;
  registerMessageRenderer?(customType: string, renderer: (message: any, options: any, theme: any) => unknown): void;
  // pi's agent members, reached by name through `AgentAccess` (src/bridge/agent-gate.ts gates them).
  sendUserMessage?(content: any, options?: any): void;
  setSessionName?(name: string): void;
  getSessionName?(): string | undefined;
  setLabel?(entryId: string, label: string | undefined): void;
  getActiveTools?(): string[];
  getAllTools?(): unknown[];
  setActiveTools?(toolNames: string[]): void;
  getCommands?(): unknown[];
  setModel?(model: any): Promise<boolean>;
  getThinkingLevel?(): string;
  setThinkingLevel?(level: any): void;
}

/** `value` as plain data (what JSON keeps of it), or undefined when it is not serializable. */
function asData(value: unknown): unknown {
  try {
    return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
  } catch {
    return undefined;
  }
}

/** One isolate() instance inside the agent: the runner over its modules and the handlers mirrored on the agent's `pi`. */
export class Mirror {
  readonly #pi: AgentExtensionAPI;
  readonly #runner: HookRunner;
  readonly #live = new LiveAgentContext();
  readonly #unloaded: Unloaded[];
  readonly #blocking: Unloaded[];
  readonly #isOptional: (path: string) => boolean;
  readonly #carried: Carried;
  /** What each module's tools, commands, flags and shortcuts were when mirrored (`kind:name`). */
  readonly #mirrored = new Map<string, Set<string>>();
  readonly #renderers = new Set<string>();
  /** Each module's registrations (its manifest, replaced whenever it changes) as last checked after an event. */
  readonly #checked = new WeakMap<LoadedHook, unknown>();
  #initialized = false;
  #reportedUnloaded = false;
  #disposed = false;
  /**
   * `before_agent_start`: the agent's handlers after the first (one per message slot, ./messages
   * below), and the messages of the current emit they return, one each in order.
   */
  #slots = 0;
  #stashed: unknown[] = [];
  /** Per event type being forwarded: the module throws caught during each emit (#report fills the newest). */
  readonly #threw = new Map<string, HookError[][]>();

  readonly #notices: Notices;
  /** What the mirrored tools, commands and shortcuts need of this Mirror (set by install). */
  #deps: MirrorDeps | undefined;
  readonly #early: Early | undefined;
  /** Early: each module's arrival, checked (resolves, never rejects); made, and the worker started, when first needed. */
  readonly #arrivals: Array<Promise<void> | undefined> = [];
  #arrived: Promise<void> | undefined;
  /** Early: the modules not yet checked on arrival (their registrations are not looked at after events until then). */
  readonly #pending = new Set<string>();
  /** Early: the event types sent on before every module had arrived (a module arriving with a new handler of one missed it). */
  readonly #forwarded = new Set<string>();
  /** Early: every module arrived and was checked. */
  #complete = false;
  /**
   * Early: each module's manifest as it arrived (what its factory registered), which the record
   * keeps: a tool it registers later, in a handler, is registered again then, not mirrored at the next start.
   */
  readonly #atLoad: Manifest[] = [];

  constructor(pi: AgentExtensionAPI, hooks: LoadedHook[], cwd: string, unloaded: Unloaded[], isOptional: (path: string) => boolean, carried: Carried, notices = new Notices(), early?: Early) {
    this.#pi = pi;
    this.#early = early;
    for (const m of early?.modules ?? []) this.#pending.add(m.path);
    this.#notices = notices;
    this.#carried = carried;
    this.#unloaded = unloaded;
    this.#isOptional = isOptional;
    this.#blocking = unloaded.filter((u) => !isOptional(u.path));
    this.#runner = new HookRunner(hooks, cwd, this.#live.sessionManager, this.#live.modelRegistry);
    this.#runner.onError((e) => this.#report(e));
    auditRunner(this.#runner);
    this.#runner.insideAgent(carried.line, (path, kind, line) => this.#notices.show(path, kind, line));
  }

  install(): void {
    for (const event of [...this.#carried.results, ...this.#carried.notified]) {
      this.#pi.on(event, (payload: HookEvent & Record<string, unknown>, ctx: AgentContext) => this.#forward(event, payload, ctx));
      // One more handler per message the modules' handlers may return (what they registered, or did at the agent's previous start).
      if (event === "before_agent_start") this.#addSlots(this.#handlerCount(event) - 1);
    }
    const deps: MirrorDeps = {
      after: () => this.#afterRegistrationsChanged(),
      enter: (ctx: AgentContext) => { this.#live.set(ctx); this.#initialize(ctx); },
      report: (e: HookError) => this.#report(e),
      closed: () => this.#disposed,
      commandContext: (ctx: AgentContext & Record<string, any>) => ({
        ...this.#runner.createCommandContext(),
        waitForIdle: () => ctx.waitForIdle(),
        newSession: (options: any) => ctx.newSession(options),
        branch: (entryId: string) => ctx.fork(entryId),
        navigateTree: (targetId: string, options: any) => ctx.navigateTree(targetId, options),
      }),
    };
    this.#deps = deps;
    const early = this.#early;
    if (early) {
      deps.ready = (hook, key) => this.#ready(hook, key);
      early.modules.forEach((m, i) => {
        const manifest = early.previous[i]!;
        this.#mirrored.set(m.path, new Set(manifestKeys(manifest)));
        mirrorRegistrations(this.#pi, m.hook!, deps, manifest);
        for (const type of manifest.renderers) this.#mirrorRenderer(type);
      });
      const first = early.previous.flatMap((m, i) => (BEFORE_FIRST_REQUEST.some((type) => (m.events[type] ?? 0) > 0) ? [this.#arrival(i)] : []));
      void Promise.all(first).then(() => setTimeout(() => void this.#all(), IDLE_START_MS).unref());
      return;
    }
    for (const hook of this.#runner.getHooks()) {
      this.#mirrored.set(hook.path, new Set(registrationKeys(hook)));
      if (hook instanceof IsolatedHook) mirrorRegistrations(this.#pi, hook, deps);
    }
    this.#mirrorRenderers();
  }

  /** Early: resolves when the modules the agent calls synchronously (`calledSynchronously` of their previous start) arrived. */
  synchronousArrived(): Promise<unknown> {
    const early = this.#early;
    return Promise.all(early?.previous.flatMap((m, i) => (calledSynchronously(m) ? [this.#arrival(i)] : [])) ?? []);
  }

  /** Early: what an event of `type` waits for, the modules whose previous start handled it (every module for `WAIT_FOR_ALL`). */
  #waitFor(type: string): Promise<unknown> {
    const early = this.#early!;
    if (WAIT_FOR_ALL.has(type)) return this.#all();
    // The agent is sending its request to the model: the modules its answer may need (tool calls)
    // start behind it, one per turn of the loop (starting a worker takes the agent's thread; measured,
    // starting them all at `context` delayed the request by the 7 workers' start: docs/performance.md).
    if (type === "before_provider_request" && this.#arrived === undefined) setTimeout(() => void this.#all(), 0).unref();
    return Promise.all(early.previous.flatMap((m, i) => ((m.events[type] ?? 0) > 0 ? [this.#arrival(i)] : [])));
  }

  /** Early: module `i` arrived and was checked; its worker starts at the first call. */
  #arrival(i: number): Promise<void> {
    return (this.#arrivals[i] ??= this.#early!.modules[i]!.begin().then((failure) => this.#arrive(i, failure)));
  }

  /** Early: every module arrived and the set was checked. Those not started yet start one per turn of the agent's loop, so its I/O goes between. */
  #all(): Promise<void> {
    return (this.#arrived ??= (async () => {
      const arrivals: Array<Promise<void>> = [];
      for (let i = 0; i < this.#early!.modules.length; i++) {
        if (this.#arrivals[i] === undefined) await new Promise((resolve) => setImmediate(resolve));
        arrivals.push(this.#arrival(i));
      }
      await Promise.all(arrivals);
    })().then(() => this.#allArrived()));
  }

  /**
   * Early: a mirrored tool, command or shortcut (`key`) may run once every module arrived (so a
   * refusal is known); it throws when its module did not load, or no longer registers it.
   */
  async #ready(hook: IsolatedHook, key: string): Promise<void> {
    await this.#all();
    const unloaded = this.#unloaded.find((u) => u.path === hook.path);
    if (unloaded) throw Errors.loadFailed(hook.path, `it did not load (${unloaded.code}): ${unloaded.error}`);
    if (!registrationKeys(hook).includes(key)) {
      const [kind, name] = [key.slice(0, key.indexOf(":")), key.slice(key.indexOf(":") + 1)];
      throw new Error(terminalText(`hookbox: ${hook.path} no longer registers the ${kind} "${name}" (it did at the agent's previous start, which this start mirrored; the next start will not have it)`, { colors: false }));
    }
  }

  /**
   * Early: module `i` arrived. What a first start would refuse is refused the same way (it failed
   * to load, a registration cannot cross or is above its policy.effects). What it registers
   * otherwise than at its previous start is taken as far as the agent takes it now: a new event
   * handler gets the events from now on, a new tool is registered (the agent takes tools at any
   * time); a new command, flag or shortcut (the agent takes those only at load), a handler of an
   * event that already passed it, and a registration it no longer makes are named in one warning.
   * The next start mirrors what it registers now (#allArrived rewrites the record).
   */
  async #arrive(i: number, failure: HookFailure | undefined): Promise<void> {
    const early = this.#early!;
    const { path, hook } = early.modules[i]!;
    let refused: Unloaded | undefined;
    if (failure) {
      refused = { path, code: failure.code, error: failure.message };
    } else {
      for (const warning of loadWarnings(hook!)) this.#notices.show(path, `warning:${warning}`, `hookbox: ${path}: ${warning}`);
      const effect = refusedEffect(hook!, early.builtIns);
      const why = effect ? undefined : refusedRegistration(hook!, this.#carried);
      if (effect) refused = { path, code: effect.code, error: effect.message };
      else if (why) refused = { path, code: "load_failed", error: Errors.loadFailed(path, why).message };
    }
    this.#pending.delete(path);
    if (refused) {
      this.#unloaded.push(refused);
      if (!this.#isOptional(path)) this.#blocking.push(refused);
      this.#report({ hookPath: path, event: "load", code: refused.code, error: refused.error });
      if (!failure) await hook!.dispose();
      return;
    }
    showUnfired(this.#notices, hook!, this.#carried);
    this.#atLoad[i] = hook!.manifest;
    const changes = this.#takeChanges(hook!, early.previous[i]!);
    this.#checked.set(hook!, hook!.registrations);
    this.#mirrorRenderers();
    if (changes.length > 0) {
      const mirrored = early.recorded[i] ? "at the agent's previous start" : "a reading of its source found";
      this.#notices.show(path, "changed-since-previous-start", `hookbox: ${path} registered otherwise than ${mirrored}, which this start mirrored while the module loaded: ${changes.join("; ")}. The next start has what it registers now.`);
    }
  }

  /** Early: what module `hook` registers now that its previous start (`before`) did not, taken where the agent takes it; the rest, as phrases. */
  #takeChanges(hook: IsolatedHook, before: Manifest): string[] {
    const mirrored = this.#mirrored.get(hook.path)!;
    const now = registrationKeys(hook);
    const leftOut: string[] = [];
    for (const key of now.filter((k) => !mirrored.has(k))) {
      const [kind, name] = [key.slice(0, key.indexOf(":")), key.slice(key.indexOf(":") + 1)];
      const tool = kind === "tool" ? hook.registrations.tools?.find((t) => t.name === name) : undefined;
      // A name another module has is refused (as at a first start) once every module arrived (#allArrived).
      const elsewhere = [...this.#mirrored].some(([path, keys]) => path !== hook.path && keys.has(key));
      if (tool && !elsewhere) mirrorTool(this.#pi, hook, tool, this.#deps!);
      else if (!tool) leftOut.push(`${kind} "${name}"`);
      mirrored.add(key);
    }
    const gone = [...mirrored].filter((k) => !now.includes(k)).map((k) => `${k.slice(0, k.indexOf(":"))} "${k.slice(k.indexOf(":") + 1)}"`);
    const missed = Object.keys(hook.manifest.events).filter((type) => (hook.manifest.events[type] ?? 0) > 0 && this.#forwarded.has(type) && !((before.events[type] ?? 0) > 0));
    return [
      ...(leftOut.length > 0 ? [`${leftOut.join(", ")} not registered in the agent until it starts again (the agent takes commands, flags and shortcuts only at load)`] : []),
      ...(gone.length > 0 ? [`${gone.join(", ")} no longer registered (a call answers an error naming it)`] : []),
      ...(missed.length > 0 ? [`its handler of ${missed.map((t) => `"${t}"`).join(", ")} missed what the agent sent before the module loaded`] : []),
    ];
  }

  /** Early: every module arrived. Names two modules registered are refused as at a first start; the record is rewritten, or removed when a module did not load. */
  async #allArrived(): Promise<void> {
    const early = this.#early!;
    const taken = new Set<string>();
    for (const { path, hook } of early.modules) {
      if (this.#unloaded.some((u) => u.path === path)) continue;
      const refusal = registrationRefusal(hook!, taken);
      if (!refusal) continue;
      const late: Unloaded = { path, code: "load_failed", error: Errors.loadFailed(path, refusal).message };
      this.#unloaded.push(late);
      if (!this.#isOptional(path)) this.#blocking.push(late);
      this.#report({ hookPath: path, event: "load", code: "load_failed", error: late.error });
      await hook!.dispose();
    }
    this.#complete = true;
    // Each module's record: what it registered at load, or that it did not load or cross (the next start waits for it).
    const manifests = early.modules.map((m, i) => (this.#unloaded.some((u) => u.path === m.path) ? undefined : this.#atLoad[i] ?? m.hook!.manifest));
    if (manifests.some((m, i) => m === undefined || !early.recorded[i] || !sameManifest(m, early.previous[i]!))) {
      await writeStartsAfterLoad(early.records.files, early.records.again, manifests.map((m) => m ?? UNLOADED));
    }
  }

  /**
   * Each message renderer a module registered (worker isolation: `refusedRegistration`), on the
   * agent's `pi`: the agent's TUI gets hookbox's component stand-in (render(width) → lines, bounded
   * and gated by src/isolation/render-guard.ts). Renderers registered after load are mirrored at the
   * next event pi forwards.
   */
  #mirrorRenderers(): void {
    for (const hook of this.#runner.getHooks()) {
      if (this.#unloaded.some((u) => u.path === hook.path)) continue;
      for (const type of hook.messageRenderers.keys()) this.#mirrorRenderer(type);
    }
  }

  /** One message renderer on the agent's `pi`, answered by whichever module registered `type` (none: the agent renders by default). */
  #mirrorRenderer(type: string): void {
    const register = this.#pi.registerMessageRenderer;
    if (typeof register !== "function" || this.#renderers.has(type)) return;
    this.#renderers.add(type);
    register.call(this.#pi, type, (message: unknown, options: unknown, theme: unknown) =>
      this.#runner.getMessageRenderer(type)?.(message as never, options as never, theme as never));
  }

  async #forward(type: string, event: HookEvent & Record<string, unknown>, ctx: AgentContext): Promise<unknown> {
    this.#live.set(ctx);
    this.#initialize(ctx);
    if (this.#early && !this.#complete) {
      await this.#waitFor(type);
      this.#forwarded.add(type);
    }
    if (type === "tool_call" && this.#blocking.length > 0) {
      for (const u of this.#blocking) this.#runner.observer.emit(unloadedRecord(u, event, this.#carried.line, process.cwd()));
      return { block: true, reason: this.#blockReason() };
    }
    if (this.#disposed) return undefined;
    const threw: HookError[] = [];
    this.#threw.set(type, [...(this.#threw.get(type) ?? []), threw]);
    let result: unknown;
    try {
      result = this.#runner.hasHandlers(type) ? await this.#emit(type, event) : undefined;
    } finally {
      this.#threw.set(type, (this.#threw.get(type) ?? []).filter((t) => t !== threw));
    }
    this.#afterRegistrationsChanged();
    if (type === "session_shutdown") {
      this.#disposed = true;
      await this.#runner.dispose();
    }
    // Why a throw: it reaches the agent's own error path (pi's runner reports it by the extension's
    // path), after the loaded modules got the event.
    if (type === "session_start" && this.#unloaded.length > 0 && !this.#reportedUnloaded) {
      this.#reportedUnloaded = true;
      for (const e of threw) this.#show(reportLine(e), "error", e.hookPath);
      throw new Error(terminalText(`hookbox: ${this.#unloaded.map((u) => `${u.path} did not load (${u.code}): ${u.error}${this.#isOptional(u.path) ? " (optional: it blocks no tool call)" : ""}`).join("; ")}`
        + (this.#blocking.length > 0 ? "; every tool call is blocked (fail closed)" : ""), { colors: false, multiline: true }));
    }
    // A module's own throw where nothing answered: the agent's own error path, as if the module ran in
    // its process (pi reports it as the extension's error, with the module's message); others are shown.
    if (threw.length > 0 && result === undefined) {
      for (const e of threw.slice(1)) this.#show(reportLine(e), "error", e.hookPath);
      // The module's message, without the ` [CODE]` the runner adds for an error with a code (src/runner/handler-failures.ts).
      throw new Error(threw[0]!.error.replace(/ \[[A-Z][A-Z0-9_]*\]$/, ""));
    }
    for (const e of threw) this.#show(reportLine(e), "error", e.hookPath);
    return result;
  }

  async #emit(type: string, event: HookEvent & Record<string, unknown>): Promise<unknown> {
    switch (type) {
      case "tool_call":
        return this.#runner.emitToolCall(event as Parameters<HookRunner["emitToolCall"]>[0]);
      case "context": {
        const messages = event.messages as Parameters<HookRunner["emitContext"]>[0];
        const out = await this.#runner.emitContext(messages);
        return out === messages ? undefined : { messages: out };
      }
      case "before_agent_start": {
        // The module gets the prompt, images, system prompt and the options pi built it from
        // (BuildSystemPromptOptions: plain data, cwd, tools, context files, skills) as data; its
        // result's `systemPrompt` (chained across handlers) goes back to pi. Every handler's
        // message is kept, in order (the agent's rule, src/contract/events.ts `agentRule`): the
        // first goes back with the system prompt, the others from the agent's next handlers.
        this.#stashed = [];
        const { prompt, images, systemPrompt, systemPromptOptions } = event as Record<string, unknown>;
        const result = await this.#runner.emit({ type, prompt, images, systemPrompt, systemPromptOptions: asData(systemPromptOptions) } as unknown as HookEvent) as
          { messages?: unknown[]; systemPrompt?: string } | undefined;
        if (result === undefined) return undefined;
        const [message, ...rest] = result.messages ?? [];
        this.#stashed = rest;
        this.#addSlots(rest.length - this.#slots);
        return { ...(message === undefined ? {} : { message }), ...(result.systemPrompt === undefined ? {} : { systemPrompt: result.systemPrompt }) };
      }
      default: {
        const result = await this.#runner.emit(event);
        return this.#carried.results.includes(type) ? result : undefined;
      }
    }
  }

  /** How many handlers of `type` the modules registered (an early start: at the agent's previous start). */
  #handlerCount(type: string): number {
    const manifests = this.#early?.previous ?? this.#runner.getHooks().flatMap((h) => (h instanceof IsolatedHook ? [h.manifest] : []));
    return manifests.reduce((n, m) => n + (m.events[type] ?? 0), 0);
  }

  /**
   * `count` more `before_agent_start` handlers on the agent, after the one that forwards the event:
   * the agent's handler returns one message and the agent keeps every handler's, so each returns
   * the next message the modules answered. Added while the agent emits (a module registered more
   * handlers than at install), they run in that same emit: pi and oh-my-pi walk the handler list
   * as it grows.
   */
  #addSlots(count: number): void {
    for (let i = 0; i < count; i++) {
      this.#slots++;
      this.#pi.on("before_agent_start", () => {
        const message = this.#stashed.shift();
        return message === undefined ? undefined : { message };
      });
    }
  }

  /**
   * After an event, only for the modules whose registrations changed since the last look (their
   * manifest is replaced when they register more; a module that did not is not walked again on
   * every event): what cannot cross is refused, and renderers registered after load are mirrored.
   */
  #afterRegistrationsChanged(): void {
    const changed = this.#runner.getHooks().filter((hook) => {
      // A module mirrored from the agent's previous start is looked at first when it arrives (#arrive).
      if (this.#pending.has(hook.path)) return false;
      const now = hook instanceof IsolatedHook ? hook.registrations : undefined;
      if (now !== undefined && this.#checked.get(hook) === now) return false;
      this.#checked.set(hook, now);
      return true;
    });
    if (changed.length === 0) return;
    this.#refuseLate(changed);
    this.#mirrorRenderers();
  }

  /**
   * A tool registered after load is mirrored on the agent's `pi`, as pi takes one (dynamic tools),
   * under the same gates as at load. A registration made after load that cannot cross (a refused
   * event, a renderer outside worker isolation, a command, flag or shortcut, a tool another module
   * has or one above the module's policy.effects) is refused as a load would be: reported once,
   * and that module then blocks every tool call.
   */
  #refuseLate(hooks: readonly LoadedHook[]): void {
    for (const hook of hooks) {
      if (this.#unloaded.some((u) => u.path === hook.path)) continue;
      const refused = this.#lateRefusal(hook);
      if (!refused) continue;
      // The refusal may quote a name the module chose: HookFailure's message passes the terminal-text gate.
      const error = refused.code === "effect_refused" ? `${refused.message} (registered after load)` : Errors.loadFailed(hook.path, `${refused.message} (registered after load)`).message;
      const late: Unloaded = { path: hook.path, code: refused.code, error };
      this.#unloaded.push(late);
      if (!this.#isOptional(hook.path)) this.#blocking.push(late);
      this.#report({ hookPath: hook.path, event: "load", code: refused.code, error: late.error });
    }
  }

  /** Mirrors the tools `hook` registered since its last look; what cannot cross, with its code. */
  #lateRefusal(hook: LoadedHook): { code: "load_failed" | "effect_refused"; message: string } | undefined {
    const refusal = refusedRegistration(hook, this.#carried);
    if (refusal) return { code: "load_failed", message: refusal };
    showUnfired(this.#notices, hook, this.#carried);
    const mirrored = this.#mirrored.get(hook.path) ?? new Set<string>();
    this.#mirrored.set(hook.path, mirrored);
    for (const key of registrationKeys(hook).filter((k) => !mirrored.has(k))) {
      const kind = key.slice(0, key.indexOf(":"));
      const name = key.slice(kind.length + 1);
      const tool = hook instanceof IsolatedHook && kind === "tool" ? hook.registrations.tools?.find((t) => t.name === name) : undefined;
      if (!tool || !(hook instanceof IsolatedHook) || !this.#deps) {
        return { code: "load_failed", message: `a ${kind} registered after load ("${name}") is refused by hookbox/extension: commands, flags and shortcuts cross when the module's factory registers them` };
      }
      if ([...this.#mirrored].some(([path, keys]) => path !== hook.path && keys.has(key))) {
        return { code: "load_failed", message: `pi.registerTool("${name}") is refused by hookbox/extension: another isolated module registered it first` };
      }
      const effect = refusedToolEffect(hook, tool, builtInTools(agentLine(this.#pi)));
      if (effect) return { code: "effect_refused", message: effect.message };
      mirrorTool(this.#pi, hook, tool, this.#deps);
      mirrored.add(key);
    }
    return undefined;
  }

  #initialize(ctx: AgentContext): void {
    if (this.#initialized) return;
    this.#initialized = true;
    this.#notices.attach((line) => this.#show(line, "warning"));
    const live = this.#live;
    this.#runner.initialize({
      getModel: () => live.current?.model,
      sendMessageHandler: (message, options) => this.#pi.sendMessage(message, options),
      appendEntryHandler: (customType, data) => this.#pi.appendEntry(customType, data),
      isIdle: () => live.require().isIdle(),
      abort: () => live.require().abort(),
      hasQueuedMessages: () => live.require().hasPendingMessages(),
      uiContext: live.ui,
      hasUI: Boolean(ctx.hasUI),
      // pi's getFlag answers this extension's flags; each module reads only the flags it registered.
      getFlagHandler: (hookPath, name) => (registeredFlag(this.#runner.getHooks(), hookPath, name) ? this.#pi.getFlag(name) : undefined),
      agent: agentAccess(this.#pi as unknown as Record<string, any>, live),
    });
  }

  #blockReason(): string {
    // A module not approved says why and which command approves it; the others are named with their code.
    const failed = this.#blocking.filter((u) => u.code !== "not_approved");
    const parts = [
      ...(failed.length > 0 ? [`isolated extension ${failed.map((u) => `${u.path} (${u.code})`).join(", ")} did not load`] : []),
      ...this.#blocking.filter((u) => u.code === "not_approved").map((u) => u.error),
    ];
    return terminalText(`hookbox: blocked because ${parts.join("; ")} (fail closed)`, { colors: false });
  }

  /** A fault of an isolated module: the agent's UI when it has one, else stderr as pi prints extension errors. */
  #report(e: HookError): void {
    const line = reportLine(e);
    // A refused effect names the policy.effects that grants it; said once per module, event and code, not per call.
    if (e.code === "effect_refused") { this.#notices.effect(e.hookPath, e.event, line); return; }
    // A handler's own throw during an event the agent is waiting on: #forward gives it to the agent (tool_call's is a block).
    const waiting = e.code === "handler_threw" && e.event !== "tool_call" ? this.#threw.get(e.event)?.at(-1) : undefined;
    if (waiting) { waiting.push(e); return; }
    this.#show(line, "error", e.hookPath);
  }

  /** `line` on the agent's UI, else its stderr; gated (a module's path is named by whoever wrote the repository). */
  #show(line: string, level: "error" | "warning", hookPath?: string): void {
    const ctx = this.#live.current;
    try {
      if (ctx?.hasUI) { ctx.ui.notify(terminalText(line, { colors: false, multiline: true }), level); return; }
    } catch { /* the agent's UI is gone: fall back to stderr */ }
    console.error(terminalText(hookPath === undefined ? line : `Extension error (${hookPath}): ${line}`, { colors: false, multiline: true }));
  }
}

const reportLine = (e: HookError) => `hookbox: ${e.hookPath}: ${e.code} in ${e.event}: ${e.error}`;
