/**
 * isolate() at a start with no record of a module (the agent's first start, or the first after the
 * module changed): a module whose source shows it registers event handlers and commands only, no
 * handler of an event pi sends before its first request (src/extension/reading.ts), is mirrored from that reading, as a recorded module is mirrored from
 * its record, so the factory returns before it loads; a module the reading cannot read loads
 * before the factory returns, as before. Inside pi 0.73.1's own loader and runner, in every
 * isolation mode. A module's top level waits for a file the test writes (or never ends), so
 * "before it loaded" is a fact of the test, not a timing.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolate } from "../src/extension/adapter.js";
import { ROOT } from "./helpers/host.js";
import { ISOLATION } from "./support/isolation.js";
import { importPi, installPiDir } from "./support/pi-agent.js";

type Any = any;
let loader: Any;
let Runner: Any;
let SessionManager: Any;
let dir: string;
let caches: string;
const HANGS = join(ROOT, "fixtures", "hostile", "hangs-at-load-guarding-tool-calls.ts");

beforeAll(async () => {
  ({ loader, Runner, SessionManager } = await importPi(installPiDir()));
  dir = mkdtempSync(join(tmpdir(), "hookbox-first-"));
  caches = mkdtempSync(join(tmpdir(), "hookbox-first-caches-"));
}, 300_000);
afterAll(() => { for (const d of [dir, caches]) rmSync(d, { recursive: true, force: true }); });

/** A guard whose top level waits until `gate` exists; `extra` goes in its factory (a command, read or not). */
function gatedGuard(name: string, gate: string, extra = ""): string {
  const file = join(dir, `${name}-${ISOLATION}.mjs`);
  writeFileSync(file, `import { existsSync } from "node:fs";
const gate = ${JSON.stringify(gate)};
while (!existsSync(gate)) await new Promise((resolve) => setTimeout(resolve, 20));
export default function (pi) {
  pi.on("tool_call", (event) => (event.input?.command === "rm -rf /" ? { block: true, reason: "blocked by ${name}" } : undefined));
  ${extra}
}
`);
  return file;
}

/** One start of the agent with no record (a cache folder of its own): pi's loader runs the factory; resolves once the factory returned. */
async function start(files: string[], cacheDir: string, deadlines?: Record<string, number>) {
  const options = { isolation: ISOLATION, policy: { fsRead: [dir] }, transformCacheDir: cacheDir, ...(deadlines ? { deadlines } : {}) } as Parameters<typeof isolate>[1];
  const runtime = loader.createExtensionRuntime();
  const extension = await loader.loadExtensionFromFactory(isolate(files, options), process.cwd(), undefined, runtime, "<isolated>");
  const runner = new Runner([extension], runtime, process.cwd(), SessionManager.inMemory(process.cwd()), {});
  const errors: string[] = [];
  const notified: string[] = [];
  runner.onError((e: { error: string }) => errors.push(e.error));
  runner.setUIContext({ notify: (text: string) => notified.push(text), setStatus: () => {}, theme: {} });
  const commands = () => runner.getRegisteredCommands().map((c: Any) => c.name);
  return { runner, errors, notified, commands };
}

const rmRoot = { type: "tool_call", toolName: "bash", toolCallId: "c1", input: { command: "rm -rf /" } };
const quit = { type: "session_shutdown", reason: "quit" };
const sessionStart = { type: "session_start", reason: "startup" };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const records = (cacheDir: string) => { try { return readdirSync(join(cacheDir, "starts")); } catch { return []; } };

describe(`isolate() at a first start reads event-only modules (${ISOLATION} isolation)`, () => {
  it("an event-only module is mirrored from its source: the factory returns before it loads, a tool call waits for it and it blocks, and its record is written", async () => {
    const gate = join(dir, `gate-read-${ISOLATION}`);
    const file = gatedGuard("read", gate);
    const cacheDir = join(caches, `read-${ISOLATION}`);
    const order: string[] = [];
    const factory = start([file], cacheDir).then((s) => { order.push("factory returned"); return s; });
    // The gate stays shut until the factory returned: a factory that waited for the module would never return.
    const first = await Promise.race([factory, pause(20_000).then(() => undefined)]);
    if (!first) throw new Error("the factory waited for the event-only module to load");
    expect(records(cacheDir)).toEqual([]);
    const call = first.runner.emitToolCall(rmRoot);
    order.push("gate opened");
    writeFileSync(gate, "");
    expect(await call).toEqual({ block: true, reason: "blocked by read" });
    expect(order).toEqual(["factory returned", "gate opened"]);
    expect(first.errors).toEqual([]);
    expect(first.notified).toEqual([]);
    // Written once it arrived: what it registered, for the next start.
    const [record] = records(cacheDir);
    expect(JSON.parse(readFileSync(join(cacheDir, "starts", record!), "utf8")).manifest).toEqual({ events: { tool_call: 1 }, commands: [], renderers: [] });
    await first.runner.emit(quit);
  }, 60_000);

  it("a module that registers a command is read: the factory returns before it loads, with the command and its read description on pi; running the command waits for the module and runs its handler", async () => {
    const gate = join(dir, `gate-command-${ISOLATION}`);
    const file = gatedGuard("command", gate, `pi.registerCommand("greet", { description: "says hello", handler: async (args, ctx) => { ctx.ui.notify("hello " + args, "info"); } });`);
    const cacheDir = join(caches, `command-${ISOLATION}`);
    const first = await Promise.race([start([file], cacheDir), pause(20_000).then(() => undefined)]);
    if (!first) throw new Error("the factory waited for the command module to load");
    expect(first.commands()).toEqual(["greet"]);
    expect(first.runner.getCommand("greet").description).toBe("says hello");
    const order: string[] = [];
    const ran = first.runner.getCommand("greet").handler("you", first.runner.createCommandContext()).then(() => order.push("command ran"));
    await pause(200);
    order.push("gate opened");
    writeFileSync(gate, "");
    await ran;
    expect(order).toEqual(["gate opened", "command ran"]);
    expect(first.notified).toEqual(["hello you"]);
    expect(first.errors).toEqual([]);
    const [record] = records(cacheDir);
    expect(JSON.parse(readFileSync(join(cacheDir, "starts", record!), "utf8")).manifest.commands).toEqual([{ name: "greet", description: "says hello" }]);
    await first.runner.emit(quit);
  }, 60_000);

  it("control: the same module whose command's description is a variable is not read, and the factory waits for it", async () => {
    const gate = join(dir, `gate-control-${ISOLATION}`);
    const file = gatedGuard("control", gate, `const description = "says hello";\n  pi.registerCommand("greet", { description, handler: async () => {} });`);
    const order: string[] = [];
    const factory = start([file], join(caches, `control-${ISOLATION}`)).then((s) => { order.push("factory returned"); return s; });
    await pause(1_000);
    order.push("gate opened");
    writeFileSync(gate, "");
    const { runner, errors, commands } = await factory;
    expect(order).toEqual(["gate opened", "factory returned"]);
    expect(commands()).toEqual(["greet"]);
    expect(await runner.emitToolCall(rmRoot)).toEqual({ block: true, reason: "blocked by control" });
    expect(errors).toEqual([]);
    await runner.emit(quit);
  }, 60_000);

  it("an event-only module that handles an event pi sends before its first request (session_start) is waited for by the factory, as the start would wait for it anyway", async () => {
    const gate = join(dir, `gate-early-${ISOLATION}`);
    const file = gatedGuard("early", gate, `pi.on("session_start", () => {});`);
    const order: string[] = [];
    const factory = start([file], join(caches, `early-${ISOLATION}`)).then((s) => { order.push("factory returned"); return s; });
    await pause(1_000);
    order.push("gate opened");
    writeFileSync(gate, "");
    const { runner, errors } = await factory;
    expect(order).toEqual(["gate opened", "factory returned"]);
    expect(await runner.emitToolCall(rmRoot)).toEqual({ block: true, reason: "blocked by early" });
    expect(errors).toEqual([]);
    await runner.emit(quit);
  }, 60_000);

  it("an event-only module whose import throws is mirrored from its source: reported as it arrives (load_failed, as pi reports an extension's error), every tool call blocked, no record of what it registers; the next start waits for it and reports it at pi's start", async () => {
    const boom = join(dir, `boom-${ISOLATION}.mjs`);
    const file = join(dir, `throws-at-import-${ISOLATION}.mjs`);
    writeFileSync(boom, `throw new Error("broken at import");\n`);
    writeFileSync(file, `import "./boom-${ISOLATION}.mjs";\nexport default function (pi) {\n  pi.on("tool_call", () => undefined);\n}\n`);
    const cacheDir = join(caches, `throws-${ISOLATION}`);
    const reason = `hookbox: blocked because isolated extension ${file} (load_failed) did not load (fail closed)`;
    const why = new RegExp(`Failed to load hook: .*broken at import`);
    const first = await start([file], cacheDir);
    // Mirrored: session_start does not wait for it, so nothing is known yet.
    await first.runner.emit(sessionStart);
    expect(first.errors).toEqual([]);
    expect(await first.runner.emitToolCall(rmRoot)).toEqual({ block: true, reason });
    // Reported as it arrived, as pi reports an extension's error (its UI here), with its code and why; once.
    expect(first.errors).toEqual([]);
    expect(first.notified).toHaveLength(1);
    expect(first.notified[0]).toMatch(new RegExp(`^hookbox: ${escape(file)}: load_failed in load: `));
    expect(first.notified[0]).toMatch(why);
    await first.runner.emit(quit);
    const [marker] = records(cacheDir);
    expect(JSON.parse(readFileSync(join(cacheDir, "starts", marker!), "utf8"))).toEqual({ format: "hookbox-start-2", unloaded: true });
    // The next start (the same module) waits for it: pi's start reports it through pi's error path, and tool calls are still blocked.
    const second = await start([file], cacheDir);
    await second.runner.emit(sessionStart);
    expect(second.errors).toHaveLength(1);
    expect(second.errors[0]).toContain(`hookbox: ${file} did not load (load_failed): `);
    expect(second.errors[0]).toMatch(why);
    expect(second.errors[0]).toContain("every tool call is blocked (fail closed)");
    expect(await second.runner.emitToolCall(rmRoot)).toEqual({ block: true, reason });
    await second.runner.emit(quit);
    // Mended (its import, so the same record file): the start after waits for it once more, it loads, and what it registered is recorded.
    writeFileSync(boom, `export {};\n`);
    const third = await start([file], cacheDir);
    await third.runner.emit(sessionStart);
    expect(third.errors).toEqual([]);
    expect(await third.runner.emitToolCall(rmRoot)).toBeUndefined();
    await third.runner.emit(quit);
    expect(records(cacheDir)).toEqual([marker]);
    expect(JSON.parse(readFileSync(join(cacheDir, "starts", marker!), "utf8")).manifest).toEqual({ events: { tool_call: 1 }, commands: [], renderers: [] });
  }, 60_000);

  it("a module whose file changes between the start and its load is recorded under neither version: a module that does not load never gets a record from what replaced it", async () => {
    const file = join(dir, `replaced-${ISOLATION}.mjs`);
    writeFileSync(file, `export default function (pi) {\n  pi.on("tool_call", () => undefined);\n  throw new Error("broken at load");\n}\n`);
    const cacheDir = join(caches, `replaced-${ISOLATION}`);
    const first = await start([file], cacheDir);
    // Mirrored from its reading; replaced by a guard that loads before anything needed it.
    writeFileSync(file, `export default function (pi) {\n  pi.on("tool_call", () => ({ block: true, reason: "replaced" }));\n}\n`);
    expect(await first.runner.emitToolCall(rmRoot)).toEqual({ block: true, reason: "replaced" });
    await first.runner.emit(quit);
    expect(records(cacheDir)).toEqual([]);
  }, 60_000);

  it("an event-only guard that hangs at load (hostile) is mirrored: the start goes on without it, and its tool call is blocked once its load deadline ends it (timeout)", async () => {
    const { runner, errors, notified } = await start([HANGS], join(caches, `hangs-${ISOLATION}`), { load: 1_500 });
    // session_start does not wait for a module that handles tool_call only: no failure is known yet.
    await runner.emit(sessionStart);
    expect(errors).toEqual([]);
    const blocked = await runner.emitToolCall(rmRoot);
    expect(blocked).toEqual({ block: true, reason: `hookbox: blocked because isolated extension ${HANGS} (timeout) did not load (fail closed)` });
    expect([...errors, ...notified].join("\n")).toContain(`hookbox: ${HANGS}: timeout in load`);
    await runner.emit(quit);
  }, 60_000);

  it("control: the same hanging guard with registerFlag in its source is not read: the factory waits out its load deadline, and session_start already reports it (timeout)", async () => {
    const control = join(dir, `hangs-control-${ISOLATION}.ts`);
    writeFileSync(control, readFileSync(HANGS, "utf8").replace(`pi.on("tool_call"`, `if (Date.now() < 0) pi.registerFlag("never", { type: "boolean" });\n  pi.on("tool_call"`));
    const { runner, errors } = await start([control], join(caches, `hangs-control-${ISOLATION}`), { load: 1_500 });
    await runner.emit(sessionStart);
    expect(errors.join("\n")).toContain(`${control} did not load (timeout)`);
    expect(await runner.emitToolCall(rmRoot)).toEqual({ block: true, reason: `hookbox: blocked because isolated extension ${control} (timeout) did not load (fail closed)` });
    await runner.emit(quit);
  }, 60_000);
});
