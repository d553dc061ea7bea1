import { describe, expect, it } from "vitest";
import { HookRunner, SESSION_MANAGER_METHODS, createModelRegistry, createNoOpUIContext, createSessionManager, type Model, type SessionEntry } from "../src/index.js";

const MODEL: Model = {
  id: "m1", name: "Model one", api: "openai-completions", provider: "acme", baseUrl: "https://llm.example", reasoning: false,
  input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1000, maxTokens: 100,
};
const init = { getModel: () => undefined, sendMessageHandler: () => {}, appendEntryHandler: () => {} };

describe("host set-up mistakes are the host's TypeError, not the hook's fault", () => {
  // What new HookRunner accepts (a seed-shaped host, a registry {}) and still refuses: test/host-seed-host.test.ts.
  it("initialize without getModel throws a TypeError naming it; a wrong optional handler is named too", () => {
    const runner = new HookRunner([], "/repo", createSessionManager(), createModelRegistry());
    const { getModel: _g, ...noModel } = init;
    expect(() => runner.initialize(noModel as never)).toThrow(/^HookRunner\.initialize: getModel\(\) is missing or not a function\. getModel, sendMessageHandler and appendEntryHandler are required/);
    expect(() => runner.initialize({ ...init, isIdle: true } as never)).toThrow(/^HookRunner\.initialize: isIdle\(\) is missing or not a function/);
    expect(() => runner.initialize({ ...init, uiContext: { confirm: async () => true } } as never)).toThrow(/^HookRunner\.initialize: uiContext: select\(\), input\(\), notify\(\).* Spread createNoOpUIContext\(\)/);
    expect(() => runner.initialize({ ...init, uiContext: { ...createNoOpUIContext(), confirm: async () => true }, hasUI: true })).not.toThrow();
    expect(() => runner.initialize({ ...init, agent: { get: () => 1 } } as never)).toThrow(/^HookRunner\.initialize: agent: set\(\), setModel\(\) .*hookbox\/extension passes/);
  });
});

describe("the helpers a host starts with", () => {
  it("createSessionManager answers every ReadonlySessionManager member, and getBranch walks from the leaf to the root", () => {
    const entries: SessionEntry[] = [
      { type: "message", id: "a", parentId: null, timestamp: "t", message: { role: "user", content: "hi", timestamp: 1 } },
      { type: "custom", id: "b", parentId: "a", timestamp: "t", customType: "note" },
      { type: "label", id: "c", parentId: "a", timestamp: "t", targetId: "a", label: "x" },
    ];
    const sm = createSessionManager({ cwd: "/repo", sessionId: "s1", entries });
    for (const name of SESSION_MANAGER_METHODS) expect(typeof sm[name]).toBe("function");
    expect([sm.getCwd(), sm.getSessionId(), sm.getLeafId()]).toEqual(["/repo", "s1", "c"]);
    expect(sm.getBranch().map((e) => e.id)).toEqual(["a", "c"]);
    expect(sm.getBranch("b").map((e) => e.id)).toEqual(["a", "b"]);
    expect(sm.getTree().map((n) => [n.entry.id, n.children.map((c) => c.entry.id)])).toEqual([["a", ["b", "c"]]]);
    expect(sm.getHeader()).toMatchObject({ type: "session", id: "s1", cwd: "/repo" });
  });

  it("createModelRegistry finds models and resolves API keys by provider, asynchronously as the original", async () => {
    const registry = createModelRegistry([MODEL], { acme: "sk-test" });
    expect(registry.find("acme", "m1")).toBe(MODEL);
    expect(registry.getAvailable()).toEqual([MODEL]);
    await expect(registry.getApiKey(MODEL)).resolves.toBe("sk-test");
    await expect(registry.getApiKeyForProvider("other")).resolves.toBeUndefined();
  });
});
