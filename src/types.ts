/**
 * The hook contract's types: events, results, contexts and the HookAPI a hook factory receives.
 * Shapes follow the original subsystem (`reference/original-hooks.md` §2-§9); the agent's own
 * message and session types are kept structural (`Record<string, unknown>` where the original
 * pulls them from other packages) so hook modules type-check without those packages.
 */

// ---------------------------------------------------------------------------------------------
// Content and messages (structural copies of the agent's types)

export interface TextContent { type: "text"; text: string; textSignature?: string }
export interface ImageContent { type: "image"; data: string; mimeType: string }
export type ToolContent = TextContent | ImageContent;

/** The agent's API and provider names (`Api` / `Provider` of the original: known names or any string). */
export type Api = string;
export type Provider = string;

export interface ThinkingContent { type: "thinking"; thinking: string; thinkingSignature?: string }
export interface ToolCall { type: "toolCall"; id: string; name: string; arguments: Record<string, any> }
export interface Usage {
  input: number; output: number; cacheRead: number; cacheWrite: number; totalTokens: number;
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
}
export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

// `timestamp` (and a custom message's `display`) are optional here, unlike the original: hosts and
// tests build messages by hand, and a hook that reads them sees the same fields either way.
export interface UserMessage { role: "user"; content: string | (TextContent | ImageContent)[]; timestamp?: number; attribution?: "user" | "agent" }
export interface AssistantMessage {
  role: "assistant"; content: (TextContent | ThinkingContent | ToolCall)[]; api: Api; provider: Provider; model: string;
  usage: Usage; stopReason: StopReason; errorMessage?: string; timestamp?: number;
}
export interface ToolResultMessage<TDetails = any> {
  role: "toolResult"; toolCallId: string; toolName: string; content: (TextContent | ImageContent)[]; details?: TDetails;
  isError: boolean; timestamp?: number;
}
/** An LLM message (`Message` of the original): user, assistant or tool result. */
export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** A hook's message as it sits in the conversation (`CustomMessage` of the original). */
export interface CustomMessage<T = unknown> {
  role: "custom"; customType: string; content: string | (TextContent | ImageContent)[]; display?: boolean; details?: T;
  attribution?: "user" | "agent"; timestamp?: number;
}
/**
 * The agent's other message roles (`bashExecution`, `branchSummary`, …). Their fields belong to
 * the agent; hookbox keeps them open so a hook that reads them type-checks.
 */
export interface OtherAgentMessage {
  role: "bashExecution" | "pythonExecution" | "branchSummary" | "compactionSummary" | "fileMention";
  timestamp?: number;
  [key: string]: any;
}
/** A message of the agent (`AgentMessage` of the original): an LLM message or one of the agent's own roles. */
export type AgentMessage = Message | CustomMessage | HookMessageRecord | OtherAgentMessage;

/** A custom message a hook sends or injects (`Pick<HookMessage, …>` of the original). */
export interface HookMessage<T = unknown> {
  customType: string;
  content: string | ToolContent[];
  display: boolean;
  details?: T;
  attribution?: "user" | "agent";
}
/** The full persisted hook message a renderer receives (`HookMessage` of the original, with its role and time). */
export interface HookMessageRecord<T = unknown> extends HookMessage<T> { role: "hookMessage" | "custom"; timestamp: number }

export interface SendMessageOptions { triggerTurn?: boolean; deliverAs?: "steer" | "followUp" }

// ---------------------------------------------------------------------------------------------
// Session shapes

export interface SessionEntryBase { type: string; id: string; parentId: string | null; timestamp: string }
export interface SessionMessageEntry extends SessionEntryBase { type: "message"; message: AgentMessage }
export interface ThinkingLevelChangeEntry extends SessionEntryBase { type: "thinking_level_change"; thinkingLevel?: string | null }
export interface ModelChangeEntry extends SessionEntryBase { type: "model_change"; /** `provider/modelId` */ model: string; role?: string }
export interface CompactionEntry<T = unknown> extends SessionEntryBase {
  type: "compaction"; summary: string; shortSummary?: string; firstKeptEntryId: string; tokensBefore: number; details?: T;
  preserveData?: Record<string, unknown>; fromExtension?: boolean;
}
export interface BranchSummaryEntry<T = unknown> extends SessionEntryBase { type: "branch_summary"; fromId: string; summary: string; details?: T; fromExtension?: boolean }
export interface CustomEntry<T = unknown> extends SessionEntryBase { type: "custom"; customType: string; data?: T }
export interface CustomMessageEntry<T = unknown> extends SessionEntryBase {
  type: "custom_message"; customType: string; content: string | (TextContent | ImageContent)[]; details?: T; display: boolean;
  attribution?: "user" | "agent";
}
export interface LabelEntry extends SessionEntryBase { type: "label"; targetId: string; label: string | undefined }
export interface TtsrInjectionEntry extends SessionEntryBase { type: "ttsr_injection"; injectedRules: string[] }
export interface ModeChangeEntry extends SessionEntryBase { type: "mode_change"; mode: string; data?: Record<string, unknown> }
/** An entry of the session tree (`SessionEntry` of the original): narrow on `type`. */
export type SessionEntry =
  | SessionMessageEntry | ThinkingLevelChangeEntry | ModelChangeEntry | CompactionEntry | BranchSummaryEntry | CustomEntry
  | CustomMessageEntry | LabelEntry | TtsrInjectionEntry | ModeChangeEntry;
export interface SessionHeader { type: "session"; version?: number; id: string; title?: string; timestamp: string; cwd: string; parentSession?: string }
export interface SessionTreeNode { entry: SessionEntry; children: SessionTreeNode[]; label?: string }

export interface CompactionResult<T = unknown> {
  summary: string; shortSummary?: string; firstKeptEntryId: string; tokensBefore: number; details?: T;
  preserveData?: Record<string, unknown>;
}
export interface CompactionPreparation {
  firstKeptEntryId: string; messagesToSummarize: AgentMessage[]; turnPrefixMessages: AgentMessage[];
  recentMessages: AgentMessage[]; isSplitTurn: boolean; tokensBefore: number; previousSummary?: string;
  previousPreserveData?: Record<string, unknown>; fileOps: any; settings: any;
}
export interface TreePreparation {
  targetId: string; oldLeafId: string | null; commonAncestorId: string | null;
  entriesToSummarize: SessionEntry[]; userWantsSummary: boolean;
}

/** The read-only session manager facade hooks receive (`ctx.sessionManager`); every member is synchronous. */
export interface ReadonlySessionManager {
  getCwd(): string;
  getSessionDir(): string;
  getSessionId(): string;
  getSessionFile(): string | undefined;
  getSessionName(): string | undefined;
  getArtifactsDir(): string | undefined;
  allocateArtifactPath(...args: unknown[]): unknown;
  saveArtifact(...args: unknown[]): unknown;
  getArtifactPath(...args: unknown[]): unknown;
  getLeafId(): string | null;
  getLeafEntry(): SessionEntry | undefined;
  getEntry(id: string): SessionEntry | undefined;
  getLabel(id: string): string | undefined;
  getBranch(fromId?: string): SessionEntry[];
  getHeader(): SessionHeader | null;
  getEntries(): SessionEntry[];
  getTree(): SessionTreeNode[];
  getUsageStatistics(): unknown;
  putBlob(...args: unknown[]): unknown;
}
/** The names of `ReadonlySessionManager`, in the original's order. */
export const SESSION_MANAGER_METHODS = [
  "getCwd", "getSessionDir", "getSessionId", "getSessionFile", "getSessionName", "getArtifactsDir",
  "allocateArtifactPath", "saveArtifact", "getArtifactPath", "getLeafId", "getLeafEntry", "getEntry",
  "getLabel", "getBranch", "getHeader", "getEntries", "getTree", "getUsageStatistics", "putBlob",
] as const satisfies ReadonlyArray<keyof ReadonlySessionManager>;

/** A writable session manager, as handed to `newSession({ setup })`. Only its methods matter here. */
export interface SessionManager extends Partial<ReadonlySessionManager> { [method: string]: unknown }

/** A model (`Model` of the original's LLM package). */
export interface Model<TApi extends Api = Api> {
  id: string;
  name: string;
  api: TApi;
  provider: Provider;
  baseUrl: string;
  reasoning: boolean;
  input: ("text" | "image")[];
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number };
  contextWindow: number;
  maxTokens: number;
  headers?: Record<string, string>;
  compat?: any;
}

/**
 * The model registry (`ctx.modelRegistry`), as the original's `ModelRegistry` class: lookups are
 * synchronous, key resolution is async.
 */
export interface ModelRegistry {
  getAll(): Model[];
  getAvailable(): Model[];
  find(provider: string, modelId: string): Model | undefined;
  getApiKey(model: Model, sessionId?: string): Promise<string | undefined>;
  getApiKeyForProvider(provider: string, ...rest: any[]): Promise<string | undefined>;
  isUsingOAuth(model: Model): boolean;
  refresh(): void | Promise<void>;
  getError(): string | undefined;
}
/** The names of `ModelRegistry`'s methods. */
export const MODEL_REGISTRY_METHODS = [
  "getAll", "getAvailable", "find", "getApiKey", "getApiKeyForProvider", "isUsingOAuth", "refresh", "getError",
] as const satisfies ReadonlyArray<keyof ModelRegistry>;

// ---------------------------------------------------------------------------------------------
// UI

export interface Theme {
  fg(color: string, text: string): string;
  bg(color: string, text: string): string;
  bold(text: string): string;
  italic(text: string): string;
  underline(text: string): string;
  [key: string]: unknown;
}
export interface Component { render(width: number): string[]; handleInput?(data: string): void; invalidate?(): void }
/**
 * The terminal UI a `ctx.ui.custom()` factory receives (`TUI` of the original). Hooks mostly pass it
 * on to components or ask for a redraw; its other members are the agent's.
 */
export interface TUI { requestRender(force?: boolean): void; [member: string]: any }

export interface HookUIContext {
  select(title: string, options: string[]): Promise<string | undefined>;
  confirm(title: string, message: string): Promise<boolean>;
  input(title: string, placeholder?: string): Promise<string | undefined>;
  notify(message: string, type?: "info" | "warning" | "error"): void;
  setStatus(key: string, text: string | undefined): void;
  custom<T>(factory: (tui: TUI, theme: Theme, done: (result: T) => void) => (Component & { dispose?(): void }) | Promise<Component & { dispose?(): void }>): Promise<T>;
  setEditorText(text: string): void;
  getEditorText(): string;
  editor(title: string, prefill?: string, options?: { signal?: AbortSignal }): Promise<string | undefined>;
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
  | SessionBeforeTreeEvent | SessionTreeEvent;

export interface ContextEvent { type: "context"; messages: AgentMessage[] }
export interface BeforeAgentStartEvent { type: "before_agent_start"; prompt: string; images?: ImageContent[] }
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

export type HookEvent =
  | SessionEvent | ContextEvent | BeforeAgentStartEvent | AgentStartEvent | AgentEndEvent | TurnStartEvent | TurnEndEvent
  | AutoCompactionStartEvent | AutoCompactionEndEvent | AutoRetryStartEvent | AutoRetryEndEvent | TtsrTriggeredEvent
  | TodoReminderEvent | ToolCallEvent | ToolResultEvent;
export type HookEventType = HookEvent["type"];

// ---------------------------------------------------------------------------------------------
// Results

export interface SessionBeforeSwitchResult { cancel?: boolean }
export interface SessionBeforeBranchResult { cancel?: boolean; skipConversationRestore?: boolean }
export interface SessionBeforeCompactResult { cancel?: boolean; compaction?: CompactionResult }
export interface SessionCompactingResult { context?: string[]; prompt?: string; preserveData?: Record<string, unknown> }
export interface SessionBeforeTreeResult { cancel?: boolean; summary?: { summary: string; details?: unknown } }
export interface ContextEventResult { messages?: AgentMessage[] }
export interface BeforeAgentStartEventResult { message?: HookMessage }
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
