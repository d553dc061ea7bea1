// Run by observe-without-otel.test.ts from a copy of hookbox (argv[2]) whose node_modules may lack
// @opentelemetry/api: loads hookbox, runs a tool call nobody hears, one with a record listener, then
// registers a real tracer provider (the SDK given as argv[3]) and runs another. Prints what it saw as
// one JSON line; `built` counts the records built (calls of the observer's `call`, which builds them),
// `unheard` those the first call built.
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [root, sdkRoot] = process.argv.slice(2) as [string, string];
const hookbox = await import(pathToFileURL(join(root, "src/index.ts")).href);
const { Observer } = await import(pathToFileURL(join(root, "src/observe/observer.ts")).href);
let built = 0;
const build = Observer.prototype.call;
Observer.prototype.call = function (this: unknown, ...args: unknown[]) { built++; return build.apply(this, args); };
// The hook is this repository's fixture (a copy's symlinked node_modules lead outside its package roots),
// "trusted": the permission model's read grants would name the copy's runtime, whose dependencies link out of it.
const { hooks, errors } = await hookbox.loadHooks([join(sdkRoot, "fixtures/valid/blocks-rm-rf.ts")], root, { policy: "trusted" });
const runner = new hookbox.HookRunner(hooks, root, hookbox.createSessionManager(), hookbox.createModelRegistry());
const records: unknown[] = [];
const call = (id: string) => runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: id, input: { command: "rm -rf /" } });
await call("unheard");
const unheard = built;
runner.onRecord((r: unknown) => records.push(r));
await call("before-provider");
const loaded = () => Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes("@opentelemetry")).length;
const loadedBefore = loaded();

const sdk = createRequire(join(sdkRoot, "package.json"));
const api = sdk("@opentelemetry/api");
const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = sdk("@opentelemetry/sdk-trace-base");
const exporter = new InMemorySpanExporter();
api.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
await call("after-provider");
await runner.dispose();
console.log(JSON.stringify({ errors: errors.map((e: { code: string; error: string }) => `${e.code}: ${e.error}`), unheard, built, records: records.length, outcomes: records.map((r) => (r as { outcome: string }).outcome), loadedBefore, spans: exporter.getFinishedSpans().length }));
