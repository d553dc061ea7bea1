/**
 * OpenTelemetry: one span per hook call, a child of the embedder's active span, named and
 * attributed by the GenAI semantic conventions and hookbox's own attributes; and the metrics. The
 * SDK's in-memory exporter, a real tracer provider and context manager, real hook workers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { context, metrics, trace, SpanStatusCode } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { start } from "./helpers/host.js";
import { toolCall } from "./helpers/events.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 60_000 });
const meters = new MeterProvider({ readers: [reader] });

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  metrics.setGlobalMeterProvider(meters);
});
afterAll(async () => {
  trace.disable();
  metrics.disable();
  context.disable();
  await provider.shutdown();
  await meters.shutdown();
});

describe("OpenTelemetry spans", () => {
  it("gives one child span per hook called, under the embedder's span: allowed, blocked, and a crash with error.type crashed and status ERROR, each with the call id", async () => {
    const guard = await start(["reports-bash-command-seen", "blocks-rm-rf"]);
    const crash = await start(["faulty/exits-process.ts"]);
    const tracer = trace.getTracer("test");
    const parent = tracer.startSpan("agent turn");
    await context.with(trace.setSpan(context.active(), parent), async () => {
      expect(await guard.runner.emitToolCall(toolCall("rm -rf /", "call-7"))).toMatchObject({ block: true });
      expect(await crash.runner.emitToolCall(toolCall("ls", "call-8"))).toMatchObject({ block: true });
    });
    parent.end();
    const spans = exporter.getFinishedSpans().filter((s) => s.name !== "agent turn");
    expect(spans.map((s) => [s.name, s.attributes["hookbox.outcome"], s.attributes["gen_ai.tool.call.id"]])).toEqual([
      ["execute_tool bash", "allowed", "call-7"],
      ["execute_tool bash", "blocked", "call-7"],
      ["execute_tool bash", "failed", "call-8"],
    ]);
    for (const span of spans) {
      expect(span.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
      expect(span.spanContext().traceId).toBe(parent.spanContext().traceId);
      expect(span.attributes).toMatchObject({ "gen_ai.tool.name": "bash", "gen_ai.operation.name": "execute_tool", "hookbox.event": "tool_call" });
      expect(span.attributes["hookbox.isolation"]).toBe(process.env.HOOKBOX_TEST_ISOLATION ?? "worker");
      expect(typeof span.attributes["hookbox.policy"]).toBe("string");
    }
    const [allowed, blocked, crashed] = spans;
    expect(String(allowed!.attributes["hookbox.hook.path"])).toMatch(/reports-bash-command-seen\.ts$/);
    expect(allowed!.attributes["hookbox.effect"]).toBe("observe");
    expect(allowed!.status.code).toBe(SpanStatusCode.UNSET);
    expect(blocked!.attributes).toMatchObject({ "hookbox.effect": "restrict", "hookbox.blocked": true });
    expect(blocked!.attributes["error.type"]).toBeUndefined();
    expect(crashed!.attributes).toMatchObject({ "error.type": "crashed", "hookbox.blocked": true });
    expect(crashed!.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("counts durations, blocks and errors as metrics", async () => {
    await reader.forceFlush();
    const all = metricExporter.getMetrics().flatMap((r) => r.scopeMetrics).filter((s) => s.scope.name === "hookbox").flatMap((s) => s.metrics);
    const named = (name: string) => all.filter((m) => m.descriptor.name === name).flatMap((m) => m.dataPoints as Array<{ attributes: Record<string, unknown>; value: unknown }>);
    expect(named("hookbox.hook.duration").length).toBeGreaterThan(0);
    expect(named("hookbox.hook.blocks").map((p) => [p.attributes["hookbox.outcome"], p.value])).toEqual(expect.arrayContaining([["blocked", 1], ["failed", 1]]));
    expect(named("hookbox.hook.errors").map((p) => [p.attributes["error.type"], p.value])).toEqual([["crashed", 1]]);
  });
});
