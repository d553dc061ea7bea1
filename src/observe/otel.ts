/**
 * Records as OpenTelemetry spans and metrics, through `@opentelemetry/api` (an optional peer
 * dependency). Nothing is loaded until the embedder has registered a tracer or meter provider: the
 * API keeps its providers in one global registry (`Symbol.for("opentelemetry.js.api.1")`), which
 * the observer reads without loading any module. Without a provider, or without the API resolvable from
 * hookbox, a hook call costs nothing more and nothing is said.
 *
 * Span names follow the GenAI semantic conventions where they fit: `execute_tool <tool>` for a hook
 * call about a tool call (`gen_ai.tool.name`, `gen_ai.tool.call.id`), `hookbox <event>` otherwise;
 * `error.type` is hookbox's code; hookbox's own attributes are `hookbox.*`.
 */
import { createRequire } from "node:module";
import type { DecisionRecord } from "./record.js";

type Api = typeof import("@opentelemetry/api");
type Attributes = Record<string, string | number | boolean>;

/** What `@opentelemetry/api` (major 1) keeps on `globalThis` under `Symbol.for("opentelemetry.js.api.1")`: the registered providers (src/observe/observer.ts reads it). */
export interface OtelRegistry { trace?: object; metrics?: object }

let api: Api | null | undefined;
/** The API, loaded once, the first time a provider is registered; null when it cannot be resolved from hookbox. */
function loadApi(): Api | null {
  if (api === undefined) {
    try {
      api = createRequire(import.meta.url)("@opentelemetry/api") as Api;
    } catch {
      api = null;
    }
  }
  return api;
}

/** The attributes of a record's span (and, without the hook's path and call id, of its metrics). */
export function spanAttributes(record: DecisionRecord): Attributes {
  const a: Attributes = { "hookbox.event": record.event, "hookbox.outcome": record.outcome, "hookbox.blocked": record.blocked, "hookbox.agent": record.agent };
  if (record.tool) {
    a["gen_ai.operation.name"] = "execute_tool";
    if (record.tool.name !== undefined) a["gen_ai.tool.name"] = record.tool.name;
    if (record.tool.callId !== undefined) a["gen_ai.tool.call.id"] = record.tool.callId;
  }
  if (record.hook) a["hookbox.hook.path"] = record.hook.path;
  if (record.hook?.hash) a["hookbox.hook.hash"] = record.hook.hash;
  if (record.code) a["error.type"] = record.code;
  if (record.policy) a["hookbox.policy"] = record.policy;
  if (record.isolation) a["hookbox.isolation"] = record.isolation;
  if (record.effect) a["hookbox.effect"] = record.effect;
  if (record.project) a["hookbox.project"] = record.project;
  return a;
}

export const spanName = (record: DecisionRecord): string =>
  record.tool?.name !== undefined ? `execute_tool ${record.tool.name}` : `hookbox ${record.event}`;

let tracer: ReturnType<Api["trace"]["getTracer"]> | undefined;
let meter: { provider: object; duration: any; blocks: any; errors: any } | undefined;

/**
 * One span for `record`, from `start` to `end` (epoch milliseconds), a child of the span active in
 * the caller's context; and its metrics. Made after the call settled, with the call's own times.
 * `r`: the API's registry.
 */
export function exportRecord(r: OtelRegistry, record: DecisionRecord, start: number, end: number): void {
  if (!r.trace && !r.metrics) return;
  const otel = loadApi();
  if (!otel) return;
  const attributes = spanAttributes(record);
  if (r.trace) {
    tracer ??= otel.trace.getTracer("hookbox");
    const span = tracer.startSpan(spanName(record), { kind: otel.SpanKind.INTERNAL, startTime: start, attributes }, otel.context.active());
    // A code is a hook that did not answer as written (a fault, a refusal, a skip).
    if (record.code) span.setStatus({ code: otel.SpanStatusCode.ERROR, message: record.why ?? record.code });
    span.end(end);
  }
  if (r.metrics) {
    if (meter?.provider !== r.metrics) {
      const m = otel.metrics.getMeter("hookbox");
      meter = {
        provider: r.metrics,
        duration: m.createHistogram("hookbox.hook.duration", { unit: "s", description: "How long one hook took for one event" }),
        blocks: m.createCounter("hookbox.hook.blocks", { description: "Events a hook or the wall stopped (a blocked tool call, a cancelled event)" }),
        errors: m.createCounter("hookbox.hook.errors", { description: "Hook calls and wall decisions with a HookError code, by error.type" }),
      };
    }
    const { "hookbox.hook.path": _path, "gen_ai.tool.call.id": _id, "hookbox.project": _project, ...labels } = attributes;
    if (record.durationMs !== undefined) meter.duration.record(record.durationMs / 1000, labels);
    if (record.blocked) meter.blocks.add(1, labels);
    if (record.code) meter.errors.add(1, labels);
  }
}
