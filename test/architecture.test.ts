/**
 * docs/architecture.md counts every file one `tool_call` crosses, and this keeps the count true: it
 * runs one `emitToolCall` against a real hook in a worker and records, with V8's precise coverage,
 * every file of src/ and worker/ in which a function ran (the host's isolate, and the hook's worker
 * through the inspector's NodeWorker domain), then compares that with the doc's list.
 */
import { Session } from "node:inspector/promises";
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, start } from "./helpers/host.js";
import { toolCall } from "./helpers/events.js";

interface Coverage { result: Array<{ url: string; functions: Array<{ ranges: Array<{ count: number }> }> }> }

const session = new Session();
session.connect();
afterAll(() => session.disconnect());

/** The hook workers' inspector sessions, reached through the main session (NodeWorker domain). */
const workers: string[] = [];
const waiting = new Map<number, (m: { result: unknown }) => void>();
let nextId = 1;
session.on("NodeWorker.attachedToWorker", ({ params }) => { workers.push(params.sessionId); });
session.on("NodeWorker.receivedMessageFromWorker", ({ params }) => {
  const message = JSON.parse(params.message) as { id?: number; result: unknown };
  if (message.id !== undefined) { waiting.get(message.id)?.(message); waiting.delete(message.id); }
});
const inWorker = <T>(sessionId: string, method: string, params: object = {}): Promise<T> => new Promise((resolve) => {
  const id = nextId++;
  waiting.set(id, (m) => resolve(m.result as T));
  void session.post("NodeWorker.sendMessageToWorker", { sessionId, message: JSON.stringify({ id, method, params }) });
});

/** Files of src/ and worker/ in which some function ran since the last take. */
function ran(coverage: Coverage): string[] {
  return coverage.result
    .filter((script) => script.functions.some((f) => f.ranges[0]!.count > 0))
    .map((script) => (script.url.startsWith("file:") ? fileURLToPath(script.url) : script.url))
    .map((path) => relative(ROOT, path))
    .filter((path) => /^(src|worker)\//.test(path));
}

/** The list under "Every file one `tool_call` crosses" in docs/architecture.md, and the count its text states. */
function documented(): { files: string[]; stated: number } {
  const doc = readFileSync(new URL("../docs/architecture.md", import.meta.url), "utf8");
  const section = doc.slice(doc.indexOf("## Every file one `tool_call` crosses"));
  const files = [...section.slice(0, section.indexOf("\n## ", 4)).matchAll(/^\| `((?:src|worker)\/[^`]+)` \|/gm)].map((m) => m[1]!);
  const stated = Number(/crosses (\d+) files/.exec(section)?.[1]);
  return { files, stated };
}

describe("docs/architecture.md", () => {
  it("lists every file of src/ and worker/ in which one emitToolCall runs code, host and worker, and states their number", async () => {
    await session.post("NodeWorker.enable", { waitForDebuggerOnStart: false });
    // The default policy but for Node's permission model, which turns the worker's inspector off.
    const { runner } = await start(["valid/blocks-rm-rf.ts"], { load: { policy: { permissionModel: false } } });
    const pass = toolCall("ls");
    const block = toolCall("rm -rf /");
    // Warm: the first calls load modules and build caches that later calls do not touch.
    for (let i = 0; i < 20; i++) await Promise.all([runner.emitToolCall(pass), runner.emitToolCall(block)]);
    const worker = workers.at(-1)!;
    await session.post("Profiler.enable");
    await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
    await inWorker(worker, "Profiler.enable");
    await inWorker(worker, "Profiler.startPreciseCoverage", { callCount: true, detailed: false });
    await session.post("Profiler.takePreciseCoverage");
    await inWorker(worker, "Profiler.takePreciseCoverage");
    // One that passes (its handler returns nothing) and one that is blocked (a result, validated and combined).
    expect(await runner.emitToolCall(pass)).toBeUndefined();
    expect(await runner.emitToolCall(block)).toMatchObject({ block: true });
    const host = ran(await session.post("Profiler.takePreciseCoverage") as Coverage);
    const hook = ran(await inWorker<Coverage>(worker, "Profiler.takePreciseCoverage"));
    await session.post("Profiler.stopPreciseCoverage");
    const crossed = [...new Set([...host, ...hook])].sort();
    const { files, stated } = documented();
    expect(crossed).toEqual([...files].sort());
    expect(stated).toBe(files.length);
  });
});
