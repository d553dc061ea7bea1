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

/** An LLM message (`user`, `developer`, `assistant`, `toolResult`). */
export interface Message { role: string; content?: unknown; timestamp?: number; [key: string]: unknown }
/** A message of the agent, including custom roles (`custom`, `hookMessage`, …). */
export type AgentMessage = Message;

export interface ToolResultMessage extends Message {
  role: "toolResult"; toolCallId: string; toolName: string; content: ToolContent[]; isError: boolean;
}

/** A custom message a hook sends or injects (`Pick<HookMessage, …>` of the original). */
export interface HookMessage<T = unknown> {
  customType: string;
  content: string | ToolContent[];
  display: boolean;
  details?: T;
  attribution?: "user" | "agent";
}
/** The full persisted hook message a renderer receives. */
export interface HookMessageRecord<T = unknown> extends HookMessage<T> { role: "hookMessage" | "custom"; timestamp: number }

export interface SendMessageOptions { triggerTurn?: boolean; deliverAs?: "steer" | "followUp" }

// ---------------------------------------------------------------------------------------------
// Session shapes

export interface SessionEntry { type: string; id: string; parentId?: string | null; timestamp?: string | number; [key: string]: unknown }
export interface CompactionResult<T = unknown> {
  summary: string; shortSummary?: string; firstKeptEntryId: string; tokensBefore: number; details?: T;
  preserveData?: Record<string, unknown>;
}
export interface CompactionEntry extends SessionEntry, Omit<CompactionResult, "details"> { type: "compaction"; fromExtension?: boolean; details?: unknown }
export interface CompactionPreparation {
  firstKeptEntryId: string; messagesToSummarize: AgentMessage[]; turnPrefixMessages: AgentMessage[];
  recentMessages: AgentMessage[]; isSplitTurn: boolean; tokensBefore: number; previousSummary?: string;
  previousPreserveData?: Record<string, unknown>; fileOps: unknown; settings: unknown;
}
export interface TreePreparation {
  targetId: string; oldLeafId: string | null; commonAncestorId: string | null;
  entriesToSummarize: SessionEntry[]; userWantsSummary: boolean;
}
export interface BranchSummaryEntry extends SessionEntry { type: "branch_summary" }

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
  getHeader(): unknown;
  getEntries(): SessionEntry[];
  getTree(): unknown;
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

export interface Model { id: string; provider?: string; [key: string]: unknown }
/** The model registry (`ctx.modelRegistry`). Structural: hookbox forwards its synchronous methods. */
export interface ModelRegistry { [method: string]: unknown }

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

export interface HookUIContext {
  select(title: string, options: string[]): Promise<string | undefined>;
  confirm(title: string, message: string): Promise<boolean>;
  input(title: string, placeholder?: string): Promise<string | undefined>;
  notify(message: string, type?: "info" | "warning" | "error"): void;
  setStatus(key: string, text: string | undefined): void;
  custom<T>(factory: (tui: unknown, theme: Theme, done: (result: T) => void) => (Component & { dispose?(): void }) | Promise<Component & { dispose?(): void }>): Promise<T>;
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
export interface ContextEventResult { messages?: Message[] }
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
  on<T extends HookEventType>(event: T, handler: HookHandler<HookEventOf<T>, HookResultFor<T>>): void;
  on(event: string, handler: HookHandler<any, any>): void;
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
export interface AgentTool<TParams = Record<string, unknown>, TDetails = unknown> {
  name: string;
  label?: string;
  description?: string;
  parameters?: unknown;
  execute(toolCallId: string, params: TParams, signal?: AbortSignal, onUpdate?: (partial: AgentToolResult<TDetails>) => void, context?: unknown): Promise<AgentToolResult<TDetails>>;
  [key: string]: unknown;
}
