/**
 * The agent's own shapes that hooks read: content blocks, messages, session entries, the model and
 * the model registry. Messages are pi's (its LLM package and its own roles), so a message typed with
 * them goes back to pi; oh-my-pi's and the original's further roles are `omp-messages.ts`. Entries,
 * the model and the registry follow the original's packages, so hooks written against the original
 * type-check; the hook contract itself (events, results, contexts, HookAPI) is `types.ts`, which
 * re-exports these.
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

// Each message has pi's required fields (pi-ai's `Message`, pi-coding-agent's own roles), the
// timestamp included, so a message typed with these goes back to pi wherever pi asks for its own
// (`AgentMessage`, a session entry); `attribution` is the original's and oh-my-pi's, optional.
// test/pi-examples-types.test.ts checks both directions against pi 0.73.1.
export interface UserMessage { role: "user"; content: string | (TextContent | ImageContent)[]; timestamp: number; attribution?: "user" | "agent" }
export interface AssistantMessage {
  role: "assistant"; content: (TextContent | ThinkingContent | ToolCall)[]; api: Api; provider: Provider; model: string;
  responseId?: string; usage: Usage; stopReason: StopReason; errorMessage?: string; timestamp: number;
}
export interface ToolResultMessage<TDetails = any> {
  role: "toolResult"; toolCallId: string; toolName: string; content: (TextContent | ImageContent)[]; details?: TDetails;
  isError: boolean; timestamp: number;
}
/** An LLM message (`Message` of the agent's LLM package): user, assistant or tool result. */
export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** A hook's message as it sits in the conversation (`CustomMessage` of the agent). */
export interface CustomMessage<T = unknown> {
  role: "custom"; customType: string; content: string | (TextContent | ImageContent)[]; display: boolean; details?: T;
  attribution?: "user" | "agent"; timestamp: number;
}
/** A shell command the user ran with `!` (`!!`: kept out of the model's context). */
export interface BashExecutionMessage {
  role: "bashExecution"; command: string; output: string; exitCode: number | undefined; cancelled: boolean; truncated: boolean;
  fullOutputPath?: string; timestamp: number; excludeFromContext?: boolean;
}
export interface BranchSummaryMessage { role: "branchSummary"; summary: string; fromId: string; timestamp: number }
export interface CompactionSummaryMessage { role: "compactionSummary"; summary: string; tokensBefore: number; timestamp: number }
/**
 * The agent's own message roles beyond the LLM's, keyed by role (pi-agent-core's
 * `CustomAgentMessages`): pi's set here, so `AgentMessage` in `hookbox/hooks` is pi's;
 * `hookbox/hooks/omp` adds oh-my-pi's and the original's (`pythonExecution`, `fileMention`, the
 * legacy `hookMessage`, `developer`: `omp-messages.ts`) by declaration merging, as the agents' own
 * packages do.
 */
export interface CustomAgentMessages {
  bashExecution: BashExecutionMessage;
  custom: CustomMessage;
  branchSummary: BranchSummaryMessage;
  compactionSummary: CompactionSummaryMessage;
}
/** A message of the agent (`AgentMessage` of the agent): an LLM message or one of the agent's own roles. */
export type AgentMessage = Message | CustomAgentMessages[keyof CustomAgentMessages];

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
/**
 * A model change, as the agent records it: the original's (and oh-my-pi's) name the model as
 * `provider/modelId` in `model`; pi's (`PiModelChangeEntry`) name `provider` and `modelId` apart.
 */
export type ModelChangeEntry = OriginalModelChangeEntry | PiModelChangeEntry;
export interface OriginalModelChangeEntry extends SessionEntryBase { type: "model_change"; /** `provider/modelId` */ model: string; role?: string }
export interface PiModelChangeEntry extends SessionEntryBase { type: "model_change"; provider: string; modelId: string }
/** The session's name, as pi records it (`pi.setSessionName`). */
export interface SessionInfoEntry extends SessionEntryBase { type: "session_info"; name?: string }
// `fromExtension` is the original's and oh-my-pi's name for what pi calls `fromHook`.
export interface CompactionEntry<T = unknown> extends SessionEntryBase {
  type: "compaction"; summary: string; shortSummary?: string; firstKeptEntryId: string; tokensBefore: number; details?: T;
  preserveData?: Record<string, unknown>; fromExtension?: boolean; fromHook?: boolean;
}
export interface BranchSummaryEntry<T = unknown> extends SessionEntryBase {
  type: "branch_summary"; fromId: string; summary: string; details?: T; fromExtension?: boolean; fromHook?: boolean;
}
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
  | CustomMessageEntry | LabelEntry | TtsrInjectionEntry | ModeChangeEntry | SessionInfoEntry;
export interface SessionHeader { type: "session"; version?: number; id: string; title?: string; timestamp: string; cwd: string; parentSession?: string }
export interface SessionTreeNode { entry: SessionEntry; children: SessionTreeNode[]; label?: string; labelTimestamp?: string }

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
