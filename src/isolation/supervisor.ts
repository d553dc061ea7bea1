/**
 * `HookSupervisor`: one hook's isolated runtime (a worker thread, a child process, or a child
 * process in the bubblewrap sandbox; "worker" below, whichever it is), for its whole life: spawn,
 * load (the comlink control call), requests with deadlines, death and its name, and restarts
 * within the budget. (`hook.sandbox`, its read-only view, keeps its public name.)
 */
import { dirname, join } from "node:path";
import { Errors, HookFailure, describeThrown } from "../contract/errors.js";
import type { ResolvedSandboxOptions } from "../options/options.js";
import type { HookMessageRenderer } from "../contract/types.js";
import type { AgentModules, HostRequest, Manifest } from "../contract/protocol.js";
import { loadWorker, type CodeCacheReport } from "./load.js";
import { codeCacheFor, WARM_UP_MODULE, type CodeCache } from "./code-cache.js";
import { HookChannel } from "./channel.js";
import { SandboxBridge } from "../bridge/bridge.js";
import type { ExecGate } from "../bridge/exec-gate.js";
import type { ApprovedPins } from "../approval/store.js";
import { withCallerTheme } from "../bridge/render-theme.js";
import { grantReaching, hookEnv, permissionArgs } from "../policy/policy.js";
import { childEnv } from "../../worker/child-env.mjs";
import { cut } from "../../worker/describe.mjs";
import { deniedLine } from "../../worker/access.mjs";
import { ReadRefusal } from "../policy/read-grants.js";
import type { HookEndpoint } from "./endpoint.js";
import { classifyDeath } from "./death.js";
import type { SandboxLauncher } from "./bubblewrap/bwrap.js";
import { sandboxAvailability } from "./bubblewrap/availability.js";
import type { HookNetwork } from "../net/proxy.js";
import { spawnEndpoint, type ChildModes } from "./spawn.js";
import { Components, type RenderClient, type RenderOutcome, type ToolRendererStandIn } from "./render.js";
import { RenderGuard } from "./render-guard.js";
import { outputText } from "../gates/terminal-text.js";
import { RestartBudget } from "./restart-budget.js";
import { OutputLines, type OutputSink } from "./output.js";
import { CALLBACK_WINDOW_MS, CallbackBudget, EXEC_RECORDS_PER_WINDOW, LOG_LINES_PER_WINDOW } from "../gates/callback-budget.js";
import { transformCacheFor, transformCall, type TransformCache, type TransformRequest } from "../transform/cache.js";
import { hostModuleManifest } from "../bridge/host-modules.js";
import { TransformBudget } from "../transform/budget.js";
import { TransformOutOfMemory } from "../transform/transformer.js";
import { ownPermissionFlag, runtimePlan, type ChildRuntime } from "../policy/runtime.js";
import { NEXT, type SandboxBounds, type SandboxListener, type SandboxState, type SandboxView } from "./state.js";

export type { SandboxBounds, SandboxListener, SandboxState, SandboxView };


/** Process and sandbox modes' modules, once the first such module started (a worker-only host never loads them). */
let child: ChildModes | undefined;
/**
 * One import for every module that starts, however many start at once: the promise is kept, not
 * its result. Why: an agent that loads hookbox through jiti (pi's loader, `moduleCache: false`)
 * and is asked for the same file twice while the first is still in flight hands the second a copy
 * whose re-exports read an unset binding ("Cannot read properties of undefined"): two sandboxed
 * project modules failed their load so (e2e-pi-grants).
 */
let childLoad: Promise<ChildModes> | undefined;
const childModes = (): Promise<ChildModes> => (childLoad ??= import("./child-modes.js").then((m) => (child = m)));

/** The host's own threads that make the runtime's code cache (./code-cache.ts), with the cache each one makes. */
const makers = new WeakMap<HookSupervisor, CodeCache>();

export class HookSupervisor implements SandboxView {
  readonly hookPath: string;
  readonly resolvedPath: string;
  readonly cwd: string;
  readonly options: ResolvedSandboxOptions;
  /** The digest of the approval the loaded module runs under (`options.approval`), for its decision records. */
  approvedDigest: string | undefined;
  /** What that approval pinned (`options.approval`): the files `pi.exec` judges a project file it runs by (src/bridge/exec-pins.ts). */
  #approvedPins: ApprovedPins | undefined;
  /** Worker mode in the built package: whether V8 took the runtime's code cache the current worker was given (./code-cache.ts). */
  codeCache: "accepted" | "rejected" | undefined;
  #state: SandboxState = "starting";
  manifest: Manifest = { events: {}, commands: [], renderers: [] };
  restarts = 0;
  /** Counts the workers this sandbox started: state a worker keeps (its last context) is per generation. */
  generation = 0;
  lastFailure: HookFailure | undefined;
  /** The read-only face of this sandbox that `LoadedHook.sandbox` shows. */
  readonly view: SandboxView;

  /** What `pi.exec` may run for this hook and how (the sandbox's runner in sandbox mode). */
  readonly execGate: ExecGate;
  /** What the worker may ask of the host; the runner installs its surface (`bridge.install`). */
  readonly bridge: SandboxBridge;

  #worker: HookEndpoint | undefined;
  #render: RenderClient | undefined;
  readonly #components: Components;
  #channel: HookChannel | undefined;

  readonly #cache: TransformCache;
  /** Kept across restarts: a hook cannot reset its budget by crashing. */
  readonly #transformBudget: TransformBudget;
  #listeners = new Set<SandboxListener>();
  #budget: RestartBudget;
  /** The hook's log lines (stdout, stderr, pi.logger) per window, across restarts; past it one summary line. */
  readonly #logBudget: CallbackBudget;
  #initialized = false;
  #hasUI = false;
  #deathFailure: ((event: string) => HookFailure) | undefined;
  /** The death already reached callers as rejected requests (so it is not reported again). */
  #deathSeenByRequests = false;
  #exited: Promise<void> = Promise.resolve();
  /** The proxy of a sandboxed hook whose policy allows hosts; one for the hook's whole life, restarts included. */
  #network: HookNetwork | undefined;
  /** Sandbox mode: the current child's launcher, whose cgroups its `pi.exec` programs join. */
  #launcher: SandboxLauncher | undefined;
  /** Process and sandbox modes: the node that runs the hook (src/policy/runtime.ts). */
  #runtime: ChildRuntime | undefined;
  /** Limits this host's runtime does not enforce for this hook (worker mode on Bun), said in the load report. */
  #unenforced: readonly string[] | undefined;

  /**
   * What the current worker sent over the channel as its stdout and stderr (worker/stdio-bound.mjs),
   * cut into lines as its pipes are (./output.ts): one pair per worker, so a line one left open
   * never continues in the next.
   */
  #sentOutput: Record<"stdout" | "stderr", OutputLines> | undefined;
  /** Hook text bound for wherever the host prints it: as policy.terminal passes it (src/gates/terminal-text.ts). */
  readonly #onOutput: OutputSink = (stream, line, unterminated) => {
    const { options } = this;
    if (this.#logBudget.take()) options.onLog(this.hookPath, stream, outputText(line, options.policy.terminal === "raw", options.terminalText), ...(unterminated ? [true] as const : []));
  };

  /** Whether the module is an agent's extension (hookbox/extension): the agent-only registrations work in it. */
  readonly agent: boolean;
  /** The agent's own package names, resolved as the agent resolves them for its extensions (src/discovery/agent-packages.ts). */
  readonly agentModules: AgentModules | undefined;

  constructor(hookPath: string, resolvedPath: string, cwd: string, options: ResolvedSandboxOptions, agent = false, agentModules?: AgentModules) {
    this.agent = agent;
    this.agentModules = agentModules;
    this.hookPath = hookPath;
    this.resolvedPath = resolvedPath;
    this.cwd = cwd;
    this.options = options;
    const sandboxed = options.isolation === "sandbox";
    this.#logBudget = new CallbackBudget(LOG_LINES_PER_WINDOW, CALLBACK_WINDOW_MS, (dropped) =>
      options.onLog(hookPath, "warn", `[hookbox: ${dropped} log lines dropped (over ${LOG_LINES_PER_WINDOW} per ${CALLBACK_WINDOW_MS / 1000} s)]`));
    this.#budget = new RestartBudget(options.maxRestarts, options.restartWindowMs, options.maxLongRestarts, options.longRestartWindowMs);
    this.#components = new Components((body) => {
      if (this.#state !== "ready" || !this.#render) return { ok: false };
      try {
        const channel = this.#channel;
        return { ok: true, v: this.#render.call(body, (id, m, a) => channel?.answerSync(id, m, a)) };
      } catch (err) {
        const failure = err instanceof HookFailure ? err : Errors.handlerThrew(this.hookPath, "render", describeThrown(err));
        this.#fault(failure);
        return { ok: false, failure };
      }
    }, new RenderGuard(this.hookPath, this.options.renderBudgetMs, this.options.terminalText, (f) => this.#fault(f)));
    const execBudget = new CallbackBudget(EXEC_RECORDS_PER_WINDOW, CALLBACK_WINDOW_MS, (dropped) => options.onExec(hookPath, { command: "", args: [], dropped }));
    this.execGate = {
      policy: options.policy,
      // What the loaded module's approval pinned: a project file its programs run must be one of them, unchanged.
      pinned: () => this.#approvedPins,
      // Why bounded and cut: a hook chooses how often it calls pi.exec and what it names (a refusal is cheap to cause).
      record: (path, record) => { if (execBudget.take()) options.onExec(path, cutExecRecord(record)); },
      // A confined hook's programs start only where the hook may read (src/bridge/exec-gate.ts).
      ...(options.policy.permissionModel || sandboxed ? { reads: { folder: dirname(resolvedPath), fsRead: options.policy.fsRead, fsWrite: options.policy.fsWrite } } : {}),
      // Sandbox mode: pi.exec runs its program in a sandbox of the hook's shape and bounds, never in the host.
      ...(sandboxed ? {
        sandboxed,
        env: () => this.#env(),
        wrap: (command: string, args: string[], execCwd: string) => {
          const launcher = this.#launcher;
          // A launcher exists only once the sandbox started, which loaded `child`.
          if (!launcher || !child) throw new Error("pi.exec: the hook's sandbox is not running");
          const node = this.#runtime!.path;
          const spec = child.execSandboxSpec(child.hookSandboxSpec(options, resolvedPath, node, this.#env(), this.#network), execCwd);
          // With a network, the program runs behind a bridge of its own to the hook's proxy (its sandbox has its own network namespace).
          const run = this.#network ? child.netExecArgv(node, child.execProgram(command), args) : { command: child.execProgram(command), args };
          return { ...launcher.exec(spec, run.command, run.args), ended: () => launcher.execEnded() };
        },
      } : {}),
    };
    const self = this;
    this.view = Object.freeze({
      hookPath, resolvedPath, cwd, options,
      get bounds() { return self.bounds; },
      get unenforced() { return self.#unenforced; },
      get approvedDigest() { return self.approvedDigest; },
      get codeCache() { return self.codeCache; },
      get state() { return self.#state; },
      get restarts() { return self.restarts; },
      get lastFailure() { return self.lastFailure; },
      listen: (listener: SandboxListener) => this.listen(listener),
      dispose: () => this.dispose(),
    });
    this.#cache = transformCacheFor(options.transformCacheDir, options.transformCacheMaxBytes);
    this.#transformBudget = new TransformBudget(hookPath, options.transformBudget);
    this.bridge = new SandboxBridge({
      hookPath, cwd, gate: this.execGate, onLog: options.onLog, output: (stream, text) => this.#sentOutput?.[stream].write(text), takeLog: () => this.#logBudget.take(),
      // The worker reports each denial once; the embedder's onDenied gets it, else a line in the hook's log.
      // Why within the log budget: a hook can post reports itself, as many as it likes.
      denied: (permission, resource) => {
        if (!this.#logBudget.take()) return;
        if (options.onDenied) options.onDenied(hookPath, { permission, resource });
        else options.onLog(hookPath, "warn", deniedLine(permission, resource));
      }, hostModules: options.hostModules, policy: options.policy,
      isolation: options.isolation, terminal: options.terminalText,
      transform: (a) => this.#transform(a),
      runSetup: async () => { await this.request({ t: "setup" }, "command", Infinity); },
      renderer: (key) => withCallerTheme(this.renderer(key)),
      customRender: (op, key) => this.#components.custom(op, key),
    });
  }

  get state(): SandboxState {
    return this.#state;
  }

  /**
   * Sandbox mode: what bounds it here (never weaker without saying so); undefined where no sandbox
   * can be built. Read before the first start, it is found then (./bubblewrap/availability.ts, as
   * that start would: once per host), without process and sandbox modes' modules.
   */
  get bounds(): SandboxBounds | undefined {
    if (this.options.isolation !== "sandbox") return undefined;
    const a = sandboxAvailability();
    return a.ok ? { ...a.bounds, seccomp: true, ...(a.weaker ? { weaker: a.weaker } : {}) } : undefined;
  }

  listen(listener: SandboxListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The runner was initialized: `sendMessage` / `appendEntry` work from now on. */
  /** `pi.events` data for this hook's listeners (fire and forget; dropped when the worker is not running). */
  deliverEvent(channel: string, data: unknown): void {
    if (this.#state === "ready") this.#channel?.notify({ t: "bus", channel, data });
  }

  markInitialized(hasUI: boolean): void {
    this.#initialized = true;
    this.#hasUI = hasUI;
    this.#channel?.notify({ t: "initialized", hasUI });
  }

  /** Start the worker and load the hook. Resolves with the failure if loading failed (the worker is ended). */
  async start(): Promise<HookFailure | undefined> {
    const failure = await this.#spawnAndLoad();
    if (failure) {
      this.lastFailure = failure;
      this.#to("failed");
      await this.#terminate();
      await this.#network?.close();
      return failure;
    }
    // Initialized while it loaded (hookbox/extension starts some modules after the agent's first event): its load spec said not yet.
    if (this.#initialized) this.#channel?.notify({ t: "initialized", hasUI: this.#hasUI });
    this.#to("ready");
    return undefined;
  }

  /** Send one request to the worker. Rejects with a `HookFailure` carrying the code. */
  request(body: HostRequest, event: string, deadlineMs: number, signals?: Array<[string, AbortSignal]>): Promise<unknown> {
    if (this.#state !== "ready" || !this.#channel) return Promise.reject(this.#unavailable(event));
    return this.#channel.request(body, event, deadlineMs, signals);
  }

  /**
   * A renderer the host can call synchronously, as a TUI does: it renders in the worker within
   * `renderTimeoutMs`. When the worker fails or is too slow it returns `undefined` (default
   * rendering) and the failure is reported.
   */
  renderer(customType: string): HookMessageRenderer {
    return this.#components.renderer(customType);
  }

  /** A tool's `renderCall` or `renderResult`, as `renderer` (worker mode). */
  toolRenderer(name: string, slot: "call" | "result"): ToolRendererStandIn {
    return this.#components.toolRenderer(name, slot);
  }

  /** A tool's `prepareArguments`, run synchronously in the worker as a render (worker mode); not ok when it failed (reported). */
  prepareArguments(name: string, args: unknown): RenderOutcome {
    return this.#components.prepare(name, args);
  }

  /** End the worker for good. Idempotent. */
  async dispose(): Promise<void> {
    if (this.#state === "disposed") return this.#exited;
    this.#to("disposed");
    this.#deathFailure ??= (event) => Errors.disabled(this.hookPath, event, "the runner was disposed");
    this.#channel?.close(this.#deathFailure);
    await this.#terminate();
    await this.#network?.close();
  }

  /** The hook's environment: the embedder's `env` option (its own entries) or the policy's, always through the environment gate. */
  #env(): Record<string, string> {
    return this.options.env ? childEnv(this.options.env) : hookEnv(this.options.policy);
  }

  /** Why a request cannot run now, by state: a restarting hook comes back, a disabled one does not. */
  #unavailable(event: string): HookFailure {
    const last = this.lastFailure?.message ?? "unknown";
    switch (this.#state) {
      case "restarting": return Errors.restarting(this.hookPath, event, last);
      case "disposed": return Errors.disabled(this.hookPath, event, "the runner was disposed");
      case "failed": return Errors.disabled(this.hookPath, event, `it failed to load: ${last}`);
      default: return Errors.disabled(this.hookPath, event, `it failed ${this.#budget.exceeded}: ${last}`);
    }
  }

  /** Why the endpoint check: an answer that comes after its worker died is never written to a closed pipe. */
  #transform(args: unknown[]): Promise<unknown> {
    const asker = this.#worker;
    // Charged to this hook (src/transform/budget.ts): over budget, refused before any work.
    this.#transformBudget.admit((args as [TransformRequest])[0]);
    return transformCall(this.#cache, args as [TransformRequest], (ms) => this.#transformBudget.charge(ms)).then(
      (v) => (asker === this.#worker ? v : new Promise(() => {})),
      (err) => (asker !== this.#worker ? new Promise(() => {})
        // Out of the thread's heap: this hook's source did it (the thread runs one request at a time).
        : Promise.reject(err instanceof TransformOutOfMemory ? Errors.protocolViolation(this.hookPath, err.message, "transform") : err)),
    );
  }

  /**
   * The one place the state changes. Why `disposed` absorbs every later move: a load or restart
   * that settles after `dispose()` must not bring the sandbox back. Any other move the table
   * (`NEXT`) does not allow is a bug in hookbox.
   */
  #to(state: SandboxState): void {
    if (this.#state === "disposed") return;
    if (!NEXT[this.#state].includes(state)) throw new Error(`hookbox: sandbox of ${this.hookPath} cannot go from ${this.#state} to ${state}`);
    this.#state = state;
    for (const l of this.#listeners) l.state?.(state, this.view);
  }

  #fault(failure: HookFailure): void {
    for (const l of this.#listeners) l.fault?.(failure);
  }

  async #terminate(): Promise<void> {
    const worker = this.#worker;
    if (!worker) return;
    // Why a timer: the worker is unref'd when idle, and a caller awaiting dispose() must not see
    // the process exit under it before the worker's ports have closed.
    const hold = setInterval(() => {}, 1_000);
    try {
      await worker.terminate().catch(() => {});
      await this.#exited;
    } finally {
      clearInterval(hold);
    }
  }

  async #spawnAndLoad(): Promise<HookFailure | undefined> {
    const { options } = this;
    // Every load, restarts included, reads the module from disk again: it must still be what was approved.
    const verdict = options.approval?.();
    if (verdict instanceof HookFailure) return verdict;
    this.approvedDigest = verdict?.digest;
    this.#approvedPins = verdict?.pinned;
    // Why refuse: a hook that could read the cache reads other hooks' code; one that could write it poisons them.
    // A sandbox binds what the policy names whether or not Node's permission model is on.
    const reachPolicy = options.isolation === "sandbox" ? { ...options.policy, permissionModel: true } : options.policy;
    const reach = this.#cache.dir && !options.execArgv ? grantReaching(reachPolicy, this.resolvedPath, this.#cache.dir) : undefined;
    if (reach) {
      return Errors.loadFailed(this.hookPath, `its policy grants access to ${reach}, which holds the host's transform cache (${this.#cache.dir}); set the transformCacheDir option to a folder no hook may read, or narrow the policy`);
    }
    // What runs the hook here, or why nothing can without less than asked (a Bun host: src/policy/runtime.ts).
    const plan = runtimePlan(options);
    if (typeof plan === "string") return Errors.loadFailed(this.hookPath, plan);
    this.#runtime = plan.child;
    this.#unenforced = plan.unenforced;
    let execArgv: string[] | undefined;
    try {
      // The permission flag of the runtime that runs the hook: the child's node, or this host in worker mode.
      // The roots too large to walk whole are remembered in the host's private cache folder (src/policy/link-walk.ts).
      const largeRoots = this.#cache.dir ? join(this.#cache.dir, "large-roots") : undefined;
      execArgv = options.execArgv ?? permissionArgs(options.policy, this.resolvedPath, plan.child?.permissionFlag ?? ownPermissionFlag(), options.isolation !== "sandbox", largeRoots);
    } catch (err) {
      // A symbolic link out of the hook's package roots (src/policy/read-grants.ts): the message names it.
      if (err instanceof ReadRefusal) return Errors.loadFailed(this.hookPath, err.message);
      return Errors.loadFailed(this.hookPath, `the hook's ${options.isolation} could not be started: ${describeThrown(err)}`);
    }
    // Why wait one turn: the modules of one load compute their grants (above) before any of their
    // threads starts. A booting thread takes a core from this one: 20 of them on 2 cores stretched
    // 60 ms of grants to 250-450 ms, and the last module's start by as much.
    await null;
    const modes = options.isolation === "worker" ? undefined : await childModes();
    if (this.#state === "disposed") return Errors.disabled(this.hookPath, "load", "the runner was disposed");
    if (modes && options.isolation === "sandbox") {
      const available = sandboxAvailability();
      if (!available.ok) return Errors.loadFailed(this.hookPath, available.reason);
      try {
        this.#network ??= await modes.startHookNetwork(options.policy.network.allow, (record) => options.onNet(this.hookPath, record));
      } catch (err) {
        return Errors.loadFailed(this.hookPath, `the hook's network proxy could not be started: ${describeThrown(err)}`);
      }
    }
    // Worker mode: the runtime's code cache, or, in the host's own thread that makes it, the word to make it.
    const maker = makers.get(this);
    const codeCache = options.isolation === "worker" && !maker ? codeCacheFor(options.transformCacheDir) : undefined;
    const cacheReport: CodeCacheReport = { produce: maker !== undefined };
    const cacheBoot = maker ? { produce: true as const } : codeCache?.boot();
    const settle = () => codeCache?.settled(cacheReport.verdict, () => this.#makeCodeCache(codeCache));
    let endpoint: HookEndpoint;
    try {
      const launcher = modes && options.isolation === "sandbox" ? modes.sandboxLauncher(modes.hookSandboxSpec(options, this.resolvedPath, plan.child!.path, this.#env(), this.#network, this.cwd)) : undefined;
      this.#launcher = launcher;
      endpoint = spawnEndpoint(options, {
        boot: {
          hookPath: this.hookPath,
          maxMessageBytes: options.maxMessageBytes,
          syncTimeoutMs: options.syncTimeoutMs,
          ...(cacheBoot ? { codeCache: cacheBoot } : {}),
        },
        env: this.#env(),
        execArgv,
        runtime: plan.child?.path,
        resourceLimits: options.resourceLimits,
        renderTimeoutMs: options.renderTimeoutMs,
        onOutput: this.#onOutput,
      }, modes, launcher);
    } catch (err) {
      settle();
      // A symbolic link out of the hook's package roots (src/policy/read-grants.ts): the message names it.
      if (err instanceof ReadRefusal) return Errors.loadFailed(this.hookPath, err.message);
      // Building the sandbox failed (its memory group, node's libraries): never start it with less.
      return Errors.loadFailed(this.hookPath, `the hook's ${options.isolation} could not be started: ${describeThrown(err)}`);
    }
    this.#worker = endpoint;
    const sent = this.#sentOutput = { stdout: new OutputLines("stdout", this.#onOutput), stderr: new OutputLines("stderr", this.#onOutput) };
    this.generation++;
    this.#deathFailure = undefined;
    const channel = new HookChannel(endpoint, this.hookPath, this.bridge, {
      maxMessageBytes: options.maxMessageBytes,
      unresponsiveMs: options.unresponsiveMs,
      maxPostsPerSecond: options.maxPostsPerSecond,
      maxPausedMs: options.maxPausedMs,
    }, {
      fault: (f) => this.#fault(f),
      manifest: (m) => { this.manifest = m; },
      end: (failure) => this.#kill(endpoint, failure),
    });
    this.#channel = channel;
    this.#render = endpoint.render;

    let died!: (f: HookFailure) => void;
    const death = new Promise<HookFailure>((resolve) => (died = resolve));
    this.#deathSeenByRequests = false;
    this.#exited = new Promise((resolve) => endpoint.onDeath((end) => {
      this.#deathFailure ??= classifyDeath(this.hookPath, end);
      sent.stdout.end();
      sent.stderr.end();
      if (channel.close(this.#deathFailure) > 0) this.#deathSeenByRequests = true;
      died(this.#deathFailure("load"));
      // Ports close asynchronously; `dispose()` resolves once nothing of this worker is left.
      if (end.abandoned) resolve();
      else void endpoint.released.then(() => resolve());
      if (this.#worker === endpoint) {
        this.#worker = undefined;
        this.#channel = undefined;
        this.#render = undefined;
        if (this.#state !== "ready") return;
        // From now on calls are skipped (and tool calls blocked) until the restart is decided.
        this.#to("restarting");
        // Why setImmediate: callers whose requests were just rejected report the death first.
        setImmediate(() => this.#onExit());
      }
    }));

    const outcome = await loadWorker(endpoint, channel, this.hookPath, options, death,
      { resolvedPath: this.resolvedPath, cwd: this.cwd, initialized: this.#initialized, hasUI: this.#hasUI, agent: this.agent,
        hostModules: hostModuleManifest(options.hostModules, options.policy), ...(this.agentModules ? { agentModules: this.agentModules } : {}) }, cacheReport);
    this.codeCache = cacheReport.verdict;
    settle();
    if (maker && cacheReport.made) await maker.store(cacheReport.made);
    // The control plane is done after load: closing it leaves no handle that keeps the host alive.
    endpoint.closeControl();
    // A failure during load keeps its code (a factory that loops is `unresponsive`); the caller
    // does not restart a module that cannot load.
    if (outcome instanceof HookFailure) return outcome;
    await Promise.race([channel.flush(), death]);
    this.manifest = outcome;
    return undefined;
  }

  /**
   * Make the runtime's code cache: the host's own module (./code-cache.ts says why never a hook's),
   * in a worker thread started as this hook's are, then ended. Nothing of it reaches this hook's
   * listeners or the host's log.
   */
  async #makeCodeCache(cache: CodeCache): Promise<void> {
    const options: ResolvedSandboxOptions = { ...this.options, approval: undefined, onLog: () => {}, onDenied: undefined, maxRestarts: 0 };
    const maker = new HookSupervisor(WARM_UP_MODULE, WARM_UP_MODULE, dirname(WARM_UP_MODULE), options, this.agent);
    makers.set(maker, cache);
    try {
      await maker.start();
    } finally {
      await maker.dispose();
    }
  }

  #kill(worker: HookEndpoint, failure: (event: string) => HookFailure): void {
    if (this.#deathFailure) return;
    this.#deathFailure = failure;
    if (this.#channel && this.#channel.close(failure) > 0) this.#deathSeenByRequests = true;
    this.lastFailure = failure("worker");
    void worker.terminate();
  }

  #onExit(): void {
    const failure = this.#deathFailure!("worker");
    if (this.#state !== "restarting") return;
    this.lastFailure = failure;
    // A death between events has no caller to hear about it: report it here.
    if (!this.#deathSeenByRequests) this.#fault(failure);
    if (!this.#budget.allow(Date.now())) {
      this.#to("disabled");
      this.#fault(Errors.disabled(this.hookPath, "worker", `its worker died ${this.#budget.exceeded}; last: ${failure.message}`));
      return;
    }
    void this.#restart();
  }

  async #restart(): Promise<void> {
    this.restarts++;
    const failure = await this.#spawnAndLoad();
    if (this.#state !== "restarting") {
      if (this.#state === "disposed") await this.#terminate();
      return;
    }
    if (failure) {
      this.lastFailure = failure;
      await this.#terminate();
      this.#to("disabled");
      // A module changed since its approval is reported as that (not_approved, the file named), not as a failed load.
      this.#fault(failure.code === "not_approved" ? failure : Errors.disabled(this.hookPath, "worker", `its restart failed to load: ${failure.message}`));
      return;
    }
    if (this.#initialized) this.#channel?.notify({ t: "initialized", hasUI: this.#hasUI });
    this.#to("ready");
  }
}

/** An `onExec` record as the embedder gets it: command and arguments cut to 200 characters, at most 32 arguments, the refusal to 400. */
function cutExecRecord<R extends { command: string; args: string[]; refused?: string }>(record: R): R {
  return {
    ...record,
    command: cut(record.command, 200),
    args: record.args.slice(0, 32).map((a) => cut(a, 200)),
    ...(record.refused === undefined ? {} : { refused: cut(record.refused, 400) }),
  };
}
