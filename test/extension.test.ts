/**
 * hookbox/extension inside pi's own extension loader and runner (pi 0.73.1, the installed package):
 * what crosses returns to pi's runner, what cannot is refused at load naming the member, the module
 * and why, and the table of members is checked against pi's own ExtensionAPI type.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { isolate } from "../src/extension.js";
import { CARRIED_MEMBERS, NOTIFY_EVENTS, REFUSED_EVENTS, REFUSED_MEMBERS, RESULT_EVENTS } from "../worker/extension-members.mjs";
import { ROOT } from "./helpers/host.js";
import { ISOLATION } from "./support/isolation.js";
import { installPi } from "./support/pi-agent.js";

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
  piDist = join(installPi(), "..");
  loader = await import(pathToFileURL(join(piDist, "core", "extensions", "loader.js")).href);
  Runner = (await import(pathToFileURL(join(piDist, "core", "extensions", "runner.js")).href)).ExtensionRunner;
  SessionManager = (await import(pathToFileURL(join(piDist, "core", "session-manager.js")).href)).SessionManager;
  piTheme = await import(pathToFileURL(join(piDist, "modes", "interactive", "theme", "theme.js")).href);
  piTheme.initTheme("dark"); // as pi's main does before any extension runs
}, 300_000);

afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.emit({ type: "session_shutdown", reason: "quit" });
});

/** pi's own path: its loader awaits the factory, its runner calls the mirrored handlers. */
async function inPi(paths: string[], options: Record<string, unknown> = {}) {
  const runtime = loader.createExtensionRuntime();
  const entries: Array<[string, unknown]> = [];
  runtime.appendEntry = (type: string, data: unknown) => entries.push([type, data]);
  const extension = await loader.loadExtensionFromFactory(isolate(paths, { isolation: ISOLATION, ...options }), ROOT, undefined, runtime, "<isolated>");
  const runner = new Runner([extension], runtime, ROOT, SessionManager.inMemory(ROOT), {});
  runners.push(runner);
  const errors: Array<{ extensionPath: string; event: string; error: string }> = [];
  runner.onError((e: (typeof errors)[number]) => errors.push(e));
  await runner.emit({ type: "session_start", reason: "startup" });
  return { runner, errors, entries, extension };
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

  it("ctx.ui.theme styles with pi's own theme (pi's theme is a Proxy over its global theme)", async () => {
    const { errors, entries } = await inPi([ext("styles-with-theme.ts")]);
    expect(errors).toEqual([]);
    const { theme } = piTheme;
    expect(entries).toEqual([["styled", { fg: theme.fg("accent", "x"), bold: theme.bold("y"), mode: theme.getColorMode() }]]);
    expect(entries[0][1]).not.toEqual({ fg: "x", bold: "y", mode: expect.anything() });
  });

  it.each([
    ["registers-tool.ts", "pi.registerTool", REFUSED_MEMBERS.registerTool],
    ["registers-command.ts", "pi.registerCommand", REFUSED_MEMBERS.registerCommand],
    ["uses-event-bus.ts", "pi.events", REFUSED_MEMBERS.events],
    ["subscribes-input.ts", 'pi.on("input")', REFUSED_EVENTS.input],
  ])("%s is refused at load: pi's error path names %s, the module and why, and every tool call is blocked", async (module, member, why) => {
    const { runner, errors } = await inPi([ext(module)]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ extensionPath: "<isolated>", event: "session_start" });
    expect(errors[0].error).toContain(`hookbox: ${ext(module)} did not load (load_failed): Failed to load hook: ${member} is refused by hookbox/extension: ${why}`);
    expect(errors[0].error).toContain("every tool call is blocked (fail closed)");
    expect(await runner.emitToolCall(rmRf)).toEqual({ block: true, reason: `hookbox: blocked because isolated extension ${ext(module)} (load_failed) did not load (fail closed)` });
  });

  it("a refused registration made after load (pi.on(\"input\") in session_start) is reported and blocks every tool call, naming the module", async () => {
    const reported: string[] = [];
    const original = console.error;
    console.error = (line: string) => { reported.push(line); };
    try {
      const { runner } = await inPi([ext("subscribes-input-late.ts")]);
      const module = ext("subscribes-input-late.ts");
      expect(reported).toEqual([`Extension error (${module}): hookbox: ${module}: load_failed in load: Failed to load hook: pi.on("input") is refused by hookbox/extension: ${REFUSED_EVENTS.input} (registered after load)`]);
      expect(await runner.emitToolCall(rmRf)).toEqual({ block: true, reason: `hookbox: blocked because isolated extension ${module} (load_failed) did not load (fail closed)` });
    } finally {
      console.error = original;
    }
  });

  it("an event name with terminal controls, at load or after, is refused as an event pi does not have, and no control reaches pi's error path or the block reason", async () => {
    const reported: string[] = [];
    const original = console.error;
    console.error = (line: string) => { reported.push(line); };
    try {
      const { runner, errors } = await inPi([ext("subscribes-escape-event.ts"), ext("subscribes-escape-event-late.ts")]);
      expect(errors).toHaveLength(1);
      expect(errors[0].error).toContain(`${ext("subscribes-escape-event.ts")} did not load (load_failed): Failed to load hook: pi.on("at-load") is refused by hookbox/extension: the agent has no such event`);
      expect(reported).toHaveLength(1);
      expect(reported[0]).toContain(`pi.on("late") is refused by hookbox/extension: the agent has no such event (registered after load)`);
      const blocked = await runner.emitToolCall(rmRf);
      for (const text of [errors[0].error, reported[0], blocked.reason]) expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
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

  it("a missing module is reported by path with load_failed; the module list must be strings", async () => {
    const { errors } = await inPi([ext("no-such-extension.ts")]);
    expect(errors[0].error).toContain(`hookbox: ${ext("no-such-extension.ts")} did not load (load_failed): Failed to load hook: file not found`);
    expect(() => isolate([42 as unknown as string])).toThrow(TypeError);
    expect(() => isolate([], { optional: "x" as unknown as string[] })).toThrow(TypeError);
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
});
