/**
 * The agent's own shapes that hooks read: content blocks, messages, session entries, the model and
 * the model registry. They follow the original's packages (its LLM package for messages and
 * models, its session manager for entries) so hooks written against the original type-check; the
 * hook contract itself (events, results, contexts, HookAPI) is `types.ts`, which re-exports these.
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
