/**
 * Who hears a runner's records: the listeners given to `runner.onRecord` (the audit log among them)
 * and OpenTelemetry when the embedder registered a provider. `active` is false when nobody does,
 * and then the runner builds no record at all (a hook call costs what it did without records).
 */
import { isSkip, type HookFailure } from "../contract/errors.js";
import { presets } from "../policy/policy.js";
import type { ResolvedSandboxOptions } from "../options/options.js";
import { deadlineFor } from "../options/options.js";
import { contentValue, cutText, isOwnWords, MAX_CONTENT_CHARS, type DecisionRecord, type Outcome, type RecordListener } from "./record.js";
import { exportRecord, type OtelRegistry } from "./otel.js";

/** Where `@opentelemetry/api` (major 1) keeps the providers an embedder registered. */
const OTEL_REGISTRY = Symbol.for("opentelemetry.js.api.1");
const otelRegistry = (): OtelRegistry | undefined => (globalThis as Record<symbol, OtelRegistry | undefined>)[OTEL_REGISTRY];
import { allowOf } from "./allow.js";

/** What the runner saw of one hook call, once it settled. */
export interface CallSeen {
  hookPath: string;
  /** The hook's options (absent for a hand-built in-process hook). */
  options: Readonly<ResolvedSandboxOptions> | undefined;
  /** The digest of the approval the hook runs under (a project's module). */
  approved?: string | undefined;
  /** The event as the hook received it. */
  event: Record<string, unknown> & { type: string };
  /** `performance.now()` when the call started, and how long it took. */
  started: number;
  ms: number;
  /** The failure the call ended with (its reply never came), or what it threw out of a tool call. */
  failure?: HookFailure;
  /** Failures reported while its reply was applied, in order. */
  reported: readonly HookFailure[];
  /** Whether the emit ended with a block made of the last reported failure (fail closed). */
  failureBlock: boolean;
  /** What the call ended the emit with, when it did (a bail, a block). */
  ended?: { value: unknown };
  /** Whether its result or edits were applied to the event (beyond a bail's no). */
  changed: boolean;
}

interface Listening { listener: RecordListener; content: boolean }

export class Observer {
  readonly #listeners = new Set<Listening>();
  #content = 0;
  agent = "library";
  constructor(readonly project: string) {}

  /** Whether a record would be heard: a listener, or a tracer or meter provider registered with `@opentelemetry/api` (read here, on the hot path, without a call into otel.ts). */
  get active(): boolean {
    if (this.#listeners.size > 0) return true;
    const otel = (globalThis as Record<symbol, OtelRegistry | undefined>)[OTEL_REGISTRY];
    return otel !== undefined && (otel.trace !== undefined || otel.metrics !== undefined);
  }

  listen(listener: RecordListener, options: { content?: boolean } = {}): () => void {
    const entry = { listener, content: options.content === true };
    this.#listeners.add(entry);
    if (entry.content) this.#content++;
    return () => {
      if (this.#listeners.delete(entry) && entry.content) this.#content--;
    };
  }

  /** One hook call settled. */
  call(seen: CallSeen): void {
    this.emit(callRecord(seen, this.agent, this.project, this.#content > 0), performance.timeOrigin + seen.started, performance.timeOrigin + seen.started + seen.ms);
  }

  /** A record made elsewhere (a wall decision outside a hook call), with the times of its span. */
  emit(record: DecisionRecord, start = Date.now(), end = start): void {
    let plain: DecisionRecord | undefined;
    for (const { listener, content } of this.#listeners) {
      if (!content && record.content) plain ??= withoutContent(record);
      try {
        listener(content ? record : (plain ?? record));
      } catch {
        // A listener's own throw is its own: the hook call already settled.
      }
    }
    const otel = otelRegistry();
    if (otel) exportRecord(otel, plain ?? withoutContent(record), start, end);
  }
}

export function withoutContent(record: DecisionRecord): DecisionRecord {
  if (!record.content) return record;
  const { content: _content, ...rest } = record;
  return rest;
}

const isStop = (value: unknown): boolean =>
  typeof value === "object" && value !== null && ((value as { block?: unknown }).block === true || (value as { cancel?: unknown }).cancel === true);

/** The policy's preset name, or `custom`. */
export function policyName(options: Readonly<ResolvedSandboxOptions> | undefined): string | undefined {
  if (!options) return undefined;
  return (Object.keys(presets) as Array<keyof typeof presets>).find((name) => presets[name] === options.policy) ?? "custom";
}

/** The record of one hook call the runner saw. */
export function callRecord(seen: CallSeen, agent: string, project: string, content: boolean): DecisionRecord {
  const { event, options } = seen;
  const decisive = seen.failure ?? (seen.failureBlock ? seen.reported.at(-1) : undefined);
  const blocked = seen.failure?.code === "handler_threw" && event.type === "tool_call" ? true : isStop(seen.ended?.value);
  const failure = decisive ?? (blocked ? undefined : seen.reported[0]);
  let outcome: Outcome;
  if (failure) outcome = isSkip(failure.code) ? "skipped" : failure.code === "effect_refused" ? "refused" : "failed";
  else outcome = blocked ? "blocked" : "allowed";
  const record: DecisionRecord = {
    v: 1,
    time: new Date(performance.timeOrigin + seen.started).toISOString(),
    agent,
    project,
    hook: { path: cutText(seen.hookPath, 4000), ...(seen.approved ? { hash: seen.approved } : {}) },
    event: cutText(event.type, 100),
    outcome,
    blocked,
    durationMs: Math.round(seen.ms * 1000) / 1000,
  };
  const tool = toolOf(event);
  if (tool) record.tool = tool;
  if (options) {
    record.isolation = options.isolation;
    record.policy = policyName(options);
  } else record.isolation = "in-process";
  if (outcome === "blocked") record.effect = "restrict";
  // A change applied under an annotate grant is at most an annotation (anything above it was refused).
  else if (outcome === "allowed") record.effect = seen.changed ? (options?.policy.effects === "annotate" ? "annotate" : "substitute") : "observe";
  if (failure) {
    record.code = failure.code;
    if (isOwnWords(failure.code)) record.why = cutText(failure.message, 1_900);
    if (failure.code === "timeout" && options) record.limitMs = deadlineFor(options as ResolvedSandboxOptions, event.type);
    const allow = allowOf(failure, project, agent);
    if (allow) record.allow = allow;
  }
  if (content) {
    const reason = failure ? failure.message : typeof (seen.ended?.value as { reason?: unknown } | undefined)?.reason === "string" ? (seen.ended!.value as { reason: string }).reason : undefined;
    record.content = { input: contentValue(event), output: contentValue(seen.ended?.value), ...(reason !== undefined ? { reason: cutText(reason, MAX_CONTENT_CHARS) } : {}) };
  }
  return record;
}

/** The tool call an event is about (pi's `toolName` / `toolCallId`). */
export function toolOf(event: Record<string, unknown>): DecisionRecord["tool"] | undefined {
  const name = typeof event.toolName === "string" ? cutText(event.toolName, 200) : undefined;
  const callId = typeof event.toolCallId === "string" ? cutText(event.toolCallId, 200) : undefined;
  if (name === undefined && callId === undefined) return undefined;
  return { ...(name !== undefined ? { name } : {}), ...(callId !== undefined ? { callId } : {}) };
}
