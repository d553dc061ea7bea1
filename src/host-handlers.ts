/**
 * What the host wired in with `HookRunner.initialize`, and the contexts built from it: the
 * HookContext and HookCommandContext of each emit, and the surface the bridge calls when a worker
 * asks the host for something.
 */
import type { BridgeSurface } from "./bridge/host-bridge.js";
import { createNoOpUIContext } from "./bridge/ui.js";
import type {
  AppendEntryHandler, BranchHandler, HookCommandContext, HookContext, HookUIContext, Model, ModelRegistry, NavigateTreeHandler,
  NewSessionHandler, ReadonlySessionManager, SendMessageHandler,
} from "./types.js";

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
  }

  get initialized(): boolean {
    return this.#sendMessage !== undefined;
  }

  /** One per emit, as the original: `model` is a snapshot taken now. */
  context(): HookContext {
    return {
      ui: this.ui,
      hasUI: this.hasUI,
      cwd: this.cwd,
      sessionManager: this.sessionManager,
      modelRegistry: this.modelRegistry,
      model: this.#getModel(),
      isIdle: this.#ctxIsIdle,
      abort: this.#ctxAbort,
      hasQueuedMessages: this.#ctxHasQueued,
    };
  }

  // Built once: a context is made per emit, and these read the handlers `initialize` set.
  readonly #ctxIsIdle = () => this.#isIdle();
  readonly #ctxAbort = () => this.#abort();
  readonly #ctxHasQueued = () => this.#hasQueuedMessages();

  commandContext(): HookCommandContext {
    return {
      ...this.context(),
      waitForIdle: () => this.#waitForIdle(),
      newSession: (options) => this.#newSession(options),
      branch: (entryId) => this.#branch(entryId),
      navigateTree: (targetId, options) => this.#navigateTree(targetId, options),
    };
  }

  /** What the bridge of the hook at `hookPath` calls; every member reads the current handlers. */
  surface(hookPath: string, onLog: (hookPath: string, level: string, line: string) => void): BridgeSurface {
    return {
      sendMessage: (message, options) => {
        if (!this.#sendMessage) throw new Error("sendMessage handler not initialized");
        this.#sendMessage(message, options);
      },
      appendEntry: (customType, data) => {
        if (!this.#appendEntry) throw new Error("appendEntry handler not initialized");
        this.#appendEntry(customType, data);
      },
      ui: () => this.ui,
      sessionManager: this.sessionManager,
      modelRegistry: this.modelRegistry,
      isIdle: () => this.#isIdle(),
      hasQueuedMessages: () => this.#hasQueuedMessages(),
      abort: () => this.#abort(),
      waitForIdle: () => this.#waitForIdle(),
      newSession: (options) => this.#newSession(options),
      branch: (entryId) => this.#branch(entryId),
      navigateTree: (targetId, options) => this.#navigateTree(targetId, options),
      log: (level, line) => onLog(hookPath, level, line),
      cwd: this.cwd,
    };
  }
}

