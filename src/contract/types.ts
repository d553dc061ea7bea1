/**
 * The hook contract's types: events, results, contexts and the HookAPI a hook factory receives.
 * Shapes follow the original in-process hook subsystem's `hooks` module; the agent's own
 * shapes it uses (messages, session entries, model, model registry) are in `agent-types.ts`,
 * re-exported here, so hook modules type-check without the agent's packages.
 */
import type {
  AgentMessage, BranchSummaryEntry, CompactionEntry, CompactionPreparation, CompactionResult, HookMessage, HookMessageRecord,
  ImageContent, Model, ModelRegistry, ReadonlySessionManager, SendMessageOptions, SessionEntry, SessionManager, ToolContent,
  ToolResultMessage, TreePreparation,
} from "./agent-types.js";

export * from "./agent-types.js";
// ---------------------------------------------------------------------------------------------
// UI

/**
 * The agent's theme (pi's `Theme`, structurally): the style methods that take and return strings,
 * which reach the agent's own theme from a worker. No index signature: pi's `Theme` is a class, so
 * one would keep pi's theme from being passed where this type is asked for. Colours are names
 * (pi's `ThemeColor` / `ThemeBg`; oh-my-pi's differ), so `string` here.
 */
export interface Theme {
  readonly name?: string;
  readonly sourcePath?: string;
  fg(color: string, text: string): string;
  bg(color: string, text: string): string;
  bold(text: string): string;
  italic(text: string): string;
  underline(text: string): string;
  // pi's theme has these; a host's own theme may not (the original's has the five above).
  inverse?(text: string): string;
  strikethrough?(text: string): string;
  getFgAnsi?(color: string): string;
  getBgAnsi?(color: string): string;
  getColorMode?(): "truecolor" | "256color";
}
export interface Component { render(width: number): string[]; handleInput?(data: string): void; invalidate?(): void }
/**
 * The terminal UI a `ctx.ui.custom()` factory receives (`TUI` of the original). Hooks mostly pass it
 * on to components or ask for a redraw; its other members are the agent's.
 */
export interface TUI { requestRender(force?: boolean): void; [member: string]: any }

/**
 * A dialog's options, as pi's `ExtensionUIDialogOptions`: the UI dismisses the dialog after
 * `timeout` ms or when `signal` aborts (confirm answers false, the others undefined). Passed to the
 * host's UI only when the hook gave them.
 */
export interface HookDialogOptions {
  signal?: AbortSignal;
  timeout?: number;
}

export interface HookUIContext {
  select(title: string, options: string[], dialog?: HookDialogOptions): Promise<string | undefined>;
  confirm(title: string, message: string, dialog?: HookDialogOptions): Promise<boolean>;
  input(title: string, placeholder?: string, dialog?: HookDialogOptions): Promise<string | undefined>;
  notify(message: string, type?: "info" | "warning" | "error"): void;
  setStatus(key: string, text: string | undefined): void;
  custom<T>(factory: (tui: TUI, theme: Theme, done: (result: T) => void) => (Component & { dispose?(): void }) | Promise<Component & { dispose?(): void }>): Promise<T>;
  setEditorText(text: string): void;
  getEditorText(): string;
  editor(title: string, prefill?: string, dialog?: HookDialogOptions): Promise<string | undefined>;
  readonly theme: Theme;
}

// ---------------------------------------------------------------------------------------------
// Contexts

export interface HookContext {
  ui: HookUIContext;
  hasUI: boolean;
  cwd: string;
  sessionManager: ReadonlySessionManager;
  modelRegistry: ModelRegistry;
  model: Model | undefined;
  isIdle(): boolean;
  abort(): void;
  hasQueuedMessages(): boolean;
}

export interface NewSessionOptions { parentSession?: string; setup?: (sm: SessionManager) => Promise<void> }
export interface HookCommandContext extends HookContext {
  waitForIdle(): Promise<void>;
  newSession(options?: NewSessionOptions): Promise<{ cancelled: boolean }>;
  branch(entryId: string): Promise<{ cancelled: boolean }>;
  navigateTree(targetId: string, options?: { summarize?: boolean }): Promise<{ cancelled: boolean }>;
}

// ---------------------------------------------------------------------------------------------
// Events

export interface SessionStartEvent { type: "session_start" }
export interface SessionBeforeSwitchEvent { type: "session_before_switch"; reason: "new" | "resume" | "fork"; targetSessionFile?: string }
export interface SessionSwitchEvent { type: "session_switch"; reason: "new" | "resume" | "fork"; previousSessionFile: string | undefined }
export interface SessionBeforeBranchEvent { type: "session_before_branch"; entryId: string }
export interface SessionBranchEvent { type: "session_branch"; previousSessionFile: string | undefined }
/** pi's name for a branch: fired before forking the session at an entry (can be cancelled). */
export interface SessionBeforeForkEvent { type: "session_before_fork"; entryId: string; position: "before" | "at" }
export interface SessionBeforeCompactEvent {
  type: "session_before_compact"; preparation: CompactionPreparation; branchEntries: SessionEntry[];
  customInstructions?: string; signal: AbortSignal;
}
export interface SessionCompactingEvent { type: "session.compacting"; sessionId: string; messages: AgentMessage[] }
export interface SessionCompactEvent { type: "session_compact"; compactionEntry: CompactionEntry; fromExtension: boolean }
export interface SessionShutdownEvent { type: "session_shutdown" }
export interface SessionBeforeTreeEvent { type: "session_before_tree"; preparation: TreePreparation; signal: AbortSignal }
export interface SessionTreeEvent {
  type: "session_tree"; newLeafId: string | null; oldLeafId: string | null; summaryEntry?: BranchSummaryEntry; fromExtension?: boolean;
}
export type SessionEvent =
  | SessionStartEvent | SessionBeforeSwitchEvent | SessionSwitchEvent | SessionBeforeBranchEvent | SessionBranchEvent
  | SessionBeforeCompactEvent | SessionCompactingEvent | SessionCompactEvent | SessionShutdownEvent
  | SessionBeforeTreeEvent | SessionTreeEvent | SessionBeforeForkEvent;

export interface ContextEvent { type: "context"; messages: AgentMessage[] }
export interface BeforeAgentStartEvent { type: "before_agent_start"; prompt: string; images?: ImageContent[]; systemPrompt?: string }
export interface AgentStartEvent { type: "agent_start" }
export interface AgentEndEvent { type: "agent_end"; messages: AgentMessage[] }
export interface TurnStartEvent { type: "turn_start"; turnIndex: number; timestamp: number }
export interface TurnEndEvent { type: "turn_end"; turnIndex: number; message: AgentMessage; toolResults: ToolResultMessage[] }
export interface AutoCompactionStartEvent { type: "auto_compaction_start"; reason: "threshold" | "overflow" | "idle"; action: "context-full" | "handoff" }
export interface AutoCompactionEndEvent {
  type: "auto_compaction_end"; action: "context-full" | "handoff"; result: CompactionResult | undefined; aborted: boolean;
  willRetry: boolean; errorMessage?: string; skipped?: boolean;
}
export interface AutoRetryStartEvent { type: "auto_retry_start"; attempt: number; maxAttempts: number; delayMs: number; errorMessage: string }
export interface AutoRetryEndEvent { type: "auto_retry_end"; success: boolean; attempt: number; finalError?: string }
export interface Rule { name: string; path: string; content: string; [key: string]: unknown }
export interface TtsrTriggeredEvent { type: "ttsr_triggered"; rules: Rule[] }
export interface TodoItem { id: string; content: string; status: "pending" | "in_progress" | "completed" | "abandoned"; notes?: string; details?: unknown }
export interface TodoReminderEvent { type: "todo_reminder"; todos: TodoItem[]; attempt: number; maxAttempts: number }

export interface ToolCallEvent { type: "tool_call"; toolName: string; toolCallId: string; input: Record<string, unknown> }
export interface ToolResultEvent {
  type: "tool_result"; toolName: string; toolCallId: string; input: Record<string, unknown>; content: ToolContent[];
  details?: unknown; isError?: boolean; isWarning?: boolean;
}

/** pi: the user's input, before the agent processes it. */
export interface InputEvent { type: "input"; text: string; images?: ImageContent[]; source: "interactive" | "rpc" | "extension" }
/** pi: a command the user runs with `!` or `!!`. */
export interface UserBashEvent { type: "user_bash"; command: string; excludeFromContext: boolean; cwd: string }
/** pi: a message was finalized. */
export interface MessageEndEvent { type: "message_end"; message: AgentMessage }
/** pi: before a request goes to the model's provider; `payload` is the request body. */
export interface BeforeProviderRequestEvent { type: "before_provider_request"; payload: unknown }
/** pi: after session_start, extensions may name more skill, prompt and theme files. */
export interface ResourcesDiscoverEvent { type: "resources_discover"; cwd: string; reason: "startup" | "reload" }

export type HookEvent =
  | SessionEvent | ContextEvent | BeforeAgentStartEvent | AgentStartEvent | AgentEndEvent | TurnStartEvent | TurnEndEvent
  | AutoCompactionStartEvent | AutoCompactionEndEvent | AutoRetryStartEvent | AutoRetryEndEvent | TtsrTriggeredEvent
  | TodoReminderEvent | ToolCallEvent | ToolResultEvent | InputEvent | UserBashEvent | MessageEndEvent | BeforeProviderRequestEvent
  | ResourcesDiscoverEvent;
export type HookEventType = HookEvent["type"];

// ---------------------------------------------------------------------------------------------
// Results

export interface SessionBeforeSwitchResult { cancel?: boolean }
export interface SessionBeforeBranchResult { cancel?: boolean; skipConversationRestore?: boolean }
export interface SessionBeforeCompactResult { cancel?: boolean; compaction?: CompactionResult }
export interface SessionCompactingResult { context?: string[]; prompt?: string; preserveData?: Record<string, unknown> }
export interface SessionBeforeTreeResult { cancel?: boolean; summary?: { summary: string; details?: unknown } }
export interface ContextEventResult { messages?: AgentMessage[] }
export interface BeforeAgentStartEventResult { message?: HookMessage; systemPrompt?: string }
export type SessionBeforeForkResult = SessionBeforeBranchResult;
export type InputEventResult = { action: "continue" } | { action: "transform"; text: string; images?: ImageContent[] } | { action: "handled" };
/** What a `user_bash` handler returns: the command's result (pi's `operations` are functions, which cannot cross). */
export interface UserBashEventResult {
  result?: { output: string; exitCode: number | undefined; cancelled: boolean; truncated: boolean; fullOutputPath?: string };
}
export interface MessageEndEventResult { message?: AgentMessage }
/** The provider request body that replaces the event's `payload`. */
export type BeforeProviderRequestEventResult = unknown;
export interface ResourcesDiscoverResult { skillPaths?: string[]; promptPaths?: string[]; themePaths?: string[] }
export interface ToolCallEventResult { block?: boolean; reason?: string }
export interface ToolResultEventResult { content?: ToolContent[]; details?: unknown; isError?: boolean; isWarning?: boolean }

/** Maps each event type to what its handlers may return. */
export interface HookResultMap {
  session_before_switch: SessionBeforeSwitchResult;
  session_before_branch: SessionBeforeBranchResult;
  session_before_compact: SessionBeforeCompactResult;
  "session.compacting": SessionCompactingResult;
  session_before_tree: SessionBeforeTreeResult;
  context: ContextEventResult;
  before_agent_start: BeforeAgentStartEventResult;
  tool_call: ToolCallEventResult;
  tool_result: ToolResultEventResult;
  session_before_fork: SessionBeforeForkResult;
  input: InputEventResult;
  user_bash: UserBashEventResult;
  message_end: MessageEndEventResult;
  before_provider_request: BeforeProviderRequestEventResult;
  resources_discover: ResourcesDiscoverResult;
}
export type HookResultFor<T extends string> = T extends keyof HookResultMap ? HookResultMap[T] : undefined;
export type HookEventOf<T extends HookEventType> = Extract<HookEvent, { type: T }>;
/** The contract event whose name starts with `T` (`T` is a prefix of it), if any. */
type ContractNameStartingWith<T extends string> = Extract<HookEventType, `${T}${string}`>;
/** The contract event names `T` starts with, if any. */
type ContractNamePrefixOf<T extends string> = HookEventType extends infer K ? (K extends string ? (T extends `${K}${string}` ? K : never) : never) : never;
/**
 * `T` when it is an event name outside the contract that is not a prefix of a contract name nor a
 * contract name with more after it (or a name only known as `string` at compile time); `never` otherwise.
 */
export type UnknownEventName<T extends string> =
  string extends T ? T : [ContractNameStartingWith<T>] extends [never] ? ([ContractNamePrefixOf<T>] extends [never] ? T : never) : never;
/** What `runner.emit(event)` resolves to for an event of type `T`: `context` gives the resulting messages. */
export type EmitResultFor<T extends string> = T extends "context" ? AgentMessage[] : T extends keyof HookResultMap ? HookResultMap[T] | undefined : undefined;

export type HookHandler<E = HookEvent, R = undefined> = (event: E, ctx: HookContext) => Promise<R | void> | R | void;

// ---------------------------------------------------------------------------------------------
// HookAPI

export interface ExecOptions { signal?: AbortSignal; timeout?: number; cwd?: string }
export interface ExecResult { stdout: string; stderr: string; code: number; killed: boolean }

export type HookMessageRenderer<T = unknown> = (message: HookMessageRecord<T>, options: { expanded: boolean }, theme: Theme) => Component | undefined;

export interface RegisteredCommand {
  name: string;
  description?: string;
  handler(args: string, ctx: HookCommandContext): Promise<void>;
}

export interface HookLogger {
  debug(...args: unknown[]): void; info(...args: unknown[]): void; warn(...args: unknown[]): void; error(...args: unknown[]): void;
}

/** The object a hook factory receives. */
export interface HookAPI {
  /** A contract event: the handler gets that event and may return only that event's result. */
  on<T extends HookEventType>(event: T, handler: HookHandler<HookEventOf<T>, HookResultFor<T>>): void;
  /**
   * An event outside the contract (an agent's own event): anything goes, hookbox never fires it.
   * A contract name, or one that looks like a slip of one (a prefix such as `"tool_cal"`, or a
   * contract name with more after it), is not accepted here, so a wrong result or a typo of those
   * does not compile.
   */
  on<T extends string>(event: T & UnknownEventName<T>, handler: HookHandler<{ type: T; [key: string]: unknown }, unknown>): void;
  sendMessage<T = unknown>(message: HookMessage<T>, options?: SendMessageOptions): void;
  appendEntry<T = unknown>(customType: string, data?: T): void;
  registerMessageRenderer<T = unknown>(customType: string, renderer: HookMessageRenderer<T>): void;
  registerCommand(name: string, options: { description?: string; handler(args: string, ctx: HookCommandContext): Promise<void> }): void;
  exec(command: string, args: string[], options?: ExecOptions): Promise<ExecResult>;
  logger: HookLogger;
}
export type HookFactory = (pi: HookAPI) => void | Promise<void>;

// ---------------------------------------------------------------------------------------------
// Handlers the host wires in

export type SendMessageHandler = <T = unknown>(message: HookMessage<T>, options?: SendMessageOptions) => void;
export type AppendEntryHandler = <T = unknown>(customType: string, data?: T) => void;
export type NewSessionHandler = (options?: NewSessionOptions) => Promise<{ cancelled: boolean }>;
export type BranchHandler = (entryId: string) => Promise<{ cancelled: boolean }>;
export type NavigateTreeHandler = (targetId: string, options?: { summarize?: boolean }) => Promise<{ cancelled: boolean }>;

/** A tool the agent runs (`AgentTool` of the original, structurally). */
export interface AgentToolResult<T = unknown> { content: ToolContent[]; details?: T; isWarning?: boolean }
export interface AgentTool<TParams = any, TDetails = any> {
  name: string;
  label?: string;
  description?: string;
  parameters?: unknown;
  execute(toolCallId: string, params: TParams, signal?: AbortSignal, onUpdate?: (partial: AgentToolResult<TDetails>) => void, context?: any): Promise<AgentToolResult<TDetails>>;
}
