/**
 * pi's members that were refused by name and now cross (issue 30), inside pi 0.73.1's own loader
 * and runner (the installed package), in every isolation mode: a tool replacing a built-in where
 * policy.effects substitutes, tools registered after load (pi's dynamic-tools.ts), the working
 * row's `ctx.ui` setters (data, gated), tool renderers and `prepareArguments` (worker isolation's
 * synchronous component path; refused by name in the others). Each substitute tried under
 * `restrict` is refused as `effect_refused`.
 */
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { pathToFileURL } from "node:url";
import { isolate } from "../src/extension/adapter.js";
import { TOOL_RENDERER_NEEDS_WORKER, refusedToolMemberMessage } from "../worker/extension-members.mjs";
import { LIMITS } from "../worker/wire.mjs";
import { BUS } from "../src/bridge/host-bridge.js";
import { ROOT, until } from "./helpers/host.js";
import { ISOLATION } from "./support/isolation.js";
import { importPi, installPiDir } from "./support/pi-agent.js";

type Any = any;
const ext = (name: string) => join(ROOT, "fixtures", "extensions", name);
const hostile = (name: string) => join(ROOT, "fixtures", "hostile", name);
/** The restrict grant: the untrusted preset where it runs (the sandbox), its effects axis alone elsewhere. */
const RESTRICTED = ISOLATION === "sandbox" ? "untrusted" : { effects: "restrict" };
const bashCall = { type: "tool_call", toolName: "bash", toolCallId: "1", input: { command: "ls" } };

let piDist: string;
let loader: Any;
let Runner: Any;
let SessionManager: Any;
let wrapRegisteredTool: Any;
let piTheme: Any;
let ToolExecutionComponent: Any;
const runners: Any[] = [];

beforeAll(async () => {
  ({ dist: piDist, loader, Runner, SessionManager, wrapRegisteredTool, theme: piTheme } = await importPi(installPiDir()));
  piTheme.initTheme("dark");
  ({ ToolExecutionComponent } = await import(pathToFileURL(join(piDist, "modes", "interactive", "components", "tool-execution.js")).href));
}, 300_000);

afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.emit({ type: "session_shutdown", reason: "quit" });
});

const example = (name: string) => join(piDist, "..", "examples", "extensions", name);

/** pi's own path: its loader awaits the factory, its runner calls the mirrored handlers; a UI that records. */
async function inPi(paths: string[], options: Record<string, unknown> = {}, ui: Record<string, unknown> = {}) {
  const runtime = loader.createExtensionRuntime();
  const extension = await loader.loadExtensionFromFactory(isolate(paths, { isolation: ISOLATION, ...options }), ROOT, undefined, runtime, "<isolated>");
  const runner = new Runner([extension], runtime, ROOT, SessionManager.inMemory(ROOT), {});
  runners.push(runner);
  const notified: string[] = [];
  const calls: unknown[][] = [];
  runner.setUIContext({ notify: (text: string) => notified.push(text), setStatus: () => {}, theme: piTheme.theme, ...ui });
  runner.bindCommandContext({ waitForIdle: async () => {}, newSession: async () => ({ cancelled: false }), fork: async () => ({ cancelled: false }), navigateTree: async () => ({ cancelled: false }), switchSession: async () => ({ cancelled: false }), reload: async () => {} });
  const errors: Array<{ extensionPath: string; event: string; error: string }> = [];
  runner.onError((e: (typeof errors)[number]) => errors.push(e));
  await runner.emit({ type: "session_start", reason: "startup" });
  return { runner, errors, notified, calls, extension };
}

/** The module in pi's own process (pi's loader and runner, no hookbox), started: the factories its session_start gave `member` (setHeader, setFooter). */
async function inPiProcess(path: string, member: string): Promise<unknown[]> {
  const own = await loader.loadExtensions([path], ROOT);
  expect(own.errors).toEqual([]);
  const ownRunner = new Runner(own.extensions, own.runtime, ROOT, SessionManager.inMemory(ROOT), {});
  const factories: unknown[] = [];
  ownRunner.setUIContext({ [member]: (factory: unknown) => factories.push(factory), notify: () => {}, theme: piTheme.theme });
  await ownRunner.emit({ type: "session_start", reason: "startup" });
  return factories;
}

function agentTool(runner: Any, name: string) {
  const registered = runner.getAllRegisteredTools().find((t: Any) => t.definition.name === name);
  expect(registered, `pi has no tool ${name}`).toBeDefined();
  return wrapRegisteredTool(registered, runner);
}
const toolNames = (runner: Any) => runner.getAllRegisteredTools().map((t: Any) => t.definition.name).sort();

describe(`members that cross (${ISOLATION} isolation)`, { timeout: 60_000 }, () => {
  it.each(["confined", "trusted"])("under %s (effects substitute) a tool named like a built-in replaces it, as in pi: the model's bash reads the module's answer", async (policy) => {
    const { runner, errors } = await inPi([hostile("registers-builtin-tool-name.ts")], { policy });
    expect(errors).toEqual([]);
    expect(toolNames(runner)).toEqual(["bash"]);
    expect(await agentTool(runner, "bash").execute("c1", { command: "ls" }, undefined, undefined)).toEqual({ content: [{ type: "text", text: "fake" }] });
    expect(await runner.emitToolCall(bashCall)).toBeUndefined();
  });

  it("pi's dynamic-tools.ts: a tool registered in session_start and one registered by a command are mirrored on pi, and run isolated", async () => {
    const { runner, errors, notified } = await inPi([example("dynamic-tools.ts")]);
    expect(errors).toEqual([]);
    expect(notified).toEqual(["Registered dynamic tool: echo_session"]);
    expect(runner.getToolDefinition("echo_session")).toMatchObject({ name: "echo_session", label: "Echo Session", promptSnippet: "Echo back user-provided text with [session] prefix" });
    expect(await agentTool(runner, "echo_session").execute("c1", { message: "hi" }, undefined, undefined))
      .toEqual({ content: [{ type: "text", text: "[session] hi" }], details: { tool: "echo_session", prefix: "[session] " } });
    await runner.getCommand("add-echo-tool").handler("shout", runner.createCommandContext());
    expect(notified.at(-1)).toBe("Registered dynamic tool: shout");
    expect(toolNames(runner)).toEqual(["echo_session", "shout"]);
    expect((await agentTool(runner, "shout").execute("c2", { message: "yo" }, undefined, undefined)).content).toEqual([{ type: "text", text: "[shout] yo" }]);
    expect(await runner.emitToolCall(bashCall)).toBeUndefined();
    expect(notified.filter((n) => n.startsWith("hookbox"))).toEqual([]);
  });

  it("under restrict a tool registered after load that replaces a built-in, or carries system prompt text, is refused as effect_refused and the module blocks", async () => {
    const late = await inPi([hostile("replaces-a-built-in-tool-after-load.ts")], { policy: RESTRICTED });
    expect(late.notified.join("\n")).toContain(`pi.registerTool("bash"), replacing the agent's built-in tool, a substitute effect`);
    expect(late.notified.join("\n")).toMatch(/effect_refused in load: .*\(registered after load\)/);
    expect(toolNames(late.runner)).toEqual([]);
    expect(await late.runner.emitToolCall(bashCall)).toMatchObject({ block: true, reason: expect.stringContaining("(effect_refused)") });
    const dynamic = await inPi([example("dynamic-tools.ts")], { policy: RESTRICTED });
    expect(dynamic.notified.join("\n")).toContain(`pi.registerTool("echo_session") with a promptSnippet (text the agent adds to its system prompt), a substitute effect`);
    expect(toolNames(dynamic.runner)).toEqual([]);
    expect(await dynamic.runner.emitToolCall(bashCall)).toMatchObject({ block: true });
  });

  it("under substitute the same late built-in replaces pi's bash", async () => {
    const { runner, errors, notified } = await inPi([hostile("replaces-a-built-in-tool-after-load.ts")]);
    expect(errors).toEqual([]);
    expect(notified).toEqual([]);
    expect((await agentTool(runner, "bash").execute("c1", { command: "ls" }, undefined, undefined)).content).toEqual([{ type: "text", text: "fake" }]);
  });
});

describe(`the working row's ctx.ui setters (${ISOLATION} isolation)`, { timeout: 60_000 }, () => {
  it("setWorkingMessage, setWorkingIndicator, setWorkingVisible and setHiddenThinkingLabel reach pi's UI as data, each text through the terminal-text gate (frames keep SGR colours)", async () => {
    const calls: unknown[][] = [];
    const record = (member: string) => (...args: unknown[]) => { calls.push([member, ...args]); };
    const ui = Object.fromEntries(["setWorkingMessage", "setWorkingIndicator", "setWorkingVisible", "setHiddenThinkingLabel"].map((m) => [m, record(m)]));
    // the untrusted preset where it runs: these only draw (observe), as setStatus
    const { runner, errors, notified } = await inPi([ext("sets-the-working-row.ts")], ISOLATION === "sandbox" ? { policy: "untrusted" } : {}, ui);
    await runner.emit({ type: "agent_start" });
    expect(errors).toEqual([]);
    expect(notified).toEqual([]);
    expect(calls).toEqual([
      ["setWorkingMessage", "Thinking hard"],
      ["setWorkingIndicator", { frames: ["\u001b[31m●\u001b[0m", "○"], intervalMs: 120 }],
      ["setWorkingVisible", false],
      ["setHiddenThinkingLabel", "hidden thoughts"],
      ["setWorkingMessage"], ["setWorkingIndicator"], ["setHiddenThinkingLabel"],
    ]);
  });
});

/** A tool's row as pi's interactive mode draws it: pi's own ToolExecutionComponent over the registered definition, through a call, a partial and a final result. */
function toolRow(definition: Any, args: Record<string, unknown>, result: Any, width = 60): string[][] {
  const row = new ToolExecutionComponent(definition.name, "call-1", args, {}, definition, { requestRender() {} }, ROOT);
  const frames = [row.render(width)];
  row.markExecutionStarted();
  row.setArgsComplete();
  frames.push(row.render(width));
  row.updateResult({ ...result, isError: false }, true);
  frames.push(row.render(width));
  row.updateResult({ ...result, isError: false }, false);
  row.setExpanded(true);
  frames.push(row.render(width));
  return frames;
}

describe(`a tool's renderers and prepareArguments (${ISOLATION} isolation)`, { timeout: 60_000 }, () => {
  it.runIf(ISOLATION === "worker")("pi's truncated-tool.ts: its renderCall and renderResult draw pi's own tool row exactly as in pi's process", async () => {
    const rg = example("truncated-tool.ts");
    const own = await loader.loadExtensions([rg], ROOT);
    expect(own.errors).toEqual([]);
    const inProcess = own.extensions[0].tools.get("rg").definition;
    const { runner, errors } = await inPi([rg]);
    expect(errors).toEqual([]);
    const isolated = runner.getToolDefinition("rg");
    const result = { content: [{ type: "text", text: "src/a.ts:1:foo\nsrc/b.ts:2:foo" }], details: { matchCount: 2 } };
    const expected = toolRow(inProcess, { pattern: "foo", path: "src" }, result);
    expect(expected.flat().join("\n")).toContain("2 matches");
    expect(toolRow(isolated, { pattern: "foo", path: "src" }, result)).toEqual(expected);
  });

  it.runIf(ISOLATION === "worker")("the render context crosses as data (its state shared by the call's renders, its last component given back), prepareArguments prepares the model's arguments, and terminal controls are removed", async () => {
    const { runner, errors, notified } = await inPi([ext("renders-its-tool.ts")]);
    expect(notified).toEqual([]);
    expect(errors).toEqual([]);
    const definition = runner.getToolDefinition("weather");
    expect(definition.renderShell).toBe("self");
    const frames = toolRow(definition, { city: "Oslo" }, { content: [{ type: "text", text: "sunny in Oslo" }], details: { temp: 21 } });
    const text = frames.map((f) => f.join("|"));
    expect(text[0]).toContain("weather Oslo");
    expect(text[0]).toContain("call 1 last none id call-1 at 60");
    expect(text[1]).toContain("call 3 last kept");
    expect(text[2]).toContain("sunny in Oslo 21° expanded=false partial=true error=false state=4");
    expect(text[3]).toContain("expanded=true partial=false error=false state=6");
    expect(frames.flat().join("")).not.toMatch(/\u001b\]/);
    const tool = agentTool(runner, "weather");
    expect(tool.prepareArguments({ town: "Bergen" })).toEqual({ city: "Bergen" });
    expect(tool.prepareArguments({ city: "Oslo" })).toEqual({ city: "Oslo" });
    expect(errors).toEqual([]);
  });

  it.runIf(ISOLATION === "worker")("a renderer or prepareArguments that never returns is bounded by renderTimeoutMs: pi draws its default row, the model reads an error, each reported as timeout", async () => {
    const { runner, notified } = await inPi([hostile("renders-its-tool-forever.ts")], { renderTimeoutMs: 300 });
    const definition = runner.getToolDefinition("stuck");
    const row = new ToolExecutionComponent("stuck", "call-1", {}, {}, definition, { requestRender() {} }, ROOT);
    // pi's fallback for a call renderer that threw: the tool's name
    expect(row.render(60).join("\n")).toContain("stuck");
    expect(notified.some((n) => n.includes("timeout in render"))).toBe(true);
    // the worker that hung is replaced (a timeout ends it); prepareArguments then hangs the new one
    await new Promise((r) => setTimeout(r, 1_000));
    expect(() => agentTool(runner, "stuck").prepareArguments({})).toThrow(/^hookbox: .*renders-its-tool-forever\.ts failed in prepareArguments of tool stuck \(timeout\)/);
  });

  it.runIf(ISOLATION === "worker")("a result renderer drawing 10^6 long lines reaches pi's row cut to the render bounds with a marker, reported once as result_too_large", async () => {
    const { runner, notified } = await inPi([hostile("renders-huge-tool-result.ts")], { renderTimeoutMs: 10_000 });
    const frames = toolRow(runner.getToolDefinition("huge"), {}, { content: [{ type: "text", text: "done" }] }, 80);
    const last = frames.at(-1)!;
    expect(last.length).toBeLessThanOrEqual(LIMITS.renderLines + 4);
    expect(last.join("\n")).toContain(`hookbox cut this render: more than ${LIMITS.renderLines} lines`);
    expect(notified.filter((n) => n.includes("result_too_large in render"))).toHaveLength(1);
  });

  it.runIf(ISOLATION !== "worker")(`a tool with renderCall, renderResult or prepareArguments is refused at load in ${ISOLATION} isolation, naming the member and why (pi calls them synchronously)`, async () => {
    for (const [module, member] of [["renders-its-tool.ts", "renderCall"], ["renders-huge-tool-result.ts", "renderResult"]] as const) {
      const path = module === "renders-its-tool.ts" ? ext(module) : hostile(module);
      const { runner, errors } = await inPi([path]);
      expect(errors).toHaveLength(1);
      expect(errors[0]!.error).toContain(`${path} did not load (load_failed): Failed to load hook: ${refusedToolMemberMessage(member)}`);
      expect(errors[0]!.error).toContain(TOOL_RENDERER_NEEDS_WORKER);
      expect(runner.getAllRegisteredTools()).toEqual([]);
      expect(await runner.emitToolCall(bashCall)).toMatchObject({ block: true });
    }
  });
});

/** Polls `check` until it is true (events cross asynchronously), at most 5 s. */
async function eventually(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
}

describe(`pi.events between the modules of one isolate() (${ISOLATION} isolation)`, { timeout: 60_000 }, () => {
  it("what one module emits reaches another module's listener as data; an unsubscribed listener and another isolate() hear nothing; pi's event-bus.ts hears its own emit", async () => {
    const { runner, errors, notified } = await inPi([ext("emits-on-the-bus.ts"), ext("listens-on-the-bus.ts")]);
    const other = await inPi([ext("listens-on-the-bus.ts")]);
    expect(errors).toEqual([]);
    await runner.getCommand("announce").handler("hello", runner.createCommandContext());
    await eventually(() => notified.length > 0);
    await new Promise((r) => setTimeout(r, 200));
    expect(notified).toEqual(["news: hello [a,b]"]);
    expect(other.notified).toEqual([]);
    const own = await inPi([example("event-bus.ts")]);
    await eventually(() => own.notified.length > 0);
    expect(own.notified).toEqual(["Event from event-bus-example: Session started"]);
    expect(own.errors).toEqual([]);
  });

  it(`a module flooding the bus: the other modules hear at most ${BUS.max} events per ${BUS.windowMs} ms, the rest dropped and said once per window`, async () => {
    const logs: string[] = [];
    const { runner, notified } = await inPi([hostile("floods-the-event-bus.ts"), ext("listens-on-the-bus.ts")], { onLog: (_path: string, level: string, line: string) => logs.push(`${level} ${line}`) });
    const started = performance.now();
    await runner.getCommand("flood").handler("", runner.createCommandContext());
    await eventually(() => logs.some((l) => l.includes("pi.events.emit dropped")));
    await new Promise((r) => setTimeout(r, 500));
    await runner.getCommand("floods").handler("", runner.createCommandContext());
    await eventually(() => notified.some((n) => n.startsWith("floods: ")));
    const windows = Math.ceil((performance.now() - started) / BUS.windowMs) + 1;
    const heard = Number(/floods: (\d+)/.exec(notified.find((n) => n.startsWith("floods: "))!)![1]);
    expect(heard).toBeGreaterThanOrEqual(BUS.max);
    expect(heard).toBeLessThanOrEqual(BUS.max * windows);
    const dropped = logs.filter((l) => l === `warn [hookbox: pi.events.emit dropped: more than ${BUS.max} events in ${BUS.windowMs} ms]`);
    expect(dropped.length).toBeGreaterThanOrEqual(1);
    expect(dropped.length).toBeLessThanOrEqual(windows);
  });
});

describe(`ctx.ui.setHeader (${ISOLATION} isolation)`, { timeout: 60_000 }, () => {
  it(ISOLATION === "worker"
    ? "pi's custom-header.ts: its header draws in pi's UI exactly as in pi's process, through the component path; setHeader(undefined) restores pi's"
    : `ctx.ui.setHeader is refused by name in the module in ${ISOLATION} isolation, saying why (pi renders synchronously)`, async () => {
    const headers: unknown[] = [];
    const { runner, errors, notified } = await inPi([example("custom-header.ts")], {}, { setHeader: (factory: unknown) => headers.push(factory) });
    if (ISOLATION !== "worker") {
      // The module's own throw reaches pi's error path, as in-process.
      expect(errors.map((e: { error: string }) => e.error).join("\n")).toContain(`ctx.ui.setHeader is refused by hookbox/extension: it needs synchronous rendering, which ${ISOLATION} mode does not have`);
      expect(notified).toEqual([]);
      expect(headers).toEqual([]);
      return;
    }
    expect(errors).toEqual([]);
    expect(notified).toEqual([]);
    const ownHeaders = await inPiProcess(example("custom-header.ts"), "setHeader");
    const draw = (factory: Any) => factory({ requestRender() {} }, piTheme.theme).render(80);
    expect(draw(ownHeaders[0]).join("\n")).toContain("shitty coding agent");
    expect(draw(headers[0])).toEqual(draw(ownHeaders[0]));
    await runner.getCommand("builtin-header").handler("", runner.createCommandContext());
    expect(headers).toHaveLength(2);
    expect(headers[1]).toBeUndefined();
  });
});

describe(`ctx.ui.setFooter (${ISOLATION} isolation)`, { timeout: 60_000 }, () => {
  /** pi's footer data as its interactive mode gives a footer factory (branch, statuses, provider count, branch listeners). */
  function footerData() {
    const listeners: Array<() => void> = [];
    const data = {
      getGitBranch: () => "feature/x", getExtensionStatuses: () => new Map([["a", "busy"]]), getAvailableProviderCount: () => 2,
      onBranchChange: (listener: () => void) => { listeners.push(listener); return () => listeners.splice(listeners.indexOf(listener), 1); },
    };
    return { data, listeners };
  }

  it(ISOLATION === "worker"
    ? "a footer draws in pi's UI exactly as in pi's process, reading pi's footer data (branch, statuses, providers) through the component path; a branch change reaches its listener (a render request); setFooter(undefined) restores pi's"
    : `ctx.ui.setFooter is refused by name in the module in ${ISOLATION} isolation, saying why (pi renders synchronously)`, async () => {
    const footers: unknown[] = [];
    // A loaded machine's first render (four host reads) can pass the 100 ms default: what is checked here is what it draws.
    const { runner, errors, notified } = await inPi([ext("sets-a-footer.ts")], { renderTimeoutMs: 10_000 }, { setFooter: (factory: unknown) => footers.push(factory) });
    if (ISOLATION !== "worker") {
      // The module's own throw reaches pi's error path, as in-process.
      expect(errors.map((e: { error: string }) => e.error).join("\n")).toContain(`ctx.ui.setFooter is refused by hookbox/extension: it needs synchronous rendering, which ${ISOLATION} mode does not have`);
      expect(footers).toEqual([]);
      return;
    }
    expect(errors).toEqual([]);
    const ownFooters = await inPiProcess(ext("sets-a-footer.ts"), "setFooter");
    let renders = 0;
    const draw = (factory: Any) => {
      const { data, listeners } = footerData();
      const component = factory({ requestRender: () => { renders++; } }, piTheme.theme, data);
      return { lines: component.render(80), listeners };
    };
    const theirs = draw(ownFooters[0]);
    const mine = draw(footers[0]);
    expect(theirs.lines.join("\n")).toContain("feature/x a=busy 2 providers");
    expect(mine.lines, notified.join("\n")).toEqual(theirs.lines);
    expect(notified).toEqual([]);
    renders = 0;
    for (const listener of theirs.listeners) listener();
    expect(renders).toBe(1);
    for (const listener of mine.listeners) listener();
    await until(() => renders === 2, 5_000, "the module's requestRender"); // the worker's requestRender is a post
    await runner.getCommand("plain-footer").handler("", runner.createCommandContext());
    expect(footers).toHaveLength(2);
    expect(footers[1]).toBeUndefined();
  });
});
