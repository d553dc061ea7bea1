/**
 * Every event of the hook contract, described once: one row per event. Everything else about an
 * event is derived from its row: the event list, the result schemas (src/contract/schemas.ts), the rules and
 * the worker's plans (src/runner/dispatch.ts), the schemas of in-place edits (src/runner/edits.ts), what the CLI
 * accepts (src/cli/payloads.ts) and the conformance matrix (test/helpers/matrix.ts).
 *
 * A row has:
 * - `payload`: a zod schema per field of the event besides `type` (an AbortSignal field has none:
 *   it never crosses as data). What the CLI accepts, and what an in-place edit of that field must be.
 * - `result` (events with a result only): the strict schema of what a handler may return.
 * - `rule`: how results combine: `series` (ignored), `bail` on a boolean key, `last-wins`,
 *   `waterfall` over a field, `first-message` on a key (with a field chained beside it), and pi's
 *   rules: `first` (the first result ends the emit), `chain` (a result's field replaces the
 *   event's for the next handler), `replace` (the whole result does), `transform` (pi's `input`),
 *   `collect` (lists appended).
 * - `agentRule`: the agent's own rule where it differs from `rule` (hookbox/extension uses it inside
 *   pi and oh-my-pi; HookRunner keeps `rule` for embedders).
 * - `addable`: optional fields an in-place edit may add when the host's event lacks them.
 * - `effects` (events with a result only) and `editEffects`: the class of each result field and of
 *   an in-place edit of each payload field (worker/effects.mjs; `policy.effects` grants up to one):
 *   `observe`, `restrict` (the agent does less), `annotate` (the model reads the module's own
 *   context beside the agent's: a custom message, at most ANNOTATE_MAX_CHARS of text),
 *   `substitute` (it does or reads something else), `subset` (restrict when the value keeps some of
 *   the host's own messages in their order; annotate when it keeps all of them in their order and
 *   adds the module's own custom messages; else substitute), `append` (annotate when the string
 *   keeps the agent's own as its start and adds at most ANNOTATE_MAX_CHARS; else substitute) or
 *   `byValue` (the class follows the field's value: `input`'s action). A field whose
 *   value is the one the handler received changes nothing, whatever its class (src/runner/effects.ts).
 *   An edit of a notification's payload is a substitute: the agent may read its own objects again.
 * - `sample`: a fresh event for tests and the CLI (AbortSignals new each time).
 *
 * The table `satisfies` a type mapped over `HookEventType`, so tsc fails when an event has no row,
 * a row names an event the contract lacks, an event with a result (`HookResultMap`) has no result
 * schema or a series rule, an event without one has one, a payload misses or adds a field, or a
 * bail or waterfall key is not a field of the result. No event silently becomes a series event.
 */
import { z } from "zod";
import type { AgentMessage, HookEventOf, HookEventType, HookResultMap } from "./types.js";
import { LIMITS, PLANS } from "../../worker/wire.mjs";
import type { EFFECTS } from "../../worker/effects.mjs";
import { agentMessage, compactionResult, hookMessage, imageContent, toolContent } from "./schemas.js";

// ---- the row's type ------------------------------------------------------------------------------

/** Events whose handlers may return something. */
export type ResultEvent = keyof HookResultMap;
type Fields<E> = Exclude<keyof E, "type">;
/** The fields of `E` that hold an AbortSignal. */
type SignalFields<E> = { [K in keyof E]-?: NonNullable<E[K]> extends AbortSignal ? K : never }[keyof E];
/** One schema per field of the event besides `type` and its AbortSignals, no more, no less. */
type Payload<E> = { [K in Exclude<Fields<E>, SignalFields<E>>]-?: z.ZodType };
/** Keys of `R` that hold a boolean. */
type BooleanKey<R> = { [K in keyof R]-?: NonNullable<R[K]> extends boolean ? K : never }[keyof R];
type Plan = (typeof PLANS)[keyof typeof PLANS];
/** A key the worker can stop a hook's handlers at (`worker/wire.mjs` `PLANS`: a plan whose `stop` it is). */
type StopKey = Plan extends infer P ? (P extends { stop: infer S } ? S : never) : never;
/** A key the worker can chain a hook's handlers over (a plan whose `chain` it is). */
type ChainKey = Plan extends infer P ? (P extends { chain: infer C } ? C : never) : never;

/** Keys of `R` that hold a list. */
type ListKey<R> = { [K in keyof R]-?: NonNullable<R[K]> extends readonly unknown[] ? K : never }[keyof R];
/** A field of the result that is also a field of the event (what a chain feeds to the next handler). */
type SharedKey<T extends ResultEvent> = keyof HookResultMap[T] & Fields<HookEventOf<T>> & string;

export type Rule<T extends HookEventType> = T extends ResultEvent
  ? | { kind: "bail"; key: BooleanKey<HookResultMap[T]> & StopKey }
    | { kind: "last-wins" }
    | { kind: "waterfall"; key: keyof HookResultMap[T] & Fields<HookEventOf<T>> & ChainKey }
    | { kind: "first-message"; key: keyof HookResultMap[T] & string; chain?: SharedKey<T> }
    | { kind: "first" }
    | { kind: "chain"; key: SharedKey<T>; sameRole?: true }
    | { kind: "replace"; key: Fields<HookEventOf<T>> & string }
    | { kind: "transform" }
    | { kind: "collect"; keys: ReadonlyArray<ListKey<HookResultMap[T]> & string> }
  : { kind: "series" };
/**
 * How an agent's own runner combines its extensions' results where it differs from `rule` (the
 * contract's, which HookRunner keeps for embedders): `every-message`, every result's `key` kept in
 * order (returned as a list under `messages`), a field chained beside them.
 */
export type AgentRule<T extends HookEventType> = T extends ResultEvent
  ? { kind: "every-message"; key: keyof HookResultMap[T] & string; chain?: SharedKey<T> }
  : never;
export type RuleKind = Rule<HookEventType>["kind"] | AgentRule<HookEventType>["kind"];

/** A class of effect on the agent (worker/effects.mjs), lowest first. */
export type Effect = (typeof EFFECTS)[number];
/** The class of one field: fixed, `subset` of the host's messages, or by the field's value. */
export type FieldEffect = Effect | "subset" | "append" | { readonly byValue: Readonly<Record<string, Effect>> };
/** One class per payload field (an in-place edit of it), no more, no less. */
type EditEffects<E> = { [K in Exclude<Fields<E>, SignalFields<E>>]-?: FieldEffect };
/** One class per result field; a result that is one value (`before_provider_request`'s) is classed as the field it replaces. */
type ResultEffects<T extends ResultEvent> = unknown extends HookResultMap[T] ? { payload: FieldEffect } : { [K in KeysOfAny<HookResultMap[T]>]-?: FieldEffect };
/** The keys of every member of a union (`input`'s result is one per action). */
type KeysOfAny<R> = R extends unknown ? keyof R : never;

interface RowBase<T extends HookEventType> {
  payload: Payload<HookEventOf<T>>;
  editEffects: EditEffects<HookEventOf<T>>;
  addable?: ReadonlyArray<Fields<HookEventOf<T>>>;
  sample(): HookEventOf<T>;
  rule: Rule<T>;
  /**
   * Inside pi and oh-my-pi (hookbox/extension), the agent's rule where its runner combines results
   * otherwise than `rule`: the modules of one isolate() then answer as they would loaded by the
   * agent itself (src/runner/dispatch.ts `ruleFor`).
   */
  agentRule?: AgentRule<T>;
  /**
   * Every key of the result each agent reads (its result type and runner: pi 0.73.1, oh-my-pi
   * 18.2.3). Inside that agent (hookbox/extension), a key of a module's result that is neither here
   * nor in `result` is one the agent ignores in its process: it is dropped, with one warning naming
   * it and the module (src/runner/runner.ts), and never reaches the agent. A key the agent reads
   * that `result` lacks (oh-my-pi's `tool_call` `input`) stays refused (`invalid_result`), as does
   * every unknown key where the agent is not listed.
   */
  agentReads?: Partial<Record<"pi" | "omp", readonly string[]>>;
}
export type EventRow<T extends HookEventType> = T extends ResultEvent
  ? RowBase<T> & { result: z.ZodType; effects: ResultEffects<T> }
  : RowBase<T> & { result?: never; effects?: never };

// ---- shared payload parts ------------------------------------------------------------------------

const messages = z.array(agentMessage);
const content = z.array(toolContent);
const entry = z.looseObject({ type: z.string(), id: z.string() });
const reason = z.enum(["new", "resume", "fork"]);
const file = z.string().optional();
const compaction = z.looseObject({ summary: z.string(), firstKeptEntryId: z.string(), tokensBefore: z.number() });
const action = z.enum(["context-full", "handoff"]);
const toolResult = z.looseObject({ role: z.literal("toolResult"), toolCallId: z.string(), toolName: z.string(), content, isError: z.boolean() });
const input = z.record(z.string(), z.unknown());
const images = z.array(imageContent).max(LIMITS.maxHandlers);
/** A path an extension names for the agent to load (checked again against the module's folder: src/resource-paths.ts). */
const paths = z.array(z.string().max(LIMITS.maxPath)).max(LIMITS.maxHandlers).optional();

/** The messages of the samples (`context`, `agent_end`, `session.compacting`). */
export const SAMPLE_MESSAGES: readonly AgentMessage[] = [
  { role: "user", content: "hello", timestamp: 1 },
  { role: "custom", customType: "debug-only", content: "noise", display: false, timestamp: 2 },
];
const sampleMessages = () => SAMPLE_MESSAGES.map((m) => ({ ...m }) as AgentMessage);
const preparation = () => ({
  firstKeptEntryId: "e1", messagesToSummarize: [], turnPrefixMessages: [], recentMessages: [], isSplitTurn: false,
  tokensBefore: 100, fileOps: {}, settings: {},
});
const compacted = () => ({ summary: "s", firstKeptEntryId: "e1", tokensBefore: 100 });
const signal = (): AbortSignal => new AbortController().signal;
const series = { kind: "series" } as const;
const cancel = { kind: "bail", key: "cancel" } as const;
const observe = "observe", restrict = "restrict", annotate = "annotate", substitute = "substitute";

// ---- the table -----------------------------------------------------------------------------------

export const EVENTS = {
  session_start: { payload: {}, editEffects: {}, rule: series, sample: () => ({ type: "session_start" }) },
  session_before_switch: {
    payload: { reason, targetSessionFile: file },
    editEffects: { reason: substitute, targetSessionFile: substitute },
    result: z.strictObject({ cancel: z.boolean().optional() }),
    effects: { cancel: restrict },
    rule: cancel,
    sample: () => ({ type: "session_before_switch", reason: "resume", targetSessionFile: "/s/next.jsonl" }),
  },
  session_switch: {
    payload: { reason, previousSessionFile: file }, editEffects: { reason: substitute, previousSessionFile: substitute }, rule: series,
    sample: () => ({ type: "session_switch", reason: "new", previousSessionFile: undefined }),
  },
  session_before_branch: {
    payload: { entryId: z.string() },
    editEffects: { entryId: substitute },
    result: z.strictObject({ cancel: z.boolean().optional(), skipConversationRestore: z.boolean().optional() }),
    effects: { cancel: restrict, skipConversationRestore: restrict },
    rule: cancel,
    sample: () => ({ type: "session_before_branch", entryId: "e7" }),
  },
  session_branch: { payload: { previousSessionFile: file }, editEffects: { previousSessionFile: substitute }, rule: series, sample: () => ({ type: "session_branch", previousSessionFile: "/s/prev.jsonl" }) },
  session_before_compact: {
    payload: {
      preparation: z.looseObject({
        firstKeptEntryId: z.string(), messagesToSummarize: messages, turnPrefixMessages: messages, recentMessages: messages,
        isSplitTurn: z.boolean(), tokensBefore: z.number(), previousSummary: z.string().optional(),
      }),
      branchEntries: z.array(entry),
      customInstructions: z.string().optional(),
    },
    editEffects: { preparation: substitute, branchEntries: substitute, customInstructions: substitute },
    result: z.strictObject({ cancel: z.boolean().optional(), compaction: compactionResult.optional() }),
    // A compaction the hook wrote is the summary the model reads from now on.
    effects: { cancel: restrict, compaction: substitute },
    rule: cancel,
    sample: () => ({ type: "session_before_compact", preparation: preparation(), branchEntries: [], signal: signal() }),
  },
  "session.compacting": {
    payload: { sessionId: z.string(), messages },
    editEffects: { sessionId: substitute, messages: substitute },
    result: z.strictObject({
      context: z.array(z.string()).optional(),
      prompt: z.string().optional(),
      preserveData: z.record(z.string(), z.unknown()).optional(),
    }),
    effects: { context: substitute, prompt: substitute, preserveData: substitute },
    rule: { kind: "last-wins" },
    sample: () => ({ type: "session.compacting", sessionId: "s1", messages: sampleMessages() }),
  },
  session_compact: {
    payload: { compactionEntry: compaction.extend({ type: z.literal("compaction"), id: z.string() }), fromExtension: z.boolean() },
    editEffects: { compactionEntry: substitute, fromExtension: substitute },
    rule: series,
    sample: () => ({
      type: "session_compact", fromExtension: false,
      compactionEntry: { type: "compaction", id: "c1", parentId: null, timestamp: "2026-01-01T00:00:00.000Z", ...compacted() },
    }),
  },
  session_shutdown: { payload: {}, editEffects: {}, rule: series, sample: () => ({ type: "session_shutdown" }) },
  session_before_tree: {
    payload: {
      preparation: z.looseObject({
        targetId: z.string(), oldLeafId: z.string().nullable(), commonAncestorId: z.string().nullable(),
        entriesToSummarize: z.array(entry), userWantsSummary: z.boolean(),
      }),
    },
    editEffects: { preparation: substitute },
    result: z.strictObject({
      cancel: z.boolean().optional(),
      summary: z.strictObject({ summary: z.string(), details: z.unknown().optional() }).optional(),
    }),
    effects: { cancel: restrict, summary: substitute },
    rule: cancel,
    sample: () => ({
      type: "session_before_tree", signal: signal(),
      preparation: { targetId: "t", oldLeafId: null, commonAncestorId: null, entriesToSummarize: [], userWantsSummary: true },
    }),
  },
  session_tree: {
    payload: { newLeafId: z.string().nullable(), oldLeafId: z.string().nullable(), summaryEntry: entry.optional(), fromExtension: z.boolean().optional() },
    editEffects: { newLeafId: substitute, oldLeafId: substitute, summaryEntry: substitute, fromExtension: substitute },
    rule: series,
    sample: () => ({ type: "session_tree", newLeafId: "n", oldLeafId: null }),
  },
  context: {
    payload: { messages },
    // Keeping some of the host's own messages, in their order, makes the model read less; keeping all and adding its own custom messages, more; anything else, something else.
    editEffects: { messages: "subset" },
    result: z.strictObject({ messages: messages.optional() }),
    effects: { messages: "subset" },
    rule: { kind: "waterfall", key: "messages" },
    agentReads: { pi: ["messages"], omp: ["messages"] },
    sample: () => ({ type: "context", messages: sampleMessages() }),
  },
  before_agent_start: {
    payload: { prompt: z.string(), images: z.array(imageContent).optional(), systemPrompt: z.string().optional() },
    // The module's own custom message, and text appended to the system prompt, add context; a prompt rewritten is something else.
    editEffects: { prompt: substitute, images: substitute, systemPrompt: "append" },
    result: z.strictObject({ message: hookMessage.optional(), systemPrompt: z.string().max(LIMITS.maxPrompt).optional() }),
    effects: { message: annotate, systemPrompt: "append" },
    // pi chains the system prompt across handlers ("if multiple extensions return this, they are chained").
    rule: { kind: "first-message", key: "message", chain: "systemPrompt" },
    // pi and oh-my-pi keep every extension's message, in order (their combined result's `messages`).
    agentRule: { kind: "every-message", key: "message", chain: "systemPrompt" },
    // oh-my-pi's systemPrompt is string[] (a string is taken as one): hookbox carries the string.
    agentReads: { pi: ["message", "systemPrompt"], omp: ["message", "systemPrompt"] },
    addable: ["images", "systemPrompt"],
    sample: () => ({ type: "before_agent_start", prompt: "do it" }),
  },
  agent_start: { payload: {}, editEffects: {}, rule: series, sample: () => ({ type: "agent_start" }) },
  agent_end: { payload: { messages }, editEffects: { messages: substitute }, rule: series, sample: () => ({ type: "agent_end", messages: sampleMessages() }) },
  turn_start: { payload: { turnIndex: z.number(), timestamp: z.number() }, editEffects: { turnIndex: substitute, timestamp: substitute }, rule: series, sample: () => ({ type: "turn_start", turnIndex: 0, timestamp: 1 }) },
  turn_end: {
    payload: { turnIndex: z.number(), message: agentMessage, toolResults: z.array(toolResult) },
    editEffects: { turnIndex: substitute, message: substitute, toolResults: substitute },
    rule: series,
    sample: () => ({ type: "turn_end", turnIndex: 0, message: sampleMessages()[0]!, toolResults: [] }),
  },
  auto_compaction_start: {
    payload: { reason: z.enum(["threshold", "overflow", "idle"]), action },
    editEffects: { reason: substitute, action: substitute },
    rule: series,
    sample: () => ({ type: "auto_compaction_start", reason: "threshold", action: "context-full" }),
  },
  auto_compaction_end: {
    payload: {
      action, result: compaction.optional(), aborted: z.boolean(), willRetry: z.boolean(), errorMessage: z.string().optional(), skipped: z.boolean().optional(),
    },
    editEffects: { action: substitute, result: substitute, aborted: substitute, willRetry: substitute, errorMessage: substitute, skipped: substitute },
    rule: series,
    sample: () => ({ type: "auto_compaction_end", action: "context-full", result: compacted(), aborted: false, willRetry: false }),
  },
  auto_retry_start: {
    payload: { attempt: z.number(), maxAttempts: z.number(), delayMs: z.number(), errorMessage: z.string() },
    editEffects: { attempt: substitute, maxAttempts: substitute, delayMs: substitute, errorMessage: substitute },
    rule: series,
    sample: () => ({ type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 10, errorMessage: "overloaded" }),
  },
  auto_retry_end: {
    payload: { success: z.boolean(), attempt: z.number(), finalError: z.string().optional() },
    editEffects: { success: substitute, attempt: substitute, finalError: substitute },
    rule: series,
    sample: () => ({ type: "auto_retry_end", success: true, attempt: 1 }),
  },
  ttsr_triggered: {
    payload: { rules: z.array(z.looseObject({ name: z.string(), path: z.string(), content: z.string() })) },
    editEffects: { rules: substitute },
    rule: series,
    sample: () => ({ type: "ttsr_triggered", rules: [{ name: "r", path: "/r.md", content: "c" }] }),
  },
  todo_reminder: {
    payload: {
      todos: z.array(z.looseObject({ id: z.string(), content: z.string(), status: z.enum(["pending", "in_progress", "completed", "abandoned"]) })),
      attempt: z.number(), maxAttempts: z.number(),
    },
    editEffects: { todos: substitute, attempt: substitute, maxAttempts: substitute },
    rule: series,
    sample: () => ({ type: "todo_reminder", todos: [{ id: "1", content: "x", status: "pending" }], attempt: 1, maxAttempts: 2 }),
  },
  tool_call: {
    payload: { toolName: z.string(), toolCallId: z.string(), input },
    // An edited input is what the tool runs instead: refused above the grant, the call is blocked.
    editEffects: { toolName: substitute, toolCallId: substitute, input: substitute },
    result: z.strictObject({ block: z.boolean().optional(), reason: z.string().optional() }),
    // The reason goes with a block (the model reads it, cut and gated: src/runner/runner.ts).
    effects: { block: restrict, reason: restrict },
    rule: { kind: "bail", key: "block" },
    agentReads: { pi: ["block", "reason"], omp: ["block", "reason", "input"] },
    sample: () => ({ type: "tool_call", toolName: "bash", toolCallId: "call-1", input: { command: "ls" } }),
  },
  tool_result: {
    payload: {
      toolName: z.string(), toolCallId: z.string(), input, content,
      details: z.unknown().optional(), isError: z.boolean().optional(), isWarning: z.boolean().optional(),
    },
    editEffects: { toolName: substitute, toolCallId: substitute, input: substitute, content: substitute, details: substitute, isError: substitute, isWarning: substitute },
    result: z.strictObject({
      content: content.optional(),
      details: z.unknown().optional(),
      isError: z.boolean().optional(),
      isWarning: z.boolean().optional(),
    }),
    effects: { content: substitute, details: substitute, isError: substitute, isWarning: substitute },
    rule: { kind: "last-wins" },
    agentReads: { pi: ["content", "details", "isError"], omp: ["content", "details", "isError"] },
    addable: ["details", "isWarning"],
    sample: () => ({
      type: "tool_result", toolName: "read", toolCallId: "call-1", input: { path: "a" },
      content: [{ type: "text", text: "original" }], details: { lines: 1 }, isError: false,
    }),
  },
  // ---- pi's events whose results the agent uses (pi 0.73.1, dist/core/extensions/runner.js) ----
  session_before_fork: {
    payload: { entryId: z.string(), position: z.enum(["before", "at"]) },
    editEffects: { entryId: substitute, position: substitute },
    result: z.strictObject({ cancel: z.boolean().optional(), skipConversationRestore: z.boolean().optional() }),
    effects: { cancel: restrict, skipConversationRestore: restrict },
    rule: cancel,
    sample: () => ({ type: "session_before_fork", entryId: "e7", position: "before" }),
  },
  input: {
    payload: { text: z.string(), images: images.optional(), source: z.enum(["interactive", "rpc", "extension"]) },
    editEffects: { text: substitute, images: substitute, source: substitute },
    result: z.discriminatedUnion("action", [
      z.strictObject({ action: z.literal("continue") }),
      z.strictObject({ action: z.literal("transform"), text: z.string().max(LIMITS.maxPrompt), images: images.optional() }),
      z.strictObject({ action: z.literal("handled") }),
    ]),
    // `handled`: the agent does nothing with the input (less); `transform`: it reads another input.
    effects: { action: { byValue: { continue: observe, handled: restrict, transform: substitute } }, text: substitute, images: substitute },
    rule: { kind: "transform" },
    addable: ["images"],
    sample: () => ({ type: "input", text: "hello", source: "interactive" }),
  },
  user_bash: {
    payload: { command: z.string(), excludeFromContext: z.boolean(), cwd: z.string() },
    editEffects: { command: substitute, excludeFromContext: substitute, cwd: substitute },
    // pi's `operations` (functions run in the agent) cannot cross: only a finished result does.
    result: z.strictObject({
      result: z.strictObject({
        output: z.string().max(LIMITS.maxPrompt), exitCode: z.number().int().optional(), cancelled: z.boolean(), truncated: z.boolean(),
        fullOutputPath: z.string().max(LIMITS.maxPath).optional(),
      }).optional(),
    }),
    // The user's command does not run; the output the hook wrote is what the user and the model read.
    effects: { result: substitute },
    rule: { kind: "first" },
    sample: () => ({ type: "user_bash", command: "ls", excludeFromContext: false, cwd: "/w" }),
  },
  message_end: {
    payload: { message: agentMessage },
    editEffects: { message: substitute },
    result: z.strictObject({ message: agentMessage.optional() }),
    effects: { message: substitute },
    // pi refuses a replacement with another role and goes on with the message it had.
    rule: { kind: "chain", key: "message", sameRole: true },
    sample: () => ({ type: "message_end", message: sampleMessages()[0]! }),
  },
  before_provider_request: {
    payload: { payload: z.unknown() },
    editEffects: { payload: substitute },
    // The handler returns the new request body itself (JSON data: it is sent to the provider). A key
    // whose value is undefined is one pi's JSON.stringify drops (pi's own payload has such keys, and a
    // module spreads it): dropped here too, as frames and structured clone now keep it.
    result: z.preprocess(withoutUndefinedKeys, z.json()),
    effects: { payload: substitute },
    rule: { kind: "replace", key: "payload" },
    sample: () => ({ type: "before_provider_request", payload: { model: "m", messages: [] } }),
  },
  resources_discover: {
    payload: { cwd: z.string(), reason: z.enum(["startup", "reload"]) },
    editEffects: { cwd: substitute, reason: substitute },
    result: z.strictObject({ skillPaths: paths, promptPaths: paths, themePaths: paths }),
    // Skills and prompts the agent loads are text the model reads; a theme changes what the user sees.
    effects: { skillPaths: substitute, promptPaths: substitute, themePaths: substitute },
    rule: { kind: "collect", keys: ["skillPaths", "promptPaths", "themePaths"] },
    sample: () => ({ type: "resources_discover", cwd: "/w", reason: "startup" }),
  },
} as const satisfies { [T in HookEventType]: EventRow<T> };

// ---- pi's notifications beyond the contract -----------------------------------------------------

const model = z.looseObject({ provider: z.string(), id: z.string() });
const thinkingLevel = z.enum(["off", "minimal", "low", "medium", "high", "xhigh"]);
const toolRun = { toolCallId: z.string(), toolName: z.string(), args: z.unknown() };
/**
 * The events pi (0.73.1, `dist/core/extensions/types.d.ts`) notifies that the hook contract has no
 * row for: pi ignores what their handlers return, so they run as series. Which events pi has is
 * worker/extension-members.mjs (its `NOTIFY_EVENTS` are these and the table's); here only what the
 * CLI needs to send one (`hookbox emit --agent pi`): the payload's fields, as above, and a sample.
 */
export const AGENT_NOTIFICATIONS = {
  message_start: { payload: { message: agentMessage }, sample: () => ({ type: "message_start", message: sampleMessages()[0]! }) },
  message_update: {
    payload: { message: agentMessage, assistantMessageEvent: z.looseObject({ type: z.string() }) },
    sample: () => ({ type: "message_update", message: sampleMessages()[0]!, assistantMessageEvent: { type: "text_delta", delta: "h" } }),
  },
  tool_execution_start: { payload: toolRun, sample: () => ({ type: "tool_execution_start", toolCallId: "call-1", toolName: "bash", args: { command: "ls" } }) },
  tool_execution_update: {
    payload: { ...toolRun, partialResult: z.unknown() },
    sample: () => ({ type: "tool_execution_update", toolCallId: "call-1", toolName: "bash", args: { command: "ls" }, partialResult: { content: [] } }),
  },
  tool_execution_end: {
    payload: { toolCallId: z.string(), toolName: z.string(), result: z.unknown(), isError: z.boolean() },
    sample: () => ({ type: "tool_execution_end", toolCallId: "call-1", toolName: "bash", result: { content: [] }, isError: false }),
  },
  model_select: {
    payload: { model, previousModel: model.optional(), source: z.enum(["set", "cycle", "restore"]) },
    sample: () => ({ type: "model_select", model: { provider: "anthropic", id: "claude-sonnet-4-5" }, previousModel: undefined, source: "set" }),
  },
  thinking_level_select: { payload: { level: thinkingLevel, previousLevel: thinkingLevel }, sample: () => ({ type: "thinking_level_select", level: "high", previousLevel: "off" }) },
  after_provider_response: {
    payload: { status: z.number(), headers: z.record(z.string(), z.string()) },
    sample: () => ({ type: "after_provider_response", status: 200, headers: {} }),
  },
} as const satisfies Record<string, { payload: Record<string, z.ZodType>; sample(): { type: string } }>;
export type AgentNotification = keyof typeof AGENT_NOTIFICATIONS;

// A result schema's fields are exactly its result type's: tsc fails on a missing or an extra one.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type ResultFieldsMatch = { [T in ResultEvent]: Same<keyof z.output<(typeof EVENTS)[T]["result"]>, keyof HookResultMap[T]> }[ResultEvent];
const resultFieldsMatch: ResultFieldsMatch extends true ? true : never = true;
void resultFieldsMatch;

// ---- derived -------------------------------------------------------------------------------------

/** Every event type of the contract, in the table's order. */
export const EVENT_TYPES = Object.keys(EVENTS) as HookEventType[];
/** The events whose handlers may return something. */
export const RESULT_EVENTS = EVENT_TYPES.filter((t) => EVENTS[t].rule.kind !== "series") as ResultEvent[];

/** Is `type` an event of the contract? (Own keys only: `__proto__`, `toString`… are not.) */
export function isEventType(type: string): type is HookEventType {
  return Object.hasOwn(EVENTS, type);
}

/** The row of `type` (an event of the contract). */
export function rowOf<T extends HookEventType>(type: T): EventRow<T> {
  return EVENTS[type] as unknown as EventRow<T>;
}

/** A fresh sample of `type` (AbortSignals new each time). */
export function sampleEvent<T extends HookEventType>(type: T): HookEventOf<T> {
  return rowOf(type).sample() as HookEventOf<T>;
}

/** The fields of `type`'s events that hold an AbortSignal (read off its sample, which the types make complete). */
export function signalFields(type: HookEventType): string[] {
  return Object.entries(rowOf(type).sample()).filter(([, v]) => v instanceof AbortSignal).map(([k]) => k);
}

/**
 * `value` with every key whose value is undefined left out of its plain objects, as JSON.stringify
 * leaves them out (depth and size are bounded before a result reaches a schema).
 */
function withoutUndefinedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUndefinedKeys);
  if (value === null || typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v !== undefined) Object.defineProperty(out, key, { value: withoutUndefinedKeys(v), enumerable: true, writable: true, configurable: true });
  return out;
}
