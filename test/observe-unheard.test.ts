/**
 * README: "nobody listening and no OpenTelemetry: no record is built". The one place a record is
 * built is the observer's `call` (src/observe/observer.ts: `callRecord` from what the runner saw);
 * a spy on it that calls through counts the records built in real runs over real hook workers.
 * Whether @opentelemetry/api is installed or not changes nothing here (test/observe-without-otel.test.ts
 * counts the same in a copy of hookbox without it); what counts is a provider registered with it.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { Observer } from "../src/observe/observer.js";
import type { DecisionRecord } from "../src/observe/record.js";
import { start } from "./helpers/host.js";
import { toolCall, turnStart } from "./helpers/events.js";

const OTEL_REGISTRY = Symbol.for("opentelemetry.js.api.1");
afterEach(() => { vi.restoreAllMocks(); trace.disable(); });

/** A tool call through a hook that allows and one that blocks, and a crash on turn_start: three hook calls. */
async function threeCalls() {
  const built = vi.spyOn(Observer.prototype, "call");
  const host = await start(["reports-bash-command-seen", "blocks-rm-rf", "faulty/exits-process.ts"], { load: { maxRestarts: 0 } });
  const run = async () => {
    expect(await host.runner.emitToolCall(toolCall("rm -rf /", "unheard"))).toMatchObject({ block: true });
    await host.runner.emit(turnStart());
  };
  return { built, host, run };
}

describe("records nobody hears", () => {
  it("with no listener and no OpenTelemetry provider, no hook call builds a record: allowed, blocked and crashed alike", async () => {
    expect((globalThis as Record<symbol, unknown>)[OTEL_REGISTRY]).toBeUndefined();
    const { built, host, run } = await threeCalls();
    await run();
    expect(host.errors.map((e) => e.code)).toEqual(["crashed"]);
    expect(built).not.toHaveBeenCalled();
  });

  it("the control: a listener makes each of the same calls build one record, and once it stops listening none is built again", async () => {
    const { built, host, run } = await threeCalls();
    const heard: DecisionRecord[] = [];
    const stop = host.runner.onRecord((r) => heard.push(r));
    await run();
    expect(heard.map((r) => r.outcome)).toEqual(["allowed", "blocked", "failed"]);
    expect(built).toHaveBeenCalledTimes(3);
    stop();
    built.mockClear();
    await host.runner.emitToolCall(toolCall("ls", "after"));
    expect(built).not.toHaveBeenCalled();
  });

  it("a tracer provider registered with @opentelemetry/api, with no listener, makes each call build its record (for its span)", async () => {
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    const { built, run } = await threeCalls();
    await run();
    expect(built).toHaveBeenCalledTimes(3);
    expect(exporter.getFinishedSpans()).toHaveLength(3);
  });
});
