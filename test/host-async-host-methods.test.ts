/** Host methods that are async in the original resolve across the boundary, as hooks written for it expect. */
import { describe, expect, it } from "vitest";
import { sample } from "./helpers/events.js";
import { start } from "./helpers/host.js";

async function withRegistry(registry: object) {
  // The key methods are granted by policy.modelRegistry (absent: lookups only).
  return start(["checks-api-key-before-compaction"], { modelRegistry: registry, load: { policy: { modelRegistry: "keys" } }, init: { getModel: () => ({ id: "m1", provider: "p" }) as never } });
}

describe("async host methods", () => {
  it("await ctx.modelRegistry.getApiKey(model) resolves to what the host's async method resolves to, while sync methods stay sync", async () => {
    const { runner, entries, errors } = await withRegistry({
      getApiKey: async (model: { id: string }) => { await new Promise((r) => setTimeout(r, 20)); return `sk-for-${model.id}`; },
      find: (id: string) => ({ id, provider: "p" }),
    });
    expect(await runner.emit(sample("session_before_compact"))).toBeUndefined();
    expect(entries).toEqual([["key-checked", { keyLength: 9, findIsSync: true, found: { id: "m1", provider: "p" } }]]);
    expect(errors).toEqual([]);
  });

  it("an async host method that resolves to nothing lets the hook act on it (here: cancel)", async () => {
    const { runner } = await withRegistry({ getApiKey: async () => undefined, find: () => null });
    expect(await runner.emit(sample("session_before_compact"))).toEqual({ cancel: true });
  });

  it("an async host method that rejects makes the hook's await reject, naming the method", async () => {
    const { runner, errors } = await withRegistry({ getApiKey: async () => { throw new Error("keychain locked"); }, find: () => null });
    await runner.emit(sample("session_before_compact"));
    expect(errors.map((e) => e.code)).toEqual(["handler_threw"]);
    expect(errors[0]!.error).toContain("ctx.modelRegistry.getApiKey()");
    expect(errors[0]!.error).toContain("keychain locked");
  });

  it("a host method whose answer is not plain data fails with an error that names the method", async () => {
    const { runner, errors } = await withRegistry({ getAll: () => [{ id: "m", complete: () => {} }] });
    await runner.emit(sample("session_before_tree"));
    expect(errors.map((e) => e.code)).toEqual(["handler_threw"]);
    expect(errors[0]!.error).toContain("ctx.modelRegistry.getAll()");
  });
});
