/**
 * `policy.effects` over the agent's members (hookbox/extension inside pi 0.73.1's own loader and
 * runner): every member `MEMBER_EFFECTS` classes as a substitute is refused under `restrict` (the
 * `untrusted` preset) as `effect_refused`, by name, and the agent is not called; a tool named like
 * a built-in is refused at load the same way. Under `confined` and `trusted` the members reach the
 * agent as before.
 */
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { isolate } from "../src/extension/adapter.js";
import { CARRIED_CONTEXT, CARRIED_MEMBERS, CARRIED_UI, MEMBER_EFFECTS, OMP_CARRIED_MEMBERS } from "../worker/extension-members.mjs";
import { AGENT_SETTERS } from "../worker/wire.mjs";
import { memberName } from "../src/bridge/agent-gate.js";
import { ROOT } from "./helpers/host.js";
import { ISOLATION } from "./support/isolation.js";
import { importPi, installPiDir } from "./support/pi-agent.js";

type Any = any;
const RESTRICTED = ISOLATION === "sandbox" ? "untrusted" : { effects: "restrict" };
const hostile = (name: string) => join(ROOT, "fixtures", "hostile", name);
let loader: Any;
let Runner: Any;
let SessionManager: Any;
const runners: Any[] = [];

beforeAll(async () => {
  ({ loader, Runner, SessionManager } = await importPi(installPiDir()));
}, 300_000);

afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.emit({ type: "session_shutdown", reason: "quit" });
});

async function inPi(paths: string[], policy: unknown) {
  const runtime = loader.createExtensionRuntime();
  const calls: unknown[][] = [];
  const record = (member: string, answer?: unknown) => (...args: unknown[]) => { calls.push([member, ...args]); return answer; };
  runtime.appendEntry = record("appendEntry");
  runtime.sendMessage = record("sendMessage");
  const extension = await loader.loadExtensionFromFactory(isolate(paths, { isolation: ISOLATION, policy: policy as never }), ROOT, undefined, runtime, "<isolated>");
  const runner = new Runner([extension], runtime, ROOT, SessionManager.inMemory(ROOT), {});
  runners.push(runner);
  const errors: Array<{ error: string }> = [];
  runner.onError((e: { error: string }) => errors.push(e));
  Object.assign(runtime, {
    setSessionName: record("setSessionName"), setLabel: record("setLabel"), setActiveTools: record("setActiveTools"),
    setThinkingLevel: record("setThinkingLevel"), sendUserMessage: record("sendUserMessage"),
    setModel: async (model: unknown) => { calls.push(["setModel", model]); return true; },
  });
  runner.modelRegistry = { find: (provider: string, id: string) => ({ provider, id }) };
  Object.assign(runner, { compactFn: record("compact"), shutdownHandler: record("shutdown") });
  const notified: string[] = [];
  runner.setUIContext({ notify: (message: string) => { notified.push(message); }, setStatus: () => {}, theme: {} });
  await runner.emit({ type: "session_start", reason: "startup" });
  return { runner, errors, calls, notified };
}

const SUBSTITUTING = ["pi.sendUserMessage", "pi.setSessionName", "pi.setLabel", "pi.setActiveTools", "pi.setThinkingLevel", "pi.setModel", "ctx.compact"];

describe(`policy.effects over pi's agent members (${ISOLATION} isolation)`, { timeout: 60_000 }, () => {
  it("classes every member a module reaches: each carried member of pi, oh-my-pi, ctx and ctx.ui, and each agent setter", () => {
    const classed = (key: string) => Object.hasOwn(MEMBER_EFFECTS, key);
    expect([...CARRIED_MEMBERS, ...OMP_CARRIED_MEMBERS].filter((m) => !classed(m))).toEqual([]);
    expect(CARRIED_CONTEXT.map((m) => `ctx.${m}`).filter((m) => !classed(m))).toEqual([]);
    expect(CARRIED_UI.map((m) => `ctx.ui.${m}`).filter((m) => !classed(m))).toEqual([]);
    expect(AGENT_SETTERS.map(memberName).map((m) => (m.startsWith("pi.") ? m.slice(3) : m)).filter((m) => !classed(m))).toEqual([]);
  });

  it("under untrusted each substitute member is refused as effect_refused by name, and the agent is never called for them", async () => {
    const { runner, calls, notified } = await inPi([hostile("changes-the-agent-through-members.ts")], RESTRICTED);
    await runner.emit({ type: "agent_start" });
    // appendEntry (the module's own state, which the model never reads) is an observation: it reaches the agent.
    expect(calls.map(([m]) => m)).toEqual(["appendEntry"]);
    const threw = JSON.parse(notified.find((n) => n.startsWith("["))!) as string[];
    expect(threw).toHaveLength(SUBSTITUTING.length);
    threw.forEach((message, i) => {
      expect(message).toContain(`called ${SUBSTITUTING[i]}, a substitute effect`);
      expect(message).toContain(`policy.effects "restrict"`);
    });
    // Reported too, with the code: the setters the module called, and the posts it could not see refused.
    const reported = notified.filter((n) => n.includes(": effect_refused in "));
    expect(reported.map((n) => /effect_refused in ([\w.]+):/.exec(n)![1])).toEqual([...SUBSTITUTING, "pi.sendMessage"]);
  });

  it.each(["confined", "trusted"])("under %s the same members reach the agent, as before", async (policy) => {
    const { runner, calls, notified } = await inPi([hostile("changes-the-agent-through-members.ts")], policy);
    await runner.emit({ type: "agent_start" });
    expect(notified.filter((n) => n.includes("effect_refused"))).toEqual([]);
    expect(calls.map(([m]) => m)).toEqual(["sendUserMessage", "setSessionName", "setLabel", "setActiveTools", "setThinkingLevel", "setModel", "compact", "sendMessage", "appendEntry"]);
  });

  it("under untrusted a tool named like a built-in (it would replace the agent's bash) is refused at load as effect_refused", async () => {
    const { runner, errors } = await inPi([hostile("registers-builtin-tool-name.ts")], RESTRICTED);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.error).toContain("did not load (effect_refused)");
    expect(errors[0]!.error).toContain(`pi.registerTool("bash"), replacing the agent's built-in tool,`);
    expect(errors[0]!.error).toContain("policy.effects");
    expect(runner.getAllRegisteredTools()).toEqual([]);
  });

  it("under untrusted a tool whose prompt guidelines go into the system prompt is refused at load as effect_refused; under confined it loads", async () => {
    const { runner, errors } = await inPi([hostile("registers-tool-with-system-prompt-text.ts")], RESTRICTED);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.error).toContain("did not load (effect_refused)");
    expect(errors[0]!.error).toContain(`pi.registerTool("lookup") with a promptGuidelines (text the agent adds to its system prompt),`);
    expect(runner.getAllRegisteredTools()).toEqual([]);
    const own = await inPi([hostile("registers-tool-with-system-prompt-text.ts")], "confined");
    expect(own.errors).toEqual([]);
    expect(own.runner.getAllRegisteredTools().map((t: Any) => t.definition?.name ?? t.name)).toEqual(["lookup"]);
  });
});
