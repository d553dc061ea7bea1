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
import { isolate } from "../src/extension/adapter.js";
import { ROOT } from "./helpers/host.js";
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
const runners: Any[] = [];

beforeAll(async () => {
  ({ dist: piDist, loader, Runner, SessionManager, wrapRegisteredTool, theme: piTheme } = await importPi(installPiDir()));
  piTheme.initTheme("dark");
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
