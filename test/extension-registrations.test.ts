/**
 * What an isolated pi extension registers besides handlers, inside pi 0.73.1's own loader, runner
 * and tool wrapper (the installed package): tools (execute isolated: parameters, streamed
 * updates, the AbortSignal, the context, a validated result), commands (handler and completions
 * isolated), flags (data; getFlag answered from the agent's value) and shortcuts (handler
 * isolated); faults become errors with hookbox's code; hostile registrations are refused at load.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { isolate } from "../src/extension/adapter.js";
import { loadHooks } from "../src/runner/loader.js";
import { manifestSchema } from "../src/contract/protocol.js";
import { TOOL_MEMBERS, refusedCommandContextMessage, refusedToolMemberMessage } from "../worker/extension-members.mjs";
import { NAME_PATTERNS } from "../worker/wire.mjs";
import { ROOT } from "./helpers/host.js";
import { ISOLATION } from "./support/isolation.js";
import { importPi, installPiDir } from "./support/pi-agent.js";

const ext = (name: string) => join(ROOT, "fixtures", "extensions", name);
const hostile = (name: string) => join(ROOT, "fixtures", "hostile", name);

type Any = any;
let piDist: string;
let loader: Any;
let Runner: Any;
let SessionManager: Any;
let wrapRegisteredTool: Any;
const runners: Any[] = [];

beforeAll(async () => {
  ({ dist: piDist, loader, Runner, SessionManager, wrapRegisteredTool } = await importPi(installPiDir()));
}, 300_000);

afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.emit({ type: "session_shutdown", reason: "quit" });
});

/** pi's own path (as test/extension.test.ts), with a UI that records notifications and pi's command actions. */
async function inPi(paths: string[], options: Record<string, unknown> = {}) {
  const runtime = loader.createExtensionRuntime();
  const extension = await loader.loadExtensionFromFactory(isolate(paths, { isolation: ISOLATION, ...options }), ROOT, undefined, runtime, "<isolated>");
  const runner = new Runner([extension], runtime, ROOT, SessionManager.inMemory(ROOT), {});
  runners.push(runner);
  const notified: string[] = [];
  let idleWaits = 0;
  runner.setUIContext({ notify: (text: string) => notified.push(text), setStatus: () => {}, theme: {} });
  runner.bindCommandContext({ waitForIdle: async () => { idleWaits++; }, newSession: async () => ({ cancelled: false }), fork: async () => ({ cancelled: false }), navigateTree: async () => ({ cancelled: false }), switchSession: async () => ({ cancelled: false }), reload: async () => {} });
  const errors: Array<{ extensionPath: string; event: string; error: string }> = [];
  runner.onError((e: (typeof errors)[number]) => errors.push(e));
  await runner.emit({ type: "session_start", reason: "startup" });
  return { runner, errors, extension, notified, idleWaits: () => idleWaits };
}

/** The tool as pi's agent runs it: pi's own wrapper over the registered definition, with pi's context. */
function agentTool(runner: Any, name: string) {
  const registered = runner.getAllRegisteredTools().find((t: Any) => t.definition.name === name);
  expect(registered, `pi has no tool ${name}`).toBeDefined();
  return wrapRegisteredTool(registered, runner);
}

/** `main=<isMainThread> pid=<pid>` in a report: true when it was not the agent's main thread and process. */
function ranIsolated(text: string): boolean {
  const m = /main=(true|false) pid=(\d+)/.exec(text);
  if (!m) throw new Error(`no place in ${text}`);
  return m[1] === "false" || Number(m[2]) !== process.pid;
}

describe(`isolated tools, commands, flags and shortcuts in pi 0.73.1 (${ISOLATION} isolation)`, { timeout: 60_000 }, () => {
  it("a tool crosses as data and its execute runs isolated: parameters in, an update streamed, the agent's context and flag value, a validated result", async () => {
    const { runner, errors } = await inPi([ext("registers-tools-and-commands.ts")]);
    expect(errors).toEqual([]);
    const definition = runner.getToolDefinition("where_am_i");
    expect(definition).toMatchObject({
      name: "where_am_i", label: "Where am I", description: "Says where the isolated tool runs", promptSnippet: "where_am_i: where the tool runs",
      parameters: { type: "object", properties: { marker: { type: "string" }, wait: { type: "boolean" } }, required: ["marker"] },
    });
    expect(runner.getFlags().get("where-flag")).toMatchObject({ name: "where-flag", type: "string", default: "unset", description: "a flag of the isolated module" });
    runner.setFlagValue("where-flag", "from-the-command-line");
    const updates: unknown[] = [];
    const result = await agentTool(runner, "where_am_i").execute("call-7", { marker: "m1" }, undefined, (u: unknown) => updates.push(u));
    expect(updates).toEqual([{ content: [{ type: "text", text: "working on m1" }], details: { step: 1 } }]);
    const text = result.content[0].text as string;
    expect(text).toMatch(new RegExp(`^isolated tool call-7: marker=m1 main=(true|false) pid=\\d+ cwd=${ROOT} flag=from-the-command-line$`));
    expect(ranIsolated(text)).toBe(true);
    expect(result.details).toMatchObject({ main: expect.any(Boolean), pid: expect.any(Number) });
    expect(errors).toEqual([]);
  });

  it("pi's own example tool (examples/extensions/hello.ts: a TypeBox schema, defineTool) runs isolated and answers", async () => {
    const hello = join(piDist, "..", "examples", "extensions", "hello.ts");
    const { runner, errors } = await inPi([hello]);
    expect(errors).toEqual([]);
    expect(runner.getToolDefinition("hello").parameters).toEqual({ type: "object", properties: { name: { type: "string", description: "Name to greet" } }, required: ["name"] });
    expect(await agentTool(runner, "hello").execute("c1", { name: "isolated" }, undefined, undefined))
      .toEqual({ content: [{ type: "text", text: "Hello, isolated!" }], details: { greeted: "isolated" } });
  });

  it("the agent's AbortSignal crosses: aborting it aborts the isolated execute's signal", async () => {
    const { runner } = await inPi([ext("registers-tools-and-commands.ts")]);
    // As pi does before a tool runs: its tool_call, which waits for every module (a start that mirrored a previous one may still be loading them).
    expect(await runner.emitToolCall({ type: "tool_call", toolName: "where_am_i", toolCallId: "call-8", input: { marker: "w", wait: true } })).toBeUndefined();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const result = await agentTool(runner, "where_am_i").execute("call-8", { marker: "w", wait: true }, controller.signal, undefined);
    expect(result).toEqual({ content: [{ type: "text", text: "aborted w" }], details: { aborted: true } });
  });

  it("a command is on pi's runner with its description; its handler runs isolated with the command context, and its completions cross checked", async () => {
    const { runner, notified, idleWaits, errors } = await inPi([ext("registers-tools-and-commands.ts")]);
    const command = runner.getCommand("where");
    expect(command).toMatchObject({ name: "where", description: "Says where the command runs" });
    expect(await command.getArgumentCompletions("th")).toEqual([{ value: "there", label: "there" }]);
    await command.handler("now", runner.createCommandContext());
    expect(notified.filter((n) => n.startsWith("hookbox"))).toEqual([]);
    expect(notified[0]).toMatch(/^command now: main=(true|false) pid=\d+$/);
    expect(ranIsolated(notified[0]!)).toBe(true);
    expect(idleWaits()).toBe(1);
    expect(errors).toEqual([]);
  });

  it("a command's context controls reach pi: dialog options (timeout, signal), compact's onComplete and onError called back, and shutdown; reload and newSession's withSession are refused by name", async () => {
    const { runner, notified, errors } = await inPi([ext("uses-command-controls.ts")]);
    const calls: unknown[][] = [];
    // pi's own UI dismisses a timed dialog (false) and an aborted one (undefined); this one does as pi's does.
    let editorText = "";
    const dismissed = (answer: unknown) => (_title: string, _x: unknown, options?: { timeout?: number; signal?: AbortSignal }) => {
      calls.push(["dialog", options?.timeout ?? null, options?.signal === undefined ? null : "signal"]);
      if (options?.signal) editorText = "dialog shown";
      if (options?.timeout) return Promise.resolve(answer);
      return new Promise((resolve) => options?.signal?.addEventListener("abort", () => resolve(undefined), { once: true }));
    };
    Object.assign(runner.uiContext, { confirm: dismissed(false), select: dismissed(undefined), getEditorText: () => editorText });
    let compactions = 0;
    runner.compactFn = (options: { customInstructions?: string; onComplete?: (r: unknown) => void; onError?: (e: Error) => void }) => {
      calls.push(["compact", options.customInstructions ?? null]);
      if (compactions++ === 0) options.onComplete?.({ summary: "the summary", firstKeptEntryId: "e1", tokensBefore: 10 });
      else options.onError?.(new Error("Nothing to compact"));
    };
    runner.shutdownHandler = () => { calls.push(["shutdown"]); };
    runner.reloadHandler = async () => { calls.push(["reload"]); };
    await runner.getCommand("controls").handler("", runner.createCommandContext());
    expect(errors).toEqual([]);
    expect(notified.filter((n) => n.startsWith("hookbox"))).toEqual([]);
    expect(notified.map((n) => JSON.parse(n))).toEqual([
      {
        timed: false, aborted: null, compacted: "complete: the summary", failed: "error: Nothing to compact", reload: refusedCommandContextMessage("reload"),
        withSession: "ctx.newSession({ withSession }) is refused by hookbox/extension: a callback given the replacement session's context does not cross the isolation boundary yet",
      },
    ]);
    expect(calls).toEqual([["dialog", 5000, null], ["dialog", null, "signal"], ["compact", "keep it short"], ["compact", null], ["shutdown"]]);
  });

  it("a tool's own throw: the agent gets the tool's message and nothing else, as in-process (pi shows it in the tool's result)", async () => {
    const { runner, notified } = await inPi([ext("registers-throwing-tool.ts")]);
    await expect(agentTool(runner, "parse_duration").execute("call-t", { text: "5x" }, undefined, undefined)).rejects.toThrow(/^Invalid duration: 5x$/);
    expect(notified).toEqual([]);
  });

  it("a shortcut is registered on pi with its key; its handler runs isolated with the agent's context", async () => {
    const { runner, extension, notified } = await inPi([ext("registers-tools-and-commands.ts")]);
    const shortcut = extension.shortcuts.get("ctrl+shift+w");
    expect(shortcut).toMatchObject({ shortcut: "ctrl+shift+w", description: "Says where the shortcut runs" });
    await shortcut.handler(runner.createContext());
    expect(notified.filter((n) => n.startsWith("hookbox"))).toEqual([]);
    expect(notified[0]).toMatch(/^shortcut: main=(true|false) pid=\d+ flag=unset$/);
    expect(ranIsolated(notified[0]!)).toBe(true);
  });

  it.each([
    ["hangs-in-tool-execute.ts", "hangs", "timeout"],
    ["exits-in-tool-execute.ts", "exits", "crashed"],
    ["returns-huge-tool-result.ts", "huge", "result_too_large"],
    ["returns-proto-keys-from-tool.ts", "pollutes", "invalid_result"],
  ])("a faulty isolated tool (%s) becomes an error the agent reports to the model, with the code, and is reported", async (module, tool, code) => {
    const updates: unknown[] = [];
    const { runner, notified } = await inPi([hostile(module)], { deadlines: { tool: 500 }, maxMessageBytes: 1_000_000 });
    await expect(agentTool(runner, tool).execute("c1", {}, undefined, (u: unknown) => updates.push(u)))
      .rejects.toThrow(`hookbox: ${hostile(module)} failed (${code}) in tool ${tool}`);
    expect(notified.some((line) => line.includes(`${code} in tool ${tool}`))).toBe(true);
    // an update with a __proto__ key never reaches the agent (the bridge's table refuses it)
    expect(updates).toEqual([]);
    expect(Object.prototype).not.toHaveProperty("polluted");
  });

  it("completions with a __proto__ key are refused as invalid_result: the agent gets none", async () => {
    const { runner, notified } = await inPi([hostile("returns-proto-keys-from-tool.ts")]);
    expect(await runner.getCommand("pollutes").getArgumentCompletions("")).toBeNull();
    expect(notified.some((line) => line.includes("invalid_result in completions of /pollutes"))).toBe(true);
  });

  it.each([
    ["registers-tool-name-with-controls.ts", "pi.registerTool: the tool name"],
    ["registers-tool-schema-with-function.ts", `pi.registerTool("sneaky") parameters.properties.x.default is a function: a schema must be plain data`],
  ])("a hostile registration (%s) is refused at load: the module does not load, pi's error path names why, tool calls are blocked", async (module, why) => {
    const { runner, errors } = await inPi([hostile(module)]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.error).toContain(`hookbox: ${hostile(module)} did not load (load_failed): Failed to load hook: ${why}`);
    expect(errors[0]!.error).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(runner.getAllRegisteredTools()).toEqual([]);
    expect(await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "1", input: { command: "ls" } })).toMatchObject({ block: true });
  });

  it("a tool named as another isolated module's is refused at load; the first module's tool answers", async () => {
    const { runner, errors } = await inPi([ext("registers-tools-and-commands.ts"), ext("registers-taken-tool-name.ts")]);
    expect(errors[0]!.error).toContain(`${ext("registers-taken-tool-name.ts")} did not load (load_failed): Failed to load hook: pi.registerTool("where_am_i") is refused by hookbox/extension: another isolated module registered it first`);
    const result = await agentTool(runner, "where_am_i").execute("c2", { marker: "first" }, undefined, undefined);
    expect(result.content[0].text).toContain("marker=first");
  });

  it("a tool with its own renderer crosses in worker isolation and is refused at load naming renderCall and why in the others; a tool registered after load is mirrored on pi", async () => {
    const { errors } = await inPi([ext("registers-tool-renderer.ts")]);
    if (ISOLATION === "worker") expect(errors).toEqual([]);
    else expect(errors[0]!.error).toContain(refusedToolMemberMessage("renderCall"));
    const { runner, notified } = await inPi([ext("registers-tool-late.ts")]);
    expect(notified).toEqual([]);
    expect(runner.getAllRegisteredTools().map((t: Any) => t.definition.name)).toEqual(["late_tool"]);
    expect(await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "1", input: { command: "ls" } })).toBeUndefined();
  });

  it("the name gates let no control or space through (nor a quote, but in a key id), on the wire as in the worker: a forged manifest with one fails its schema", () => {
    for (const [kind, pattern] of Object.entries(NAME_PATTERNS)) {
      // a key id may name a punctuation key (ctrl+'), so only names refuse quotes
      const quotes = kind === "key" ? [] : ["a\"b", "a'b"];
      for (const bad of ["a\u001b[2J", "a b", "a\nb", "a\u009bb", "a\u007fb", "", "x".repeat(65), ...quotes]) expect(pattern.test(bad), `${kind} ${JSON.stringify(bad)}`).toBe(false);
    }
    expect(NAME_PATTERNS.tool.test("where_am_i") && NAME_PATTERNS.flag.test("where-flag") && NAME_PATTERNS.command.test("git:status") && NAME_PATTERNS.key.test("ctrl+shift+w")).toBe(true);
    const tool = { name: "t", label: "T", description: "d", parameters: { type: "object" } };
    const manifest = (extra: Record<string, unknown>) => manifestSchema.safeParse({ events: {}, commands: [], renderers: [], ...extra }).success;
    expect(manifest({ tools: [tool], flags: [{ name: "f", type: "string" }], shortcuts: [{ key: "ctrl+k" }] })).toBe(true);
    expect(manifest({ tools: [{ ...tool, name: "t\u001b]0;x\u0007" }] })).toBe(false);
    expect(manifest({ tools: [{ ...tool, parameters: { type: "object", default: new Date(0) } }] })).toBe(false);
    expect(manifest({ tools: [{ ...tool, parameters: JSON.parse('{"type":"object","__proto__":{"polluted":1}}') }] })).toBe(false);
    expect(manifest({ tools: [{ ...tool, execute: "x" }] })).toBe(false);
    expect(manifest({ flags: [{ name: "--f x", type: "string" }] })).toBe(false);
    expect(manifest({ shortcuts: [{ key: "ctrl+\u001bk" }] })).toBe(false);
  });

  it("every member of pi's ToolDefinition type is classified (carried, synchronous or refused), and the table names nothing pi does not have", () => {
    const types = readFileSync(join(piDist, "core", "extensions", "types.d.ts"), "utf8");
    const body = types.slice(types.indexOf("export interface ToolDefinition<"));
    const members = new Set([...body.slice(0, body.indexOf("\n}\n")).matchAll(/^ {4}(\w+)[?(:<]/gm)].map((m) => m[1]));
    const classified = [...TOOL_MEMBERS.carried, ...TOOL_MEMBERS.synchronous, ...Object.keys(TOOL_MEMBERS.refused)];
    expect([...members].filter((m) => !classified.includes(m!))).toEqual([]);
    expect(classified.filter((m) => !members.has(m))).toEqual([]);
  });
});

describe("outside an agent", () => {
  it("a plain loadHooks module that calls registerTool, registerFlag, getFlag or registerShortcut fails its load naming the member (never a silent no-op)", async () => {
    const { hooks, errors } = await loadHooks([ext("registers-tools-and-commands.ts")], ROOT, { isolation: ISOLATION });
    expect(hooks).toHaveLength(0);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.code).toBe("load_failed");
    // The fixture's first call is registerFlag.
    expect(errors[0]!.error).toContain("pi.registerFlag is a member of the agent's extension API: hookbox runs it only inside an agent, through hookbox/extension's isolate()");
  });
});
