/**
 * What the host wired in with `HookRunner.initialize`, and the contexts built from it: the
 * HookContext and HookCommandContext of each emit, and the surface the bridge calls when a worker
 * asks the host for something.
 */
import type { BridgeSurface } from "../bridge/host-bridge.js";
import type { AgentAccess } from "../bridge/agent-gate.js";
import { createNoOpUIContext } from "../bridge/ui.js";
import { scopedSurface } from "../bridge/command-scope.js";
import type {
  AppendEntryHandler, BranchHandler, HookCommandContext, HookContext, HookUIContext, Model, ModelRegistry, NavigateTreeHandler,
  NewSessionHandler, ReadonlySessionManager, SendMessageHandler,
} from "../contract/types.js";

export interface RunnerInitOptions {
  getModel: () => Model | undefined;
  sendMessageHandler: SendMessageHandler;
  appendEntryHandler: AppendEntryHandler;
  newSessionHandler?: NewSessionHandler;
  branchHandler?: BranchHandler;
  navigateTreeHandler?: NavigateTreeHandler;
  isIdle?: () => boolean;
  waitForIdle?: () => Promise<void>;
  abort?: () => void;
  hasQueuedMessages?: () => boolean;
  uiContext?: HookUIContext;
  hasUI?: boolean;
  /** `pi.getFlag(name)` called in the hook at `hookPath` (hookbox/extension answers with the agent's value). */
  getFlagHandler?: (hookPath: string, name: string) => boolean | string | undefined;
  /** The agent's own members (pi's `sendUserMessage`, `setModel`, `ctx.getContextUsage`…), when the host is an agent: hookbox/extension. */
  agent?: AgentAccess;
}

const notCancelled = async () => ({ cancelled: false });

export class HostHandlers {
  readonly cwd: string;
  readonly sessionManager: ReadonlySessionManager;
  readonly modelRegistry: ModelRegistry;
  ui: HookUIContext = createNoOpUIContext();
  hasUI = false;
  #getModel: () => Model | undefined = () => undefined;
  #isIdle: () => boolean = () => true;
  #waitForIdle: () => Promise<void> = async () => {};
  #abort: () => void = () => {};
  #hasQueuedMessages: () => boolean = () => false;
  #newSession: NewSessionHandler = notCancelled;
  #branch: BranchHandler = notCancelled;
  #navigateTree: NavigateTreeHandler = notCancelled;
  #sendMessage: SendMessageHandler | undefined;
  #appendEntry: AppendEntryHandler | undefined;
  #getFlag: NonNullable<RunnerInitOptions["getFlagHandler"]> = () => undefined;
  #agent: AgentAccess | undefined;
  /** Where a hook's `pi.events.emit` goes (the runner: to its other hooks). */
  #bus: ((from: string, channel: string, data: unknown) => void) | undefined;

  /** `pi.events` of this runner's hooks: `deliver` hands one hook's emit to the others. */
  setBus(deliver: (from: string, channel: string, data: unknown) => void): void {
    this.#bus = deliver;
  }

  constructor(cwd: string, sessionManager: ReadonlySessionManager, modelRegistry: ModelRegistry) {
    this.cwd = cwd;
    this.sessionManager = sessionManager;
    this.modelRegistry = modelRegistry;
  }

  /** As the original: missing optional functions fall back to defaults; session handlers are replaced only if given. */
  initialize(options: RunnerInitOptions): void {
    this.#getModel = options.getModel;
    this.#sendMessage = options.sendMessageHandler;
    this.#appendEntry = options.appendEntryHandler;
    if (options.newSessionHandler) this.#newSession = options.newSessionHandler;
    if (options.branchHandler) this.#branch = options.branchHandler;
    if (options.navigateTreeHandler) this.#navigateTree = options.navigateTreeHandler;
    this.#isIdle = options.isIdle ?? (() => true);
    this.#waitForIdle = options.waitForIdle ?? (async () => {});
    this.#abort = options.abort ?? (() => {});
    this.#hasQueuedMessages = options.hasQueuedMessages ?? (() => false);
    this.ui = options.uiContext ?? createNoOpUIContext();
    this.hasUI = options.hasUI ?? false;
    this.#getFlag = options.getFlagHandler ?? (() => undefined);
    this.#agent = options.agent;
  }

  get initialized(): boolean {
    return this.#sendMessage !== undefined;
  }

  /**
   * The one place the context members are forwarded to the handlers `initialize` set: a command
   * context whose every member reads them at call time (built once). The contexts of each emit
   * take its members; the bridge's surface is built from it like a command's caller's context
   * (`scopedSurface`).
   */
  readonly #live: HookCommandContext = ((self) => ({
    get ui() { return self.ui; },
    get hasUI() { return self.hasUI; },
    get model() { return self.#getModel(); },
    // Getters: a field initializer runs before the constructor sets these.
    get cwd() { return self.cwd; },
    get sessionManager() { return self.sessionManager; },
    get modelRegistry() { return self.modelRegistry; },
    isIdle: () => self.#isIdle(),
    abort: () => self.#abort(),
    hasQueuedMessages: () => self.#hasQueuedMessages(),
    waitForIdle: () => self.#waitForIdle(),
    newSession: (options) => self.#newSession(options),
    branch: (entryId) => self.#branch(entryId),
    navigateTree: (targetId, options) => self.#navigateTree(targetId, options),
  }))(this);

  /** One per emit, as the original: `model` is a snapshot taken now. */
  context(): HookContext {
    const live = this.#live;
    return {
      ui: this.ui,
      hasUI: this.hasUI,
      cwd: this.cwd,
      sessionManager: this.sessionManager,
      modelRegistry: this.modelRegistry,
      model: this.#getModel(),
      isIdle: live.isIdle,
      abort: live.abort,
      hasQueuedMessages: live.hasQueuedMessages,
    };
  }

  commandContext(): HookCommandContext {
    const live = this.#live;
    return { ...this.context(), waitForIdle: live.waitForIdle, newSession: live.newSession, branch: live.branch, navigateTree: live.navigateTree };
  }

  /** What the bridge of the hook at `hookPath` calls; every member reads the current handlers. */
  surface(hookPath: string, onLog: (hookPath: string, level: string, line: string) => void): BridgeSurface {
    return scopedSurface({
      sendMessage: (message, options) => {
        if (!this.#sendMessage) throw new Error("sendMessage handler not initialized");
        this.#sendMessage(message, options);
      },
      appendEntry: (customType, data) => {
        if (!this.#appendEntry) throw new Error("appendEntry handler not initialized");
        this.#appendEntry(customType, data);
      },
      log: (level, line) => onLog(hookPath, level, line),
      getFlag: (name) => this.#getFlag(hookPath, name),
      cwd: this.cwd,
      agent: () => this.#agent,
      busEmit: (channel, data) => this.#bus?.(hookPath, channel, data),
    }, this.#live);
  }
}

