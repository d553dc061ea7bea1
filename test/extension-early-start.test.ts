/**
 * isolate() at the agent's next start (src/extension/starts.ts): when the same modules loaded
 * cleanly at the previous start, the factory returns before they load, with what they registered
 * then mirrored on pi; a tool call waits for every module. A module that arrives registering
 * otherwise (its file unchanged: what it registers comes from a file it reads) is taken as far as
 * pi takes it then: a new tool is registered, a tool it no longer registers answers an error
 * naming it, a new command waits for the next start, a new handler of an event already sent
 * missed it; one warning names all of it, no tool call is blocked, and the next start mirrors
 * what it registers now. Inside pi 0.73.1's own loader and runner. The module's top level waits
 * for a file the test writes, so "before it loaded" is a fact of the test, not a timing.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolate } from "../src/extension/adapter.js";
import { ISOLATION } from "./support/isolation.js";
import { importPi, installPiDir } from "./support/pi-agent.js";

type Any = any;
let loader: Any;
let Runner: Any;
let SessionManager: Any;
let wrapRegisteredTool: Any;
let dir: string;
/** The host's caches, outside what the module may read. */
let caches: string;

beforeAll(async () => {
  ({ loader, Runner, SessionManager, wrapRegisteredTool } = await importPi(installPiDir()));
  dir = mkdtempSync(join(tmpdir(), "hookbox-early-"));
  caches = mkdtempSync(join(tmpdir(), "hookbox-early-caches-"));
}, 300_000);
afterAll(() => { for (const d of [dir, caches]) rmSync(d, { recursive: true, force: true }); });

/** What the gated module registers, read from its gate: a tool, optionally a command and a session_start handler. */
interface Gate { tool: string; command?: string; sessionStart?: boolean }

/** A module whose top level waits until `gate` exists, then registers what the gate says and blocks `rm -rf /`. */
function gatedModule(gate: string, name = "gated"): string {
  const file = join(dir, `${name}-${ISOLATION}.mjs`);
  writeFileSync(file, `import { existsSync, readFileSync } from "node:fs";
const gate = ${JSON.stringify(gate)};
while (!existsSync(gate)) await new Promise((resolve) => setTimeout(resolve, 20));
const says = JSON.parse(readFileSync(gate, "utf8"));
export default function (pi) {
  pi.registerTool({ name: says.tool, label: says.tool, description: "names the gate", parameters: { type: "object", properties: {} },
    async execute() { return { content: [{ type: "text", text: says.tool }], details: {} }; } });
  if (says.command) pi.registerCommand(says.command, { description: "from the gate", handler: async () => {} });
  if (says.sessionStart) pi.on("session_start", () => {});
  pi.on("tool_call", (event) => (event.input?.command === "rm -rf /" ? { block: true, reason: "blocked by " + says.tool } : undefined));
}
`);
  return file;
}

const open = (gate: string, says: Gate) => writeFileSync(gate, JSON.stringify(says));

/** One start of the agent: pi's loader runs the factory; resolves with pi's runner once the factory returned. */
async function start(file: string | string[], cacheDir = join(caches, ISOLATION), effects?: string) {
  const options = { isolation: ISOLATION, policy: { fsRead: [dir], ...(effects ? { effects } : {}) }, transformCacheDir: cacheDir } as Parameters<typeof isolate>[1];
  const runtime = loader.createExtensionRuntime();
  const extension = await loader.loadExtensionFromFactory(isolate([file].flat(), options), process.cwd(), undefined, runtime, "<isolated>");
  const runner = new Runner([extension], runtime, process.cwd(), SessionManager.inMemory(process.cwd()), {});
  const errors: string[] = [];
  const notified: string[] = [];
  runner.onError((e: { error: string }) => errors.push(e.error));
  runner.setUIContext({ notify: (text: string) => notified.push(text), setStatus: () => {}, theme: {} });
  const tools = () => runner.getAllRegisteredTools().map((t: Any) => t.definition.name);
  const tool = (name: string) => wrapRegisteredTool(runner.getAllRegisteredTools().find((t: Any) => t.definition.name === name), runner);
  const commands = () => runner.getRegisteredCommands().map((c: Any) => c.name);
  return { runner, errors, notified, tools, tool, commands };
}

const rmRoot = { type: "tool_call", toolName: "bash", toolCallId: "c1", input: { command: "rm -rf /" } };
const ls = { ...rmRoot, input: { command: "ls" } };
const timeout = (ms: number) => new Promise<"factory waited">((resolve) => setTimeout(() => resolve("factory waited"), ms).unref());
const quit = { type: "session_shutdown", reason: "quit" };

describe(`isolate() mirrors the previous start (${ISOLATION} isolation)`, () => {
  it("returns before the module loaded, with its previous tools on pi; a tool call waits for it; a module that changed is taken as far as pi takes it, with one warning, and the next start mirrors it", async () => {
    const gate = join(dir, `gate-${ISOLATION}`);
    const file = gatedModule(gate);

    // The first start waits for the module (nothing recorded yet) and records what it registered.
    open(gate, { tool: "first_tool" });
    const first = await start(file);
    expect(first.tools()).toContain("first_tool");
    expect(await first.runner.emitToolCall(rmRoot)).toEqual({ block: true, reason: "blocked by first_tool" });
    await first.runner.emit(quit);

    // The second start: the module cannot load until the gate is back, yet the factory returns.
    rmSync(gate);
    const second = await Promise.race([start(file), timeout(20_000)]);
    if (second === "factory waited") throw new Error("the factory waited for the module to load");
    expect(second.tools()).toContain("first_tool");
    const call = second.runner.emitToolCall(rmRoot);
    open(gate, { tool: "first_tool" });
    // The module handled it: the call waited for the module to arrive.
    expect(await call).toEqual({ block: true, reason: "blocked by first_tool" });
    expect(second.errors).toEqual([]);
    expect(second.notified).toEqual([]);
    await second.runner.emit(quit);

    // The third start mirrors first_tool; the module (its file unchanged) now registers second_tool,
    // the command /late and a session_start handler, and session_start is sent before it loads.
    rmSync(gate);
    const third = await start(file);
    expect(third.tools()).toContain("first_tool");
    await third.runner.emit({ type: "session_start", reason: "startup" });
    const lsCall = third.runner.emitToolCall(ls);
    open(gate, { tool: "second_tool", command: "late", sessionStart: true });
    // Not blocked: the guard still guards, the module runs.
    expect(await lsCall).toBeUndefined();
    expect(await third.runner.emitToolCall(rmRoot)).toEqual({ block: true, reason: "blocked by second_tool" });
    // The new tool is on pi and runs; the one it no longer registers answers an error naming it.
    expect(third.tools()).toContain("second_tool");
    expect((await third.tool("second_tool").execute("t1", {}, undefined, undefined)).content).toEqual([{ type: "text", text: "second_tool" }]);
    await expect(third.tool("first_tool").execute("t2", {}, undefined, undefined)).rejects.toThrow(`hookbox: ${file} no longer registers the tool "first_tool"`);
    // pi takes a command only at load: not there this session.
    expect(third.commands()).not.toContain("late");
    expect(third.errors).toEqual([]);
    expect(third.notified).toEqual([
      `hookbox: ${file} registered otherwise than at the agent's previous start, which this start mirrored while the module loaded: `
      + `command "late" not registered in the agent until it starts again (the agent takes commands, flags and shortcuts only at load); `
      + `tool "first_tool" no longer registered (a call answers an error naming it); `
      + `its handler of "session_start" missed what the agent sent before the module loaded. The next start has what it registers now.`,
    ]);
    await third.runner.emit(quit);

    // The fourth start mirrors what the module registered at the third, before it loads.
    rmSync(gate);
    const fourth = await Promise.race([start(file), timeout(20_000)]);
    if (fourth === "factory waited") throw new Error("the factory waited for the module to load");
    expect(fourth.tools()).toContain("second_tool");
    expect(fourth.tools()).not.toContain("first_tool");
    expect(fourth.commands()).toContain("late");
    // session_start now waits for the module (its previous start handled it).
    const sessionStart = fourth.runner.emit({ type: "session_start", reason: "startup" });
    open(gate, { tool: "second_tool", command: "late", sessionStart: true });
    await sessionStart;
    expect(await fourth.runner.emitToolCall(rmRoot)).toEqual({ block: true, reason: "blocked by second_tool" });
    expect(fourth.notified).toEqual([]);
    expect(fourth.errors).toEqual([]);
    await fourth.runner.emit(quit);
  }, 120_000);

  it("after one module changed, the start waits for that module alone: what it registers now (a command) is on pi when the factory returns, and the unchanged module is mirrored from its record", async () => {
    const gate = join(dir, `gate-unchanged-${ISOLATION}`);
    const unchanged = gatedModule(gate, "unchanged");
    const changed = join(dir, `changed-${ISOLATION}.mjs`);
    const write = (command: string) => writeFileSync(changed, `export default function (pi) {
  // A description from a variable: the reading cannot read it, so the start waits for this module.
  const description = "from the module's file";
  pi.registerCommand(${JSON.stringify(command)}, { description, handler: async () => {} });
  pi.on("tool_call", () => undefined);
}
`);
    const cacheDir = join(caches, `changed-${ISOLATION}`);
    open(gate, { tool: "kept_tool" });
    write("before_edit");
    const first = await start([unchanged, changed], cacheDir);
    expect(first.commands()).toContain("before_edit");
    await first.runner.emit(quit);

    // The unchanged module cannot load until its gate is back; the changed one loads at once.
    rmSync(gate);
    write("after_edit");
    const second = await Promise.race([start([unchanged, changed], cacheDir), timeout(20_000)]);
    if (second === "factory waited") throw new Error("the factory waited for the unchanged module to load");
    // pi takes commands only while the factory runs: the changed module's new one is there, its old one is not.
    expect(second.commands()).toContain("after_edit");
    expect(second.commands()).not.toContain("before_edit");
    expect(second.tools()).toContain("kept_tool");
    const call = second.runner.emitToolCall(rmRoot);
    open(gate, { tool: "kept_tool" });
    expect(await call).toEqual({ block: true, reason: "blocked by kept_tool" });
    expect(second.notified).toEqual([]);
    expect(second.errors).toEqual([]);
    await second.runner.emit(quit);

    // Both recorded again: the next start returns before either loads.
    rmSync(gate);
    const third = await Promise.race([start([unchanged, changed], cacheDir), timeout(20_000)]);
    if (third === "factory waited") throw new Error("the factory waited for a module to load");
    expect(third.commands()).toContain("after_edit");
    open(gate, { tool: "kept_tool" });
    expect(await third.runner.emitToolCall(rmRoot)).toEqual({ block: true, reason: "blocked by kept_tool" });
    await third.runner.emit(quit);
  }, 120_000);

  it("a record that says a module registered what a load would refuse (a tool replacing the agent's bash, above policy.effects restrict) is not mirrored: the start waits for the module", async () => {
    const gate = join(dir, `gate-forged-${ISOLATION}`);
    const file = gatedModule(gate, "forged");
    const cacheDir = join(caches, `forged-${ISOLATION}`);
    open(gate, { tool: "own_tool" });
    const first = await start(file, cacheDir, "restrict");
    await first.runner.emit(quit);
    const [name] = readdirSync(join(cacheDir, "starts"));
    const recordFile = join(cacheDir, "starts", name!);
    const record = JSON.parse(readFileSync(recordFile, "utf8"));
    record.manifest.tools[0].name = "bash";
    writeFileSync(recordFile, JSON.stringify(record));

    rmSync(gate);
    const second = start(file, cacheDir, "restrict");
    expect(await Promise.race([second, timeout(1_500)])).toBe("factory waited");
    open(gate, { tool: "own_tool" });
    const { runner, tools, errors } = await second;
    expect(tools()).toContain("own_tool");
    expect(tools()).not.toContain("bash");
    expect(errors).toEqual([]);
    await runner.emit(quit);
  }, 120_000);

  it("a tool a module registers in a handler (after load) is not recorded: the next start does not mirror it, and no warning says it went", async () => {
    const file = join(dir, `late-${ISOLATION}.mjs`);
    writeFileSync(file, `export default function (pi) {
  pi.registerTool({ name: "own_tool", label: "own", description: "at load", parameters: { type: "object", properties: {} }, async execute() { return { content: [{ type: "text", text: "own" }], details: {} }; } });
  pi.on("session_start", () => {
    pi.registerTool({ name: "late_tool", label: "late", description: "in session_start", parameters: { type: "object", properties: {} }, async execute() { return { content: [{ type: "text", text: "late" }], details: {} }; } });
  });
}
`);
    const cacheDir = join(caches, `late-${ISOLATION}`);
    for (const round of [1, 2, 3]) {
      const { runner, tools, notified, errors } = await start(file, cacheDir);
      expect(tools(), `start ${round}`).toContain("own_tool");
      expect(tools(), `start ${round}`).not.toContain("late_tool");
      await runner.emit({ type: "session_start", reason: "startup" });
      // The module's later tool is registered when it registers it; the start's record (its load) is kept past the idle start.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(runner.getAllRegisteredTools().map((t: Any) => t.definition.name), `start ${round}`).toContain("late_tool");
      expect(notified, `start ${round}`).toEqual([]);
      expect(errors, `start ${round}`).toEqual([]);
      await runner.emit(quit);
    }
  }, 120_000);
});
