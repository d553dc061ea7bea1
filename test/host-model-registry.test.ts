import { describe, expect, it } from "vitest";
import { presets } from "../src/policy/policy.js";
import { registryRefusal } from "../src/bridge/model-registry-gate.js";
import { start } from "./helpers/host.js";
import { turnStart } from "./helpers/events.js";
import { ISOLATION } from "./support/isolation.js";

const MODEL = { provider: "openai", id: "gpt", headers: { Authorization: "Bearer sk-host" } };

/** A host registry holding the host's key, with the mutating methods a real one has. */
function hostRegistry() {
  const keys: Record<string, string> = { openai: "sk-host" };
  let refreshed = 0;
  return {
    keys, refreshed: () => refreshed,
    registry: {
      getAll: () => [MODEL], getAvailable: () => [MODEL], find: () => MODEL,
      getApiKey: async (model: { provider: string }) => keys[model.provider],
      getApiKeyForProvider: async (provider: string) => keys[provider],
      setApiKey: (provider: string, key: string) => { keys[provider] = key; },
      isUsingOAuth: () => false, refresh: () => { refreshed++; }, getError: () => undefined,
    },
  };
}

async function run(policy: unknown) {
  const host = hostRegistry();
  const { runner, entries, errors } = await start(["hostile/reads-model-registry-keys.ts"], {
    modelRegistry: host.registry, load: { policy: policy as never }, init: { getModel: () => MODEL as never },
  });
  await runner.emit(turnStart());
  expect(errors).toEqual([]);
  const [[type, outcome]] = entries as [[string, Record<string, { value?: unknown; refused?: string }>]];
  expect(type).toBe("registry");
  return { outcome, host };
}

const READ_REFUSALS = {
  getApiKeyForProvider: 'ctx.modelRegistry.getApiKeyForProvider() is not allowed for this hook (policy.modelRegistry is "read"): it answers API keys; policy.modelRegistry: "keys" grants it',
  getApiKey: 'ctx.modelRegistry.getApiKey() is not allowed for this hook (policy.modelRegistry is "read"): it answers API keys; policy.modelRegistry: "keys" grants it',
  setApiKey: 'ctx.modelRegistry.setApiKey() is not allowed for this hook (policy.modelRegistry is "read"): it is not a lookup (it may change the host\'s registry); only policy.modelRegistry: "all" grants it',
  refresh: 'ctx.modelRegistry.refresh() is not allowed for this hook (policy.modelRegistry is "read"): it is not a lookup (it may change the host\'s registry); only policy.modelRegistry: "all" grants it',
};

describe("the host's model registry is closed by policy.modelRegistry", () => {
  it("a confined hook (the default) gets lookups without credentials, and every key or mutating method is refused naming the method and the policy field", async () => {
    const { outcome, host } = await run(undefined);
    for (const [name, refused] of Object.entries(READ_REFUSALS)) expect(outcome[name]).toEqual({ refused });
    expect(outcome.find).toEqual({ value: { provider: "openai", id: "gpt" } });
    expect(outcome.getAll).toEqual({ value: [{ provider: "openai", id: "gpt" }] });
    expect(outcome.model).toEqual({ value: { provider: "openai", id: "gpt" } });
    expect(host.keys).toEqual({ openai: "sk-host" });
    expect(host.refreshed()).toBe(0);
  });

  it('policy.modelRegistry: "keys" adds the key methods and still refuses setApiKey and refresh', async () => {
    const { outcome, host } = await run({ modelRegistry: "keys" });
    expect(outcome.getApiKeyForProvider).toEqual({ value: "sk-host" });
    expect(outcome.getApiKey).toEqual({ value: "sk-host" });
    expect(outcome.setApiKey!.refused).toContain('ctx.modelRegistry.setApiKey() is not allowed for this hook (policy.modelRegistry is "keys")');
    expect(outcome.refresh!.refused).toContain('only policy.modelRegistry: "all" grants it');
    expect(outcome.find).toEqual({ value: MODEL });
    expect(outcome.model).toEqual({ value: MODEL });
    expect(host.keys).toEqual({ openai: "sk-host" });
  });

  it.runIf(ISOLATION === "sandbox")("an untrusted hook gets no key and cannot change one", async () => {
    const { outcome, host } = await run("untrusted");
    for (const [name, refused] of Object.entries(READ_REFUSALS)) expect(outcome[name]).toEqual({ refused });
    expect(host.keys).toEqual({ openai: "sk-host" });
  });

  it("a trusted hook has the original's access: every method of the host's registry", async () => {
    const { outcome, host } = await run("trusted");
    expect(outcome.getApiKeyForProvider).toEqual({ value: "sk-host" });
    expect(outcome.setApiKey).toEqual({ value: null });
    expect(host.keys).toEqual({ openai: "sk-attacker" });
    expect(host.refreshed()).toBe(1);
  });

  it('under "all" a method beyond the contract the host\'s registry has answers, and one it lacks is the host\'s gap (HostLacksMethod), not a violation counted against the hook', async () => {
    const registry = { ...hostRegistry().registry, getApiKeyAndHeaders: async () => ({ ok: true, apiKey: "sk-host", headers: { "x-org": "o" } }) };
    const { runner, entries, errors } = await start(["calls-registry-beyond-contract"], { modelRegistry: registry, load: { policy: { modelRegistry: "all" } as never } });
    await runner.emit(turnStart());
    expect(errors).toEqual([]);
    expect(entries).toEqual([["registry", {
      getApiKeyAndHeaders: { value: { ok: true, apiKey: "sk-host", headers: { "x-org": "o" } } },
      notARegistryMethod: { error: "ctx.modelRegistry.notARegistryMethod(): the host's modelRegistry has no notARegistryMethod() method (the host's set-up, not this hook's fault)" },
    }]]);
  });

  it("the presets: untrusted offers no host modules and no keys; confined no keys; a method outside the lists is refused under keys", () => {
    expect(presets.untrusted.hostModules).toEqual([]);
    expect(presets.untrusted.modelRegistry).toBe("read");
    expect(presets.confined.modelRegistry).toBe("read");
    expect(presets.trusted.modelRegistry).toBe("all");
    expect(registryRefusal({ ...presets.confined, modelRegistry: "keys" }, "registerProvider")).toContain("registerProvider");
    expect(registryRefusal(presets.confined, "find")).toBeUndefined();
  });
});
