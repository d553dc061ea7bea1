/**
 * Extensions of the kinds people publish on npm behave through `isolate(…, { policy: "trusted" })`
 * as in pi's process: each fixture runs in pi 0.73.1's own loader and runner twice, once in pi's
 * process (the control) and once isolated (this project's isolation), with the same recording UI,
 * and what pi's side saw is compared. An MCP adapter wrapping ctx.ui in its own Proxy, a tool
 * answering `isError`, a bus payload holding a callback, a command whose background work outlives
 * it, a module written for an older or newer pi.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { isolate } from "../src/extension/adapter.js";
import { refusedUiMessage } from "../worker/extension-members.mjs";
import { ROOT } from "./helpers/host.js";
import { ISOLATION } from "./support/isolation.js";
import { importPi, installPiDir } from "./support/pi-agent.js";

type Any = any;
const ext = (name: string) => join(ROOT, "fixtures", "extensions", name);
let pi: Awaited<ReturnType<typeof importPi>>;
let createEventBus: () => unknown;
const runners: Any[] = [];

beforeAll(async () => {
  pi = await importPi(installPiDir());
  ({ createEventBus } = await import(pathToFileURL(join(pi.dist, "core", "event-bus.js")).href));
  pi.initTheme("dark");
}, 300_000);

afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.emit({ type: "session_shutdown", reason: "quit" });
});

/**
 * `paths` in pi's loader and runner: in pi's process (`inProcess`, each module's own factory) or
 * through `isolate()`. What pi's side saw is in `log`: each UI call and command action as text.
 */
async function inPi(paths: string[], inProcess: boolean) {
  const runtime = pi.loader.createExtensionRuntime();
  const bus = createEventBus();
  const extensions: Any[] = [];
  // One after the other, as pi loads its extensions: their bus listeners subscribe in that order.
  if (inProcess) for (const p of paths) extensions.push(await pi.loader.loadExtensionFromFactory((await import(p)).default, ROOT, bus, runtime, p));
  else extensions.push(await pi.loader.loadExtensionFromFactory(isolate(paths, { isolation: ISOLATION, policy: "trusted" }), ROOT, bus, runtime, "<isolated>"));
  const runner = new pi.Runner(extensions, runtime, ROOT, pi.SessionManager.inMemory(ROOT), {});
  runners.push(runner);
  const log: string[] = [];
  const errors: Any[] = [];
  runner.onError((e: Any) => errors.push(e));
  runner.setUIContext({
    notify: (message: string) => log.push(`notify:${message}`),
    setStatus: (key: string, text: string | undefined) => log.push(`setStatus:${key}=${text}`),
    confirm: async (title: string, message: string) => { log.push(`confirm:${title}:${message}`); return true; },
    theme: { fg: (_color: string, text: string) => text },
    getAllThemes: () => [{ name: "dark", path: undefined }, { name: "solarized", path: "/themes/solarized.json" }],
    onTerminalInput: () => () => {},
    setTheme: (name: string) => (name === "solarized" ? { success: true } : { success: false, error: `Theme not found: ${name}` }),
  });
  runner.bindCommandContext({
    waitForIdle: async () => { log.push("waitForIdle"); }, newSession: async () => ({ cancelled: false }), fork: async () => ({ cancelled: false }),
    navigateTree: async () => ({ cancelled: false }), switchSession: async () => ({ cancelled: false }), reload: async () => {},
  });
  await runner.emit({ type: "session_start", reason: "startup" });
  const command = (name: string, args = "") => runner.getCommand(name).handler(args, runner.createCommandContext());
  return { runner, log, errors, command };
}

/** Wait until `log` has a line starting with `prefix` (background work), at most ~3 s. */
async function until(log: string[], prefix: string): Promise<void> {
  for (let i = 0; i < 300 && !log.some((l) => l.startsWith(prefix)); i++) await new Promise((r) => setTimeout(r, 10));
}

/** Runs `scenario` in pi's process and isolated; both record the same. */
async function sameAsInProcess(paths: string[], scenario: (world: Awaited<ReturnType<typeof inPi>>) => Promise<unknown>) {
  const control = await inPi(paths, true);
  const controlAnswer = await scenario(control);
  const isolated = await inPi(paths, false);
  const isolatedAnswer = await scenario(isolated);
  expect(control.errors).toEqual([]);
  return { control, controlAnswer, isolated, isolatedAnswer };
}

describe(`published-style extensions, isolated as in pi's process (${ISOLATION} isolation)`, { timeout: 60_000 }, () => {
  it("an MCP adapter that wraps ctx.ui and ctx.sessionManager in its own Proxy reads and calls through it", async () => {
    const { control, isolated } = await sameAsInProcess([ext("wraps-its-context-in-proxies.ts")], (w) => w.command("mcp-connect", "2"));
    expect(control.log).toEqual([
      "setStatus:mcp=2 servers", "notify:mcp: connected 2 servers (0 entries, theme function)",
      "notify:mcp: used sessionManager.getEntries,ui.setStatus,ui.notify,ui.theme,ui.notify",
    ]);
    expect(isolated.errors).toEqual([]);
    expect(isolated.log).toEqual(control.log);
  });

  it("a tool's result with isError, a block's own fields and keys of its own reaches pi as the tool returned it, and a tool_result handler's block with its own fields, as in pi's process", async () => {
    const run = async (w: Awaited<ReturnType<typeof inPi>>) => {
      const registered = w.runner.getAllRegisteredTools().find((t: Any) => t.definition.name === "delegate");
      const tool = pi.wrapRegisteredTool(registered, w.runner);
      const updates: unknown[] = [];
      const failed = await tool.execute("call-1", { task: "fail" }, undefined, (u: unknown) => updates.push(u));
      const done = await tool.execute("call-2", { task: "scan" }, undefined, () => {});
      const read = await w.runner.emitToolResult({ type: "tool_result", toolName: "read", toolCallId: "call-3", input: { path: "a" }, content: [{ type: "text", text: "a" }], details: undefined, isError: false });
      return { failed, done, updates, read };
    };
    const { controlAnswer, isolated, isolatedAnswer } = await sameAsInProcess([ext("returns-an-error-result.ts")], run);
    expect((controlAnswer as Any).failed).toEqual({ content: [{ type: "text", text: "sub-agent exited with code 1" }], details: { status: "failed", exitCode: 1 }, isError: true });
    expect((controlAnswer as Any).read.content[1]).toEqual({ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png", detail: "low" });
    expect(isolated.errors).toEqual([]);
    expect(isolatedAnswer).toEqual(controlAnswer);
  });

  it("a bus payload holding a callback reaches the emitter's own listeners as is and the other modules without what cannot cross; the command goes on", async () => {
    const paths = [ext("emits-a-callback-on-the-bus.ts"), ext("hears-callbacks-on-the-bus.ts")];
    const { control, isolated } = await sameAsInProcess(paths, (w) => w.command("ps-start", "web"));
    expect(control.log).toEqual([
      "notify:listener: web (pid 4242) stopped web", "notify:other module: web pid 4242 stop function self object", "notify:started web",
    ]);
    expect(isolated.errors).toEqual([]);
    await until(isolated.log, "notify:other module");
    // In pi's process the other module gets the very object; isolated, a copy without the callback and the cycle.
    expect(isolated.log.filter((l) => !l.startsWith("notify:other module"))).toEqual(["notify:listener: web (pid 4242) stopped web", "notify:started web"]);
    expect(isolated.log.filter((l) => l.startsWith("notify:other module"))).toEqual(["notify:other module: web pid 4242 stop undefined self undefined"]);
  });

  it("work a command started goes on after it returned and its later calls (a read, a dialog, waitForIdle) work, as in pi's process", async () => {
    const { control, isolated } = await sameAsInProcess([ext("starts-background-work-in-a-command.ts")], async (w) => {
      await w.command("spawn", "scout");
      w.log.push("returned");
      await until(w.log, "notify:subagent");
    });
    expect(control.log).toEqual([
      "setStatus:subagent=running scout", "returned", "confirm:Sub-agent:apply scout?", "waitForIdle", "setStatus:subagent=undefined",
      "notify:subagent scout done: 0 entries, confirmed true",
    ]);
    expect(isolated.errors).toEqual([]);
    expect(isolated.log).toEqual(control.log);
  });

  it("a module written for an older or newer pi (session_switch, agent_settled) loads, those handlers never run, it is said once, and its guard blocks", async () => {
    const module = ext("subscribes-events-of-other-pis.ts");
    const rmRf = { type: "tool_call", toolName: "bash", toolCallId: "c1", input: { command: "rm -rf build" } };
    const { control, controlAnswer, isolated, isolatedAnswer } = await sameAsInProcess([module], async (w) => {
      const first = await w.runner.emitToolCall(rmRf);
      await w.runner.emit({ type: "agent_end", messages: [] });
      return [first, await w.runner.emitToolCall(rmRf)];
    });
    expect(controlAnswer).toEqual([{ block: true, reason: "the old guard blocks rm -rf" }, { block: true, reason: "the old guard blocks rm -rf" }]);
    expect(control.log).toEqual([]);
    expect(isolated.errors).toEqual([]);
    expect(isolatedAnswer).toEqual(controlAnswer);
    expect(isolated.log).toEqual([
      `notify:hookbox: ${module}: pi.on("session_switch"): pi has no such event, so this handler is never called (the module is loaded, as pi loads it)`,
      `notify:hookbox: ${module}: pi.on("agent_settled"): pi has no such event, so this handler is never called (the module is loaded, as pi loads it)`,
    ]);
  });

  it("a theme picker lists pi's themes (getAllThemes, as data) and switches by name with pi's answer (setTheme); onTerminalInput is refused by name, saying why", async () => {
    const { control, isolated } = await sameAsInProcess([ext("picks-a-theme.ts")], (w) => w.command("themes", "solarized missing"));
    expect(control.log).toEqual([
      "notify:themes: dark=built-in, solarized=/themes/solarized.json", 'notify:switch solarized: {"success":true}',
      'notify:switch missing: {"success":false,"error":"Theme not found: missing"}', "notify:keys: listening",
    ]);
    expect(isolated.errors).toEqual([]);
    expect(isolated.log).toEqual([...control.log.slice(0, 3), `notify:keys: ${refusedUiMessage("onTerminalInput")}`]);
  });

});

/**
 * Under the default policy (`confined`) with Node's permission model (worker and process isolation;
 * in the sandbox a file outside the binds is absent, ENOENT, not denied): what the module was
 * denied is named with the grant, at load all together, in a handler once.
 */
describe.runIf(ISOLATION !== "sandbox")(`a confined module's denied reads (${ISOLATION} isolation)`, { timeout: 60_000 }, () => {
  /** pi's loader and runner over `isolate([module])` under confined, with its log lines (onLog) kept. */
  async function confined(module: string) {
    const lines: string[] = [];
    const runtime = pi.loader.createExtensionRuntime();
    const factory = isolate([module], { isolation: ISOLATION, onLog: (_path, _level, line) => { lines.push(line); } });
    const extension = await pi.loader.loadExtensionFromFactory(factory, ROOT, createEventBus(), runtime, "<isolated>");
    const runner = new pi.Runner([extension], runtime, ROOT, pi.SessionManager.inMemory(ROOT), {});
    runners.push(runner);
    const errors: Any[] = [];
    const notified: string[] = [];
    runner.onError((e: Any) => errors.push(e));
    runner.setUIContext({ notify: (message: string) => notified.push(message) });
    await runner.emit({ type: "session_start", reason: "startup" });
    return { runner, lines, errors, notified };
  }
  const denied = (path: string) => `hookbox: FileSystemRead of ${path} was denied by the module's policy (ERR_ACCESS_DENIED). The field that grants it: policy.fsRead (policy: { fsRead: ["${path}"] })`;

  it("a module that reads several files at load and fails on one names every file it was denied, each once with its grant", async () => {
    const { errors, lines } = await confined(ext("needs-its-config-files.ts"));
    expect(errors).toHaveLength(1);
    expect(errors[0].error).toContain("load_failed");
    expect(errors[0].error).toContain("every access denied while loading: FileSystemRead of /etc/hookbox-fixture-user.json, FileSystemRead of /etc/hostname, FileSystemRead of /etc/os-release");
    expect(lines).toEqual([denied("/etc/hookbox-fixture-user.json"), denied("/etc/hostname"), denied("/etc/os-release")]);
  });

  it("a read denied inside a handler, which the module catches, is reported once with its grant however often it happens", async () => {
    const { runner, errors, lines, notified } = await confined(ext("reads-its-config-files.ts"));
    expect(errors).toEqual([]);
    const call = { type: "tool_call", toolName: "read", toolCallId: "c1", input: { path: "x" } };
    expect(await runner.emitToolCall(call)).toBeUndefined();
    expect(await runner.emitToolCall({ ...call, toolCallId: "c2" })).toBeUndefined();
    expect(notified).toEqual(["config: Access to this API has been restricted", "config: Access to this API has been restricted"]);
    expect(lines).toEqual([denied("/etc/hookbox-fixture-user.json"), denied("/etc/hostname"), denied("/etc/passwd")]);
  });
});
