/**
 * `HookSupervisor`: one hook's isolated runtime (a worker thread, a child process, or a child
 * process in the bubblewrap sandbox; "worker" below, whichever it is), for its whole life: spawn,
 * load (the comlink control call), requests with deadlines, and restarts within the budget; each
 * worker's channel and death are its generation's (./generation.ts), its states and listeners
 * its lifecycle's (./state.ts). (`hook.sandbox`, its read-only view, keeps its public name.)
 */
import { dirname } from "node:path";
import { Errors, HookFailure, describeThrown } from "../contract/errors.js";
import type { ResolvedSandboxOptions } from "../options/options.js";
import type { HookMessageRenderer } from "../contract/types.js";
import type { AgentModules, HostRequest, Manifest } from "../contract/protocol.js";
import { loadWorker } from "./load.js";
import { cacheMadeBy, makeCodeCache } from "./code-cache.js";
import { agentBundleForLoad } from "./agent-bundle.js";
import { hostRefusal, launch, type Placement } from "./launch.js";
import { hookExecGate } from "./hook-exec.js";
import { SandboxBridge } from "../bridge/bridge.js";
import type { ExecGate } from "../bridge/exec-gate.js";
import type { ApprovedPins } from "../contract/approved.js";
import { withCallerTheme } from "../bridge/render-theme.js";
import { sandboxAvailability } from "./bubblewrap/availability.js";
import { Components, type RenderOutcome, type ToolRendererStandIn } from "./render.js";
import { RenderGuard } from "./render-guard.js";
import { RestartBudget } from "./restart-budget.js";
import { TRANSFORM_FILE_CHARACTERS } from "../transform/budget.js";
import { HookLog } from "./hook-log.js";
import { hostModuleManifest } from "../bridge/host-modules.js";
import { HookTransforms } from "./hook-transform.js";
import { Lifecycle, sandboxView, type SandboxBounds, type SandboxListener, type SandboxState, type SandboxView } from "./state.js";
import { Generation } from "./generation.js";
import { PlantedGuard } from "./planted-guard.js";

export type { SandboxBounds, SandboxListener, SandboxState, SandboxView };

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
  readonly #life: Lifecycle;
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

  /** What a project module may not make in its granted folders, checked around each request (./planted-guard.ts). */
  readonly #guard: PlantedGuard | undefined;

  /** The current worker; none while it is restarted. */
  #gen: Generation | undefined;
  readonly #components: Components;

  /** Its transforms, cache and budget (./hook-transform.ts). */
  readonly #transforms: HookTransforms;
  #budget: RestartBudget;
  /** Its stdout, stderr, logger lines and denial reports, bounded across restarts (./hook-log.ts). */
  readonly #log: HookLog;
  #initialized = false;
  #hasUI = false;
  /** When nothing of the last worker is left. */
  #exited: Promise<void> = Promise.resolve();
  /** Its runtime, network proxy and sandbox launcher (./launch.ts). */
  readonly #placement: Placement = {};

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
    const log = this.#log = new HookLog(hookPath, options);
    this.#guard = PlantedGuard.of(options, hookPath);
    this.#budget = new RestartBudget(options.maxRestarts, options.restartWindowMs, options.maxLongRestarts, options.longRestartWindowMs);
    this.#life = new Lifecycle(hookPath, () => this.view);
    this.#components = new Components((body) => {
      const gen = this.#gen;
      if (this.state !== "ready" || !gen?.endpoint.render) return { ok: false };
      try {
        return { ok: true, v: gen.endpoint.render.call(body, (id, m, a) => gen.channel.answerSync(id, m, a)) };
      } catch (err) {
        const failure = err instanceof HookFailure ? err : Errors.handlerThrew(this.hookPath, "render", describeThrown(err));
        this.#fault(failure);
        return { ok: false, failure };
      }
    }, new RenderGuard(this.hookPath, this.options.renderBudgetMs, this.options.terminalText, (f) => this.#fault(f)));
    this.execGate = hookExecGate(hookPath, resolvedPath, options, this.#placement, () => this.#approvedPins);
    this.view = sandboxView(this);
    this.#transforms = new HookTransforms(hookPath, options);
    this.bridge = new SandboxBridge({
      hookPath, cwd, gate: this.execGate, onLog: options.onLog, output: (stream, text) => log.sent(stream, text), takeLog: () => log.take(),
      denied: (permission, resource) => log.denied(permission, resource), hostModules: options.hostModules, policy: options.policy,
      isolation: options.isolation, terminal: options.terminalText,
      transform: (a) => this.#transforms.call(a, () => this.#gen?.endpoint),
      runSetup: async () => { await this.request({ t: "setup" }, "command", Infinity); },
      renderer: (key) => withCallerTheme(this.renderer(key)),
      customRender: (op, key) => this.#components.custom(op, key),
    });
  }

  get state(): SandboxState {
    return this.#life.state;
  }

  get unenforced(): readonly string[] | undefined {
    return this.#placement.unenforced;
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
    return this.#life.listen(listener);
  }

  /** The runner was initialized: `sendMessage` / `appendEntry` work from now on. */
  /** `pi.events` data for this hook's listeners (fire and forget; dropped when the worker is not running). */
  deliverEvent(channel: string, data: unknown): void {
    if (this.state === "ready") this.#gen?.channel.notify({ t: "bus", channel, data });
  }

  markInitialized(hasUI: boolean): void {
    this.#initialized = true;
    this.#hasUI = hasUI;
    this.#gen?.channel.notify({ t: "initialized", hasUI });
  }

  /** What the host refuses before anything of the module runs (./launch.ts `hostRefusal`), checked now; `start` checks it again. */
  refusedBeforeLoad(): HookFailure | undefined {
    const checked = hostRefusal({ hookPath: this.hookPath, resolvedPath: this.resolvedPath, options: this.options, cacheDir: this.#transforms.cache.dir });
    return checked instanceof HookFailure ? checked : undefined;
  }

  /** Start the worker and load the hook. Resolves with the failure if loading failed (the worker is ended). */
  async start(): Promise<HookFailure | undefined> {
    const failure = await this.#spawnAndLoad();
    if (failure) {
      this.lastFailure = failure;
      this.#life.to("failed");
      await this.#terminate();
      await this.#placement.network?.close();
      return failure;
    }
    // Initialized while it loaded (hookbox/extension starts some modules after the agent's first event): its load spec said not yet.
    if (this.#initialized) this.#gen?.channel.notify({ t: "initialized", hasUI: this.#hasUI });
    this.#life.to("ready");
    return undefined;
  }

  /** Send one request to the worker. Rejects with a `HookFailure` carrying the code. */
  request(body: HostRequest, event: string, deadlineMs: number, signals?: Array<[string, AbortSignal]>): Promise<unknown> {
    if (this.state !== "ready" || !this.#gen) return Promise.reject(this.#life.unavailable(event, this.lastFailure, this.#budget.exceeded));
    const { channel } = this.#gen;
    const call = () => channel.request(body, event, deadlineMs, signals);
    return this.#guard ? this.#guard.around(event, call, () => this.#endPlanted(), (f) => { this.lastFailure = f; }) : call();
  }

  /**
   * A module that made a name git or an agent takes up in a granted folder is disabled and its
   * worker ended. Why before the removal: a module still running could swap a link in above a
   * path being removed, and take the removal out of its folder.
   */
  async #endPlanted(): Promise<void> {
    if (this.state === "ready" || this.state === "restarting") this.#life.to("disabled");
    this.#gen?.close((event) => Errors.disabled(this.hookPath, event, "it made a name git or an agent takes up in a folder it may write"));
    await this.#terminate();
    await this.#exited;
    // Its `pi.exec` programs outlive it (sandbox mode: in its cgroup).
    await this.#placement.launcher?.killAll();
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
    if (this.state === "disposed") return this.#exited;
    this.#life.to("disposed");
    this.#gen?.close((event) => Errors.disabled(this.hookPath, event, "the runner was disposed"));
    await this.#terminate();
    await this.#placement.network?.close();
  }

  #fault(failure: HookFailure): void {
    this.#life.fault(failure);
  }

  async #terminate(): Promise<void> {
    const worker = this.#gen?.endpoint;
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
    const launched = await launch({
      hookPath: this.hookPath, resolvedPath: this.resolvedPath, cwd: this.cwd, options,
      cacheDir: this.#transforms.cache.dir, placement: this.#placement, onOutput: this.#log.sink,
      approved: (digest, pinned) => { this.approvedDigest = digest; this.#approvedPins = pinned; },
      disposed: () => this.state === "disposed",
      maker: cacheMadeBy(this),
      // Nothing of the thread that makes it reaches this hook's listeners or the host's log.
      makeCodeCache: (cache) => makeCodeCache(cache, (module) => new HookSupervisor(module, module, dirname(module),
        { ...options, approval: undefined, onLog: () => {}, onDenied: undefined, maxRestarts: 0 }, this.agent)),
    });
    if (launched instanceof HookFailure) return launched;
    const { endpoint, cacheReport } = launched;
    const gen: Generation = new Generation(endpoint, this.hookPath, this.bridge, options, this.#log.nextWorker(), {
      fault: (f) => this.#fault(f),
      manifest: (m) => { this.manifest = m; },
      ended: (failure) => { this.lastFailure = failure("worker"); },
      died: () => {
        if (this.#gen !== gen) return;
        this.#gen = undefined;
        if (this.state !== "ready") return;
        // From now on calls are skipped (and tool calls blocked) until the restart is decided.
        this.#life.to("restarting");
        // Why setImmediate: callers whose requests were just rejected report the death first.
        setImmediate(() => this.#onExit(gen));
      },
    });
    this.#gen = gen;
    this.generation++;
    this.#exited = gen.exited;

    // The agent's TypeBox as one file, when the module's top file imports it (./agent-bundle.ts).
    const bundle = await agentBundleForLoad(this.agentModules, options.transformCacheDir, this.resolvedPath, options.maxMessageBytes,
      options.transformBudget.fileCharacters ?? TRANSFORM_FILE_CHARACTERS);
    const outcome = await loadWorker(endpoint, gen.channel, this.hookPath, options, gen.death,
      { resolvedPath: this.resolvedPath, cwd: this.cwd, initialized: this.#initialized, hasUI: this.#hasUI, agent: this.agent,
        hostModules: hostModuleManifest(options.hostModules, options.policy), ...(this.agentModules ? { agentModules: this.agentModules } : {}),
        ...(bundle.given ? { agentBundle: bundle.given } : {}) }, cacheReport).finally(() => bundle.settled());
    this.codeCache = cacheReport.verdict;
    await launched.loaded();
    // The control plane is done after load: closing it leaves no handle that keeps the host alive.
    endpoint.closeControl();
    // A failure during load keeps its code (a factory that loops is `unresponsive`); the caller
    // does not restart a module that cannot load.
    if (outcome instanceof HookFailure) return outcome;
    await Promise.race([gen.channel.flush(), gen.death]);
    this.manifest = outcome;
    return undefined;
  }

  #onExit(gen: Generation): void {
    const failure = gen.failure!("worker");
    if (this.state !== "restarting") return;
    this.lastFailure = failure;
    // A death between events has no caller to hear about it: report it here.
    if (!gen.seenByRequests) this.#fault(failure);
    if (!this.#budget.allow(Date.now())) {
      this.#life.to("disabled");
      this.#fault(Errors.disabled(this.hookPath, "worker", `its worker died ${this.#budget.exceeded}; last: ${failure.message}`));
      return;
    }
    void this.#restart();
  }

  async #restart(): Promise<void> {
    this.restarts++;
    const failure = await this.#spawnAndLoad();
    if (this.state !== "restarting") {
      if (this.state === "disposed") await this.#terminate();
      return;
    }
    if (failure) {
      this.lastFailure = failure;
      await this.#terminate();
      this.#life.to("disabled");
      // A module changed since its approval is reported as that (not_approved, the file named), not as a failed load.
      this.#fault(failure.code === "not_approved" ? failure : Errors.disabled(this.hookPath, "worker", `its restart failed to load: ${failure.message}`));
      return;
    }
    if (this.#initialized) this.#gen?.channel.notify({ t: "initialized", hasUI: this.#hasUI });
    this.#life.to("ready");
  }
}
