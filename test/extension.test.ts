/**
 * hookbox/extension inside pi's own extension loader and runner (pi 0.73.1, the installed package):
 * what crosses returns to pi's runner, what cannot is refused at load naming the member, the module
 * and why, and the table of members is checked against pi's own ExtensionAPI type.
 */
import { copyFileSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AGENT_DEADLINES, RENDERER_NEEDS_WORKER, agentLine, isolate, isolateConfig } from "../src/extension/adapter.js";
import { MAX_NOTICES_PER_MODULE } from "../src/extension/notices.js";
import {
  CARRIED_CONTEXT, CARRIED_MEMBERS, CARRIED_UI, NOTIFY_EVENTS, OMP_LABEL_REFUSAL, OMP_REFUSED_MEMBERS, REFUSED_EVENTS, REFUSED_MEMBERS, REFUSED_UI, RESULT_EVENTS,
} from "../worker/extension-members.mjs";
import { USER_MESSAGES } from "../src/bridge/agent-gate.js";
import { LIMITS } from "../worker/wire.mjs";
import { ROOT } from "./helpers/host.js";
import { ISOLATION } from "./support/isolation.js";
import { importPi, installPiDir } from "./support/pi-agent.js";

const EXTENSIONS = join(ROOT, "fixtures", "extensions");
const ext = (name: string) => join(EXTENSIONS, name);

// pi's modules are imported by path from the cache, untyped.
type Any = any;
let piDist: string;
let loader: Any;
let Runner: Any;
let SessionManager: Any;
let piTheme: Any;
const runners: Any[] = [];

beforeAll(async () => {
  ({ dist: piDist, loader, Runner, SessionManager, theme: piTheme } = await importPi(installPiDir()));
  piTheme.initTheme("dark"); // as pi's main does before any extension runs
}, 300_000);

afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.emit({ type: "session_shutdown", reason: "quit" });
});

/** pi's own path: its loader awaits the factory, its runner calls the mirrored handlers. */
async function inPi(paths: string[], options: Record<string, unknown> = {}) {
  return inPiFactory(isolate(paths, { isolation: ISOLATION, ...options }));
}

async function inPiFactory(factory: unknown) {
  const runtime = loader.createExtensionRuntime();
  const entries: Array<[string, unknown]> = [];
  runtime.appendEntry = (type: string, data: unknown) => entries.push([type, data]);
  const extension = await loader.loadExtensionFromFactory(factory, ROOT, undefined, runtime, "<isolated>");
  const runner = new Runner([extension], runtime, ROOT, SessionManager.inMemory(ROOT), {});
  runners.push(runner);
  const errors: Array<{ extensionPath: string; event: string; error: string }> = [];
  runner.onError((e: (typeof errors)[number]) => errors.push(e));
  await runner.emit({ type: "session_start", reason: "startup" });
  return { runner, errors, entries, extension, runtime };
}

/**
 * The agent's side of pi's members, recorded: the runtime's actions (pi binds them in a session),
 * the runner's context actions and a UI (pi's modes bind these). Each call is kept as [member, ...args].
 */
function bindAgent(runner: Any, runtime: Any, entries: Array<[string, unknown]>) {
  const calls: unknown[][] = [];
  const record = (member: string, answer?: unknown) => (...args: unknown[]) => { calls.push([member, ...args]); return answer; };
  Object.assign(runtime, {
    getSessionName: record("getSessionName", "the session"), getActiveTools: record("getActiveTools", ["read"]),
    getAllTools: record("getAllTools", [{ name: "read", description: "Read a file", parameters: { type: "object" }, run: () => 1 }]),
    getCommands: record("getCommands", [{ name: "review", source: "extension" }]), getThinkingLevel: record("getThinkingLevel", "low"),
    setSessionName: record("setSessionName"), setLabel: record("setLabel"), setActiveTools: record("setActiveTools"),
    setThinkingLevel: record("setThinkingLevel"), sendUserMessage: record("sendUserMessage"),
    setModel: async (model: unknown) => { calls.push(["setModel", model]); return true; },
  });
  const models = [{ provider: "fake", id: "m2", name: "Model 2", baseUrl: "http://127.0.0.1:1/v1" }];
  runner.modelRegistry = { find: (provider: string, id: string) => models.find((m) => m.provider === provider && m.id === id) };
  Object.assign(runner, {
    getContextUsageFn: record("getContextUsage", { tokens: 10, contextWindow: 100, percent: 10 }), getSystemPromptFn: record("getSystemPrompt", "be brief"),
    hasPendingMessagesFn: record("hasPendingMessages", false), compactFn: record("compact"), shutdownHandler: record("shutdown"),
  });
  const notified: string[] = [];
  runner.setUIContext({
    ...Object.fromEntries(["select", "confirm", "input", "editor", "setStatus", "setEditorText", "getEditorText", "custom"].map((m) => [m, record(`ui.${m}`)])),
    notify: (message: string) => { notified.push(message); },
    setWidget: record("ui.setWidget"), setTitle: record("ui.setTitle"), theme: {},
  });
  return { calls, notified, entry: (type: string) => entries.find(([t]) => t === type)?.[1] as Any };
}

const rmRf = { type: "tool_call", toolName: "bash", toolCallId: "1", input: { command: "rm -rf /tmp/x" } };

describe(`hookbox/extension in pi 0.73.1's loader and runner (${ISOLATION} isolation)`, { timeout: 60_000 }, () => {
  it("every result of an isolated module reaches pi's runner: tool_result, context, before_agent_start (given pi's systemPromptOptions), session_before_compact, tool_call with ctx, and appendEntry", async () => {
    const { runner, errors, entries } = await inPi([ext("edits-events.ts")]);
    expect(errors).toEqual([]);
    expect(entries).toEqual([["isolated-start", { reason: "startup" }]]);
    const toolResult = await runner.emitToolResult({ type: "tool_result", toolName: "bash", toolCallId: "1", input: {}, content: [{ type: "text", text: "secret output" }], isError: false });
    expect(toolResult.content).toEqual([{ type: "text", text: "redacted by the isolated module" }]);
    const messages = [{ role: "user", content: "a", timestamp: 1 }, { role: "user", content: "b", timestamp: 2 }];
    expect(await runner.emitContext(messages)).toEqual([messages[1]]);
    const start = await runner.emitBeforeAgentStart("hello", undefined, "the system prompt", { cwd: ROOT, selectedTools: ["read", "bash"] });
    expect(start.messages).toEqual([{ customType: "note", content: "seen: hello (tools read,bash)", display: false }]);
    expect(await runner.emit({ type: "session_before_compact", preparation: {}, branchEntries: [], signal: new AbortController().signal })).toEqual({ cancel: true });
    expect(await runner.emitToolCall({ ...rmRf, input: { command: "whoami" } })).toEqual({ block: true, reason: `cwd ${ROOT}` });
    expect(await runner.emitToolCall(rmRf)).toBeUndefined();
    expect(errors).toEqual([]);
  });

  it("every result pi uses crosses, and two isolated modules chain as pi chains two extensions: input, user_bash, message_end, before_provider_request, resources_discover, session_before_fork, before_agent_start's systemPrompt", async () => {
    const { runner, errors } = await inPi([ext("answers-agent-events.ts"), ext("chains-after-another.ts")]);
    expect(errors).toEqual([]);
    expect(await runner.emitInput("hi", undefined, "interactive")).toEqual({ action: "transform", text: "A:hi B", images: undefined });
    expect(await runner.emitUserBash({ type: "user_bash", command: "ls", excludeFromContext: false, cwd: ROOT }))
      .toEqual({ result: { output: "ran ls isolated", exitCode: 0, cancelled: false, truncated: false } });
    const assistant = { role: "assistant", content: [{ type: "text", text: "original" }], timestamp: 1 };
    expect(await runner.emitMessageEnd({ type: "message_end", message: assistant }))
      .toEqual({ ...assistant, content: [{ type: "text", text: "rewritten by A, then B" }] });
    expect(await runner.emitBeforeProviderRequest({ model: "m", messages: [] })).toEqual({ model: "m", messages: [], a: 1, b: 2 });
    expect(await runner.emitResourcesDiscover(ROOT, "startup")).toEqual({
      skillPaths: [{ path: realpathSync(EXTENSIONS), extensionPath: "<isolated>" }],
      promptPaths: [{ path: realpathSync(ext("chains-after-another.ts")), extensionPath: "<isolated>" }],
      themePaths: [],
    });
    expect(await runner.emit({ type: "session_before_fork", entryId: "keep", position: "before" })).toEqual({ cancel: true });
    expect(await runner.emit({ type: "session_before_fork", entryId: "other", position: "at" })).toBeUndefined();
    const start = await runner.emitBeforeAgentStart("hello", undefined, "base", {});
    expect(start).toEqual({ messages: undefined, systemPrompt: "base +A +B" });
    expect(errors).toEqual([]);
  });

  it("pi's agent members cross: getters answer data, setters reach the agent's pi and ctx (the model by provider and id from its registry), ui.setWidget and setTitle as data; what cannot cross is refused by name", async () => {
    const { runner, errors, entries, runtime } = await inPi([ext("uses-agent-members.ts")]);
    const { calls, notified, entry } = bindAgent(runner, runtime, entries);
    await runner.emit({ type: "agent_start" });
    expect(errors).toEqual([]);
    expect(notified).toEqual([]);
    const seen = entry("seen");
    expect(seen).toEqual({
      sessionName: "the session", activeTools: ["read"], allTools: [{ name: "read", description: "Read a file", parameters: { type: "object" } }],
      commands: [{ name: "review", source: "extension" }], thinking: "low", usage: { tokens: 10, contextWindow: 100, percent: 10 },
      systemPrompt: "be brief", pending: false, signal: "undefined", switched: true,
      refused: [
        `ctx.ui.onTerminalInput is refused by hookbox/extension: ${REFUSED_UI.onTerminalInput}`,
        `ctx.ui.setEditorComponent is refused by hookbox/extension: ${REFUSED_UI.setEditorComponent}`,
        `ctx.ui.setWidget with a component factory is refused by hookbox/extension: ${REFUSED_UI.setEditorComponent}; pass the lines (string[])`,
      ],
    });
    expect(calls.filter(([m]) => !String(m).startsWith("get") && m !== "hasPendingMessages")).toEqual([
      ["setSessionName", "renamed"], ["setLabel", "e1", "checkpoint"], ["setActiveTools", ["read", "bash"]], ["setThinkingLevel", "high"],
      ["sendUserMessage", "go on", { deliverAs: "followUp" }],
      // The registry's own model object, not the one the module built (its baseUrl never reaches pi).
      ["setModel", { provider: "fake", id: "m2", name: "Model 2", baseUrl: "http://127.0.0.1:1/v1" }],
      // The module gave onComplete: pi gets callbacks that answer the module.
      ["compact", { customInstructions: "keep it short", onComplete: expect.any(Function), onError: expect.any(Function) }], ["ui.setWidget", "progress", ["step 1", "step 2"], { placement: "belowEditor" }],
      ["ui.setWidget", "cleared", undefined, { placement: "aboveEditor" }], ["ui.setTitle", "working"], ["shutdown"],
    ]);
  });

  it('under policy.modelRegistry "all" every method of pi\'s registry crosses (getApiKeyAndHeaders), and one it lacks is the agent\'s gap, not a violation of the module', async () => {
    const { runner, errors, entries, runtime } = await inPi([ext("calls-registry-beyond-contract.ts")], { policy: { modelRegistry: "all" } });
    const { entry } = bindAgent(runner, runtime, entries);
    runner.modelRegistry.getApiKeyAndHeaders = async (model: { provider: string }) => ({ ok: true, apiKey: `key-of-${model.provider}`, headers: {} });
    await runner.emit({ type: "agent_start" });
    expect(errors).toEqual([]);
    expect(entry("registry")).toEqual({
      getApiKeyAndHeaders: { value: { ok: true, apiKey: "key-of-fake", headers: {} } },
      notARegistryMethod: { error: "ctx.modelRegistry.notARegistryMethod(): the host's modelRegistry has no notARegistryMethod() method (the host's set-up, not this hook's fault)" },
    });
  });

  it("an isolated module's ctx.ui reaches pi's UI: select, confirm, input, editor, notify, setStatus, editor text and custom() (pi's factory arity), texts gated", async () => {
    const { runner, errors, entries, runtime } = await inPi([ext("asks-through-the-agent-ui.ts")]);
    const { calls, notified, entry } = bindAgent(runner, runtime, entries);
    const ui = runner.uiContext;
    Object.assign(ui, {
      select: async (title: string, options: string[]) => { calls.push(["ui.select", title, options]); return options[1]; },
      confirm: async (...args: unknown[]) => { calls.push(["ui.confirm", ...args]); return true; },
      input: async (...args: unknown[]) => { calls.push(["ui.input", ...args]); return "typed"; },
      editor: async (...args: unknown[]) => { calls.push(["ui.editor", ...args]); return "edited"; },
      getEditorText: () => "current",
      custom: (factory: Any) => new Promise((resolve) => { calls.push(["ui.custom"]); factory({ requestRender() {} }, {}, {}, resolve); }),
    });
    await runner.emit({ type: "agent_start" });
    expect(errors).toEqual([]);
    const custom = ISOLATION === "worker" ? "from custom" : `ctx.ui.custom() needs synchronous rendering, which ${ISOLATION} mode does not have`;
    expect(entry("asked")).toEqual({ picked: "b", ok: true, typed: "typed", edited: "edited", text: "current", custom });
    expect(notified).toEqual(["done"]);
    expect(calls.filter(([m]) => String(m).startsWith("ui."))).toEqual([
      ["ui.select", "Pick one", ["a", "b"]], ["ui.confirm", "Sure?", "really"], ["ui.input", "Name", "placeholder"], ["ui.editor", "Edit", "prefill"],
      ["ui.setStatus", "state", "busy"], ["ui.setEditorText", "draft"], ["ui.setEditorText", undefined], ["ui.custom"],
    ]);
  });

  it("ctx.ui.custom()'s factory runs only when pi's UI calls the factory it was given: never where the UI does not (pi's RPC UI), as in-process", async () => {
    const { runner, errors, entries, runtime } = await inPi([ext("custom-factory-with-a-side-effect.ts")], { renderTimeoutMs: 10_000 });
    const { calls, notified, entry } = bindAgent(runner, runtime, entries);
    // pi's RPC UI: `async custom() { return undefined; }`, the factory never called.
    runner.uiContext.custom = async (factory: unknown) => { calls.push(["ui.custom", typeof factory]); return undefined; };
    await runner.emit({ type: "agent_start" });
    expect(errors).toEqual([]);
    expect(calls.filter(([m]) => m === "ui.custom")).toEqual([["ui.custom", "function"]]);
    expect(entry("lazy")).toEqual({ ran: 0, result: null });
    expect(notified).toEqual([]);
  });

  it(ISOLATION === "worker"
    ? "ctx.ui.custom()'s factory runs when pi's UI calls the factory it was given, with pi's arity: its component renders and done() resolves the call"
    : `ctx.ui.custom()'s factory never runs in ${ISOLATION} isolation: the factory pi's UI calls throws, saying why, first`, async () => {
    const { runner, errors, entries, runtime } = await inPi([ext("custom-factory-with-a-side-effect.ts")], { renderTimeoutMs: 10_000 });
    const { notified, entry } = bindAgent(runner, runtime, entries);
    const lines: string[][] = [];
    // A TUI's custom(): calls the factory, renders what it returned.
    runner.uiContext.custom = (factory: Any) => new Promise((resolve, reject) => {
      Promise.resolve(factory({ requestRender() {} }, runner.uiContext.theme, {}, resolve)).then((c: Any) => lines.push(c.render(40)), reject);
    });
    await runner.emit({ type: "agent_start" });
    expect(errors).toEqual([]);
    if (ISOLATION === "worker") {
      expect(entry("lazy")).toEqual({ ran: 1, result: "picked" });
      expect(lines).toEqual([["lazy line 1 at 40"]]);
      expect(notified).toEqual(["the factory ran"]);
    } else {
      expect(entry("lazy")).toEqual({ ran: 0, result: `rejected: ctx.ui.custom() needs synchronous rendering, which ${ISOLATION} mode does not have` });
      expect(notified).toEqual([]);
    }
  });

  it.runIf(ISOLATION === "worker")("ctx.ui.custom() with an async factory gives pi's UI a promise of the component; a factory's throw rejects the module's call with its own error, nothing reported; pi's keybindings are refused by name", async () => {
    const { runner, errors, entries, runtime } = await inPi([ext("custom-factory-with-a-side-effect.ts")], { renderTimeoutMs: 10_000 });
    const { entry } = bindAgent(runner, runtime, entries);
    const lines: string[][] = [];
    runner.uiContext.custom = (factory: Any) => new Promise((resolve, reject) => {
      Promise.resolve(factory({ requestRender() {} }, runner.uiContext.theme, {}, resolve)).then((c: Any) => lines.push(c.render(40)), reject);
    });
    await runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 0 });
    expect(entry("lazy-async")).toEqual({ ran: 1, result: "later" });
    expect(lines).toEqual([["async line at 40"]]);
    await runner.emit({ type: "turn_end", turnIndex: 0, message: { role: "assistant", content: [] }, toolResults: [] });
    expect(entry("lazy-throw")).toEqual({
      result: "rejected: the factory's own error",
      keys: "rejected: ctx.ui.custom's keybindings.matches is refused by hookbox/extension: not carried across the isolation boundary yet (the agent's keybindings manager is an object of its own process)",
    });
    expect(errors).toEqual([]);
  });

  it("under policy.agent \"read\" a setter throws in the module at the call, naming the member and the policy (handler_threw), while getters answer; the module's throw reaches pi's own error path, as in-process", async () => {
    const { runner, errors, entries, runtime } = await inPi([ext("uses-agent-members.ts")], { policy: { agent: "read" } });
    const { calls, notified } = bindAgent(runner, runtime, entries);
    await runner.emit({ type: "agent_start" });
    expect(notified).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ event: "agent_start" });
    expect(errors[0].error).toContain(`pi.setSessionName is refused by policy.agent "read": it changes the agent; policy.agent: "write" grants it`);
    expect(calls.map(([m]) => m)).toEqual(["getSessionName", "getActiveTools", "getAllTools", "getCommands", "getThinkingLevel", "getContextUsage", "getSystemPrompt", "hasPendingMessages"]);
  });

  it("a module that floods the agent or smuggles terminal controls through its members is bounded by exact codes and gates", async () => {
    const hostile = join(ROOT, "fixtures", "hostile", "floods-and-smuggles-through-agent-members.ts");
    const { runner, errors, entries, runtime } = await inPi([hostile]);
    const { calls, notified, entry } = bindAgent(runner, runtime, entries);
    await runner.emit({ type: "agent_start" });
    expect(errors).toEqual([]);
    const flood = entry("flood");
    expect(flood.sent).toBe(USER_MESSAGES.max);
    expect(flood.firstRefusal).toBe(`pi.sendUserMessage was refused: more than ${USER_MESSAGES.max} user messages in ${USER_MESSAGES.windowMs} ms (each starts a turn of the agent)`);
    expect(calls.filter(([m]) => m === "sendUserMessage")).toHaveLength(USER_MESSAGES.max);
    // A widget is at most LIMITS.renderLines lines: 10^6 lines and 1001 lines are both refused whole, as protocol_violation.
    const tooLong = `bad arguments to agent.set: 1.1: Too big: expected array to have <=${LIMITS.renderLines} items`;
    expect(flood).toMatchObject({ hugeWidget: tooLong, longWidget: tooLong });
    expect(notified.map((n) => /: (\w+) in /.exec(n)?.[1])).toEqual(["protocol_violation", "protocol_violation"]);
    for (const n of notified) expect(n).toContain(tooLong);
    expect(flood).toMatchObject({ title: "ok", sessionName: "ok", widget: "ok" });
    expect(flood.protoTool).toBe('pi.setActiveTools: "__proto__" is not a tool name');
    expect(calls.filter(([m]) => m === "ui.setTitle" || m === "setSessionName" || m === "ui.setWidget")).toEqual([
      // Every sequence removed whole; a widget line keeps its SGR colours only.
      ["ui.setTitle", "pi"], ["setSessionName", "name"], ["ui.setWidget", "w", ["\u001b[31mred\u001b[0m link"], undefined],
    ]);
  });

  it(ISOLATION === "worker"
    ? "a message renderer crosses in worker isolation: pi's runner gets a component whose lines come from the module, styled by pi's theme, terminal controls removed"
    : `registerMessageRenderer is refused at load in ${ISOLATION} isolation, saying why (pi's terminal renders synchronously)`, async () => {
    const { runner, errors } = await inPi([ext("renders-memo.ts")]);
    if (ISOLATION !== "worker") {
      expect(errors[0].error).toContain(`${ext("renders-memo.ts")} did not load (load_failed): Failed to load hook: pi.registerMessageRenderer is refused by hookbox/extension: ${RENDERER_NEEDS_WORKER}`);
      return;
    }
    expect(errors).toEqual([]);
    const renderer = runner.getMessageRenderer("memo");
    const message = { role: "custom", customType: "memo", content: "hi\u001b]0;owned\u0007 there", display: true, timestamp: 1 };
    const component = renderer(message, { expanded: true }, { fg: (color: string, text: string) => `<${color}>${text}` });
    expect(component.render(40)).toEqual(["<accent>memo: hi there", "expanded at 40"]);
    expect(runner.getMessageRenderer("other")).toBeUndefined();
  });

  it("a result key pi ignores in its process (oh-my-pi's pirate.ts's systemPromptAppend) is dropped, as pi drops it, with one warning naming the key and the module; the rest of the result is used", async () => {
    const module = ext("returns-keys-the-agent-ignores.ts");
    const reported: string[] = [];
    const original = console.error;
    console.error = (line: string) => { reported.push(line); };
    try {
      const { runner, errors } = await inPi([module]);
      for (let i = 0; i < 2; i++) expect(await runner.emitBeforeAgentStart("hello", undefined, "base", {})).toEqual({ messages: undefined, systemPrompt: "base +kept" });
      expect(await runner.emitToolCall({ ...rmRf, input: { command: "rm -rf /" } })).toEqual({ block: true, reason: "no" });
      expect(errors).toEqual([]);
      expect(reported).toEqual([
        `hookbox: ${module}: the result of its before_agent_start handler has the key "systemPromptAppend", which pi ignores in its process: dropped, as pi drops it (the rest of the result is used)`,
        `hookbox: ${module}: the result of its tool_call handler has the key "input", which pi ignores in its process: dropped, as pi drops it (the rest of the result is used)`,
      ]);
    } finally {
      console.error = original;
    }
  });

  it("what pi must not take from an isolated module is refused by code or gated: resource paths outside its folder, terminal controls, a message of another role, user_bash operations", async () => {
    const hostile = join(ROOT, "fixtures", "hostile", "answers-agent-events-with-what-pi-must-not-take.ts");
    const reported: string[] = [];
    const original = console.error;
    console.error = (line: string) => { reported.push(line); };
    try {
      const { runner, errors } = await inPi([hostile]);
      expect(errors).toEqual([]);
      expect(await runner.emitResourcesDiscover(ROOT, "startup")).toEqual({ skillPaths: [], promptPaths: [], themePaths: [] });
      expect(await runner.emitInput("x", undefined, "interactive")).toEqual({ action: "transform", text: "hi there", images: undefined });
      const bash = await runner.emitUserBash({ type: "user_bash", command: "ls", excludeFromContext: false, cwd: ROOT });
      expect(bash).toEqual({ result: { output: "output", exitCode: 0, cancelled: false, truncated: false, fullOutputPath: "/tmp/x" } });
      expect(await runner.emitUserBash({ type: "user_bash", command: "ops", excludeFromContext: false, cwd: ROOT })).toBeUndefined();
      const assistant = { role: "assistant", content: [{ type: "text", text: "kept" }], timestamp: 1 };
      expect(await runner.emitMessageEnd({ type: "message_end", message: assistant })).toBeUndefined();
      const codes = reported.map((line) => /: (\w+) in (\w+): /.exec(line)?.slice(1, 3).join(" "));
      expect(codes).toEqual(["invalid_result resources_discover", "invalid_result user_bash", "invalid_result message_end"]);
      expect(reported[0]).toContain('skillPaths: "/root/.ssh" is not a file or folder in the module\'s own folder');
      expect(reported[1]).toContain("operations");
      expect(reported[2]).toContain('message: the replacement must keep the role "assistant"');
    } finally {
      console.error = original;
    }
  });

  it("ctx.ui.theme styles with pi's own theme (pi's theme is a Proxy over its global theme)", async () => {
    const { errors, entries } = await inPi([ext("styles-with-theme.ts")]);
    expect(errors).toEqual([]);
    const { theme } = piTheme;
    expect(entries).toEqual([["styled", { fg: theme.fg("accent", "x"), bold: theme.bold("y"), mode: theme.getColorMode() }]]);
    expect(entries[0][1]).not.toEqual({ fg: "x", bold: "y", mode: expect.anything() });
  });

  it.each([
    ["registers-provider.ts", "pi.registerProvider", REFUSED_MEMBERS.registerProvider],
    // oh-my-pi's members beyond pi's throw the same way (the worker does not know which agent it serves).
    ["uses-omp-schema-builders.ts", "pi.zod", OMP_REFUSED_MEMBERS.zod],
    ["uses-omp-arktype.ts", "pi.arktype", OMP_REFUSED_MEMBERS.arktype],
    ["registers-file-write-fallback.ts", "pi.registerFileWriteFallback", OMP_REFUSED_MEMBERS.registerFileWriteFallback],
    ["labels-itself-omp.ts", "pi.setLabel(label)", OMP_LABEL_REFUSAL.slice(OMP_LABEL_REFUSAL.indexOf(": ") + 2)],
  ])("%s is refused at load: pi's error path names %s, the module and why, and every tool call is blocked", async (module, member, why) => {
    const { runner, errors } = await inPi([ext(module)]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ extensionPath: "<isolated>", event: "session_start" });
    expect(errors[0].error).toContain(`hookbox: ${ext(module)} did not load (load_failed): Failed to load hook: ${member} is refused by hookbox/extension: ${why}`);
    expect(errors[0].error).toContain("every tool call is blocked (fail closed)");
    expect(await runner.emitToolCall(rmRf)).toEqual({ block: true, reason: `hookbox: blocked because isolated extension ${ext(module)} (load_failed) did not load (fail closed)` });
  });

  it("an event name with terminal controls, at load or after, loads as an event pi does not have (never called), said once with no control reaching pi's error path", async () => {
    const reported: string[] = [];
    const original = console.error;
    console.error = (line: string) => { reported.push(line); };
    try {
      const { runner, errors } = await inPi([ext("subscribes-escape-event.ts"), ext("subscribes-escape-event-late.ts")]);
      expect(errors).toEqual([]);
      // A tool call waits for every module (at a start that mirrors the previous one they arrive after session_start).
      expect(await runner.emitToolCall(rmRf)).toBeUndefined();
      expect(reported).toHaveLength(2);
      const [atLoad, late] = [ext("subscribes-escape-event.ts"), ext("subscribes-escape-event-late.ts")].map((m) => reported.find((l) => l.includes(`${m}: pi.on(`)) ?? "");
      expect(atLoad).toContain("at-load\"): pi has no such event, so this handler is never called");
      expect(late).toContain("late\"): pi has no such event, so this handler is never called");
      for (const text of reported) expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    } finally {
      console.error = original;
    }
  });


  it("loadHooks options pass through, perHook included: a hanging module's own deadline blocks the call with timeout", async () => {
    const hangs = ext("hangs-in-tool-call.ts");
    const { runner } = await inPi([ext("edits-events.ts"), hangs], { perHook: { [hangs]: { deadlines: { tool_call: 300 } } } });
    const started = Date.now();
    const result = await runner.emitToolCall(rmRf);
    expect(result).toMatchObject({ block: true });
    expect(result.reason).toContain(`Blocked because hook "${hangs}" failed (timeout)`);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("the factory resolves only once every module loaded: the isolated guard blocks at the first tool call", async () => {
    const { runner, errors } = await inPi([ext("blocks-rm-rf.ts"), ext("edits-events.ts")]);
    expect(errors).toEqual([]);
    expect(await runner.emitToolCall(rmRf)).toEqual({ block: true, reason: "guard refused: rm -rf /tmp/x" });
  });

  it("a refusal by the module's policy is shown once to the person running pi (ctx.ui.notify), naming the field that grants it; the module still gets its error on every call", async () => {
    const { runner, errors, entries, runtime } = await inPi([ext("asks-git-in-tool-call.ts")]);
    const { notified } = bindAgent(runner, runtime, entries);
    const ls = { ...rmRf, input: { command: "ls" } };
    for (let i = 0; i < 2; i++) expect((await runner.emitToolCall(ls)).reason).toMatch(/^guard could not ask git: pi\.exec is not allowed for this hook/);
    expect(errors).toEqual([]);
    expect(notified).toEqual([`hookbox: ${ext("asks-git-in-tool-call.ts")}: pi.exec("git") refused by its policy: pi.exec is not allowed for this hook (policy.exec.allow is empty); allow "git" in its policy to run it. The field that grants it: exec.allow (policy: { exec: { allow: ["git"] } } in isolate's options).`]);
  });

  it("a module naming a new refused program on every try causes at most MAX_NOTICES_PER_MODULE notices, each name cut, then one line saying the rest are not shown", async () => {
    const hostile = join(ROOT, "fixtures", "hostile", "execs-many-refused-programs.ts");
    const { runner, errors, entries, runtime } = await inPi([hostile]);
    const { notified } = bindAgent(runner, runtime, entries);
    for (let i = 0; i < 2; i++) expect(await runner.emitToolCall({ ...rmRf, input: { command: "ls" } })).toEqual({ block: true, reason: "asked 40 programs" });
    expect(errors).toEqual([]);
    expect(notified).toHaveLength(MAX_NOTICES_PER_MODULE + 1);
    expect(notified.slice(0, -1).every((line) => line.includes('pi.exec("prog-') && line.includes("[cut by hookbox]") && line.length < 1500)).toBe(true);
    expect(notified.at(-1)).toBe(`hookbox: ${hostile}: further refusals of this module are not shown (${MAX_NOTICES_PER_MODULE} were)`);
  });

  it("control: granted exec.allow [\"git\"] the module runs git and nothing is shown", async () => {
    // git runs in pi's working folder, which the module must be able to read (the sandbox binds only what its policy grants).
    const { runner, errors, entries, runtime } = await inPi([ext("asks-git-in-tool-call.ts")], { policy: { exec: { allow: ["git"] }, fsRead: [process.cwd()] } });
    const { notified } = bindAgent(runner, runtime, entries);
    expect(await runner.emitToolCall({ ...rmRf, input: { command: "ls" } })).toEqual({ block: true, reason: "guard asked git" });
    expect(errors).toEqual([]);
    expect(notified).toEqual([]);
  });

  it("inside the agent a hanging guard blocks the call after AGENT_DEADLINES' 5 s (not loadHooks' 30 s), named in the reason; deadlines still override it", async () => {
    expect(AGENT_DEADLINES).toEqual({ default: 5_000, command: 30_000, session_before_compact: 30_000 });
    const hangs = ext("hangs-in-tool-call.ts");
    const errors: string[] = [];
    const original = console.error;
    console.error = (line: string) => { errors.push(line); };
    try {
      const { runner } = await inPi([hangs]);
      const result = await runner.emitToolCall(rmRf);
      expect(result.block).toBe(true);
      expect(result.reason).toContain(`Blocked because hook "${hangs}" failed (timeout)`);
      expect(errors.join("\n")).toContain("did not settle tool_call within 5000 ms of its own time");
      const own = await inPi([hangs], { deadlines: { tool_call: 200 } });
      await own.runner.emitToolCall(rmRf);
    } finally {
      console.error = original;
    }
    expect(errors.join("\n")).toContain("did not settle tool_call within 200 ms of its own time");
  });

  it("a missing module is reported by path with load_failed", async () => {
    const { errors } = await inPi([ext("no-such-extension.ts")]);
    expect(errors[0].error).toContain(`hookbox: ${ext("no-such-extension.ts")} did not load (load_failed): Failed to load hook: file not found`);
  });

  it.each([
    ["an unknown option", [ext("blocks-rm-rf.ts")], { isolaton: "process" }, `isolate: unknown option "isolaton"; did you mean "isolation"?`],
    ["an isolation value", [ext("blocks-rm-rf.ts")], { isolation: "sandbx" }, `isolate: option "isolation" is "sandbx", which is not one of "worker", "process", "sandbox"; did you mean "sandbox"?`],
    ["a path that is not a string", [42], {}, "isolate: paths must be an array of module paths (strings or file: URLs)"],
    ["optional that is not a list", [], { optional: "x" }, `isolate: option "optional" must be an array of module paths (strings)`],
  ])("wrong arguments to isolate() (%s) fail closed as isolateConfig's file does: the call does not throw, pi goes on, nothing loads, every tool call is blocked naming isolate", async (_what, paths, options, problem) => {
    const factory = isolate(paths as string[], options as Record<string, unknown>);
    const { runner, errors } = await inPiFactory(factory);
    expect(errors).toHaveLength(1);
    expect(errors[0].error).toContain(`hookbox: isolate did not load (load_failed): ${problem}`);
    expect(errors[0].error).toContain("every tool call is blocked (fail closed)");
    expect(await runner.emitToolCall(rmRf)).toEqual({ block: true, reason: "hookbox: blocked because isolated extension isolate (load_failed) did not load (fail closed)" });
  });

  describe("relative module paths resolve against the file that calls isolate(), not the agent's working folder", () => {
    let folder: string;
    beforeAll(() => {
      folder = mkdtempSync(join(tmpdir(), "hookbox-base-"));
      copyFileSync(ext("blocks-rm-rf.ts"), join(folder, "guard.ts"));
    });
    afterAll(() => rmSync(folder, { recursive: true, force: true }));
    /** An `isolated.ts` in its own folder (pi's working folder is ROOT), loaded as the agent loads it. */
    const entry = async (name: string, call: string) => {
      const file = join(folder, name);
      writeFileSync(file, `import { isolate } from ${JSON.stringify(join(ROOT, "src", "extension", "adapter.ts"))};\nexport default ${call};\n`);
      return ((await import(file)) as { default: unknown }).default;
    };

    it.each([
      ["by default (the caller's file, from the stack)", `isolate(["./guard.ts"], { isolation: ${JSON.stringify(ISOLATION)} })`],
      ["with base: import.meta.url", `isolate(["./guard.ts"], { isolation: ${JSON.stringify(ISOLATION)}, base: import.meta.url })`],
      ["given a file: URL", `isolate([new URL("./guard.ts", import.meta.url)], { isolation: ${JSON.stringify(ISOLATION)} })`],
    ])("%s: the guard beside isolated.ts loads and blocks", async (what, call) => {
      const { runner, errors } = await inPiFactory(await entry(`isolated-${what.length}.ts`, call));
      expect(errors).toEqual([]);
      expect(process.cwd()).not.toBe(folder);
      expect(await runner.emitToolCall(rmRf)).toEqual({ block: true, reason: "guard refused: rm -rf /tmp/x" });
    });

    it("optional resolves against the same folder: a missing optional module is reported as optional and blocks nothing", async () => {
      const { runner, errors } = await inPiFactory(await entry("isolated-optional.ts", `isolate(["./guard.ts", "./missing.ts"], { isolation: ${JSON.stringify(ISOLATION)}, optional: ["./missing.ts"] })`));
      expect(errors).toHaveLength(1);
      expect(errors[0].error).toBe(`hookbox: ${join(folder, "missing.ts")} did not load (load_failed): Failed to load hook: file not found: ${join(folder, "missing.ts")} (optional: it blocks no tool call)`);
      expect(await runner.emitToolCall(rmRf)).toEqual({ block: true, reason: "guard refused: rm -rf /tmp/x" });
      expect(await runner.emitToolCall({ ...rmRf, input: { command: "ls" } })).toBeUndefined();
    });

    it("control: with base set to the working folder the same path is not found there (load_failed, fail closed)", async () => {
      const { runner, errors } = await inPiFactory(await entry("isolated-cwd.ts", `isolate(["./guard.ts"], { isolation: ${JSON.stringify(ISOLATION)}, base: process.cwd() })`));
      expect(errors[0].error).toContain(`hookbox: ${join(process.cwd(), "guard.ts")} did not load (load_failed): Failed to load hook: file not found`);
      expect((await runner.emitToolCall(rmRf)).block).toBe(true);
    });
  });

  describe("the config-file form: isolateConfig(file) reads the modules and options from JSON", () => {
    let folder: string;
    beforeAll(() => { folder = mkdtempSync(join(tmpdir(), "hookbox-config-")); });
    afterEach(() => { rmSync(folder, { recursive: true, force: true }); folder = mkdtempSync(join(tmpdir(), "hookbox-config-")); });
    /** The config written in its own folder (not pi's working directory), naming modules relative to that folder. */
    const config = (data: unknown) => {
      const file = join(folder, "isolated.json");
      writeFileSync(file, typeof data === "string" ? data : JSON.stringify(data));
      return file;
    };
    const rel = (name: string) => relative(folder, ext(name));

    it("a valid file blocks rm -rf: its modules resolve against the file's folder, an optional module that did not load is reported and does not fail closed", async () => {
      const file = config({ modules: [rel("blocks-rm-rf.ts"), { path: "./no-such-extension.ts", optional: true }], isolation: ISOLATION });
      const { runner, errors } = await inPiFactory(isolateConfig(file));
      expect(errors).toHaveLength(1);
      expect(errors[0].error).toContain(`hookbox: ${join(folder, "no-such-extension.ts")} did not load (load_failed)`);
      expect(errors[0].error).not.toContain("fail closed");
      expect(errors[0].error).toMatch(/\(optional: it blocks no tool call\)$/);
      expect(await runner.emitToolCall(rmRf)).toEqual({ block: true, reason: "guard refused: rm -rf /tmp/x" });
    });

    it("a module entry's own options apply to that module (what perHook gives): a hanging module's own deadline blocks the call with timeout", async () => {
      const hangs = ext("hangs-in-tool-call.ts");
      const file = config({ modules: [rel("edits-events.ts"), { path: rel("hangs-in-tool-call.ts"), deadlines: { tool_call: 300 } }], isolation: ISOLATION });
      const { runner } = await inPiFactory(isolateConfig(new URL(`file://${file}`)));
      const started = Date.now();
      const result = await runner.emitToolCall(rmRf);
      expect(result.reason).toContain(`Blocked because hook "${hangs}" failed (timeout)`);
      expect(Date.now() - started).toBeLessThan(10_000);
    });

    it.each([
      ["a module entry", { modules: [{ path: "./guard.ts", polcy: "untrusted" }] }, `unknown option "modules.0.polcy"; did you mean "policy"?`],
      ["the file's options", { modules: ["./guard.ts"], isolaton: "process" }, `unknown option "isolaton"; did you mean "isolation"?`],
      ["an isolation value", { modules: ["./guard.ts"], isolation: "sandbx" }, `option "isolation" is "sandbx", which is not one of "worker", "process", "sandbox"; did you mean "sandbox"?`],
      ["a module that is not a path", { modules: [42] }, `option "modules.0" has the wrong type (got number)`],
      ["not JSON", "{ modules: [", "not valid JSON"],
    ])("a typo in %s is refused naming the file and the field (and the valid one meant): nothing loads, every tool call is blocked", async (_what, data, problem) => {
      const file = config(data);
      const { runner, errors } = await inPiFactory(isolateConfig(file));
      expect(errors).toHaveLength(1);
      expect(errors[0].error).toContain(`hookbox: ${file} did not load (load_failed): hookbox config ${file}: ${problem}`);
      expect(errors[0].error).toContain("every tool call is blocked (fail closed)");
      expect(await runner.emitToolCall(rmRf)).toEqual({ block: true, reason: `hookbox: blocked because isolated extension ${file} (load_failed) did not load (fail closed)` });
    });

    it("a missing file is a clear error naming it, and fails closed", async () => {
      const file = join(folder, "nowhere.json");
      const { runner, errors } = await inPiFactory(isolateConfig(file));
      expect(errors[0].error).toContain(`hookbox: ${file} did not load (load_failed): hookbox config ${file}: file not found`);
      expect(await runner.emitToolCall(rmRf)).toEqual({ block: true, reason: `hookbox: blocked because isolated extension ${file} (load_failed) did not load (fail closed)` });
    });
  });

  it("a legacy hook module (the seed's HookAPI, written against the original's import) loads through isolate unchanged: the contract's example 1 blocks", async () => {
    const { runner, errors } = await inPi([join(ROOT, "fixtures", "valid", "blocks-rm-rf.ts")]);
    expect(errors).toEqual([]);
    expect(await runner.emitToolCall(rmRf)).toEqual({ block: true, reason: "rm -rf blocked (no UI)" });
  });

  it("pi is not of the oh-my-pi line: a legacy hook module subscribing to the seed's events pi lacks (session_switch) loads, those handlers never called, as pi does", async () => {
    let api: Any;
    await loader.loadExtensionFromFactory((pi: Any) => { api = pi; }, ROOT, undefined, loader.createExtensionRuntime(), "<probe>");
    expect(agentLine(api)).toBe("pi");
    const module = ext("legacy-hook-omp-events.ts");
    const reported: string[] = [];
    const original = console.error;
    console.error = (line: string) => { reported.push(line); };
    try {
      const { runner, errors } = await inPi([module]);
      expect(await runner.emitToolCall(rmRf)).toMatchObject({ block: true, reason: expect.stringContaining("legacy hook refused: rm -rf") });
      expect(errors).toEqual([]);
      expect(reported.some((l) => l.includes(`hookbox: ${module}: pi.on("session_switch"): pi has no such event, so this handler is never called`))).toBe(true);
    } finally {
      console.error = original;
    }
  });


  it("every member and event of pi's ExtensionAPI type is classified, and the table names nothing pi does not have", () => {
    const types = readFileSync(join(piDist, "core", "extensions", "types.d.ts"), "utf8");
    const body = types.slice(types.indexOf("export interface ExtensionAPI {"));
    const api = body.slice(0, body.indexOf("\n}\n"));
    const members = new Set([...api.matchAll(/^ {4}(\w+)[<(:?]/gm)].map((m) => m[1]));
    const events = new Set([...api.matchAll(/^ {4}on\(event: "([\w.]+)"/gm)].map((m) => m[1]));
    expect(members.size).toBeGreaterThan(20);
    expect(events.size).toBeGreaterThan(20);
    const classifiedMembers = [...CARRIED_MEMBERS, ...Object.keys(REFUSED_MEMBERS)];
    const classifiedEvents = [...RESULT_EVENTS, ...NOTIFY_EVENTS, ...Object.keys(REFUSED_EVENTS)];
    expect([...members].filter((m) => !classifiedMembers.includes(m))).toEqual([]);
    expect(classifiedMembers.filter((m) => !members.has(m))).toEqual([]);
    expect([...events].filter((e) => !classifiedEvents.includes(e))).toEqual([]);
    expect(classifiedEvents.filter((e) => !events.has(e))).toEqual([]);
    expect(new Set(classifiedEvents).size).toBe(classifiedEvents.length);
  });

  it("every member of pi's ExtensionContext and ExtensionUIContext is classified (carried or refused by name), and the tables name nothing pi does not have", () => {
    const types = readFileSync(join(piDist, "core", "extensions", "types.d.ts"), "utf8");
    const membersOf = (name: string) => {
      const body = types.slice(types.indexOf(`export interface ${name} {`));
      return new Set([...body.slice(0, body.indexOf("\n}\n")).matchAll(/^ {4}(?:readonly )?(\w+)[<(:?]/gm)].map((m) => m[1]!));
    };
    const ctx = membersOf("ExtensionContext");
    const ui = membersOf("ExtensionUIContext");
    expect(ctx.size).toBeGreaterThan(10);
    expect(ui.size).toBeGreaterThan(20);
    expect([...ctx].sort()).toEqual([...CARRIED_CONTEXT].sort());
    expect([...ui].sort()).toEqual([...CARRIED_UI, ...Object.keys(REFUSED_UI)].sort());
  });
});

describe(`the context a module's handlers get inside pi (${ISOLATION} isolation)`, { timeout: 60_000 }, () => {
  it("every event's handler gets the agent's cwd, a handler pi's runner calls one by one (before_agent_start) and the events after it alike", async () => {
    const { runner } = await inPi([join(ROOT, "fixtures", "valid", "reports-cwd-in-every-event.ts")]);
    await runner.emitBeforeAgentStart("do it", undefined, "You are pi.");
    await runner.emitContext([{ role: "user", content: "x", timestamp: 1 }]);
    const result = await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "1", input: { command: "ls" } });
    const cwd = process.cwd();
    expect(result.reason).toBe([`before_agent_start:${cwd}`, `context:${cwd}`, `tool_call:${cwd}`].join("\n"));
  });
});

