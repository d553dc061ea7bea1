/** The bridge table is the one list of methods: every name the worker runtime uses is in it, with the kind it is sent as. */
import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BRIDGE, methodSpec } from "../src/bridge/methods.js";
import { workerMessageSchema } from "../src/protocol.js";
import { SESSION_MANAGER_METHODS } from "../src/types.js";
import { LIMITS, METHOD, SESSION_METHODS, measure } from "../worker/wire.mjs";

const workerDir = new URL("../worker/", import.meta.url);
const uses = readdirSync(workerDir).filter((f) => f.endsWith(".mjs")).flatMap((f) => {
  const source = readFileSync(new URL(f, workerDir), "utf8");
  // `ask` is a context's `call` that names the context's request (worker/context.mjs).
  return [...source.matchAll(/\b(call|ask|post|callSync)\("([^"]+)"/g)].map((m) => ({ file: f, kind: m[1] === "callSync" ? "sync" : m[1] === "ask" ? "call" : m[1], name: m[2]! }));
});

describe("the bridge table", () => {
  it("every method the worker runtime names is in the table, sent the way its row says", () => {
    expect(uses.length).toBeGreaterThan(20);
    for (const use of uses) expect({ ...use, kind: methodSpec(use.name)?.kind }).toEqual(use);
  });

  it("the table and the worker's name constants list the same methods", () => {
    expect(Object.keys(BRIDGE).sort()).toEqual(Object.values(METHOD).sort());
  });

  it("the session methods a hook may call are the ReadonlySessionManager methods of the public types", () => {
    expect([...SESSION_METHODS].sort()).toEqual([...SESSION_MANAGER_METHODS].sort());
  });

  it("a name from Object.prototype is not a method", () => {
    expect(methodSpec("constructor")).toBeUndefined();
    expect(methodSpec("__proto__")).toBeUndefined();
  });

  it("a manifest counting more handlers than LIMITS.maxHandlers fails the envelope", () => {
    const manifest = (n: number) => ({ t: "manifest", manifest: { events: { x: n }, commands: [], renderers: [] } });
    expect(workerMessageSchema.safeParse(manifest(LIMITS.maxHandlers)).success).toBe(true);
    expect(workerMessageSchema.safeParse(manifest(4294967295)).success).toBe(false);
  });

  it("measure stops at the size bound on a value shared exponentially, instead of walking it all", () => {
    let v: unknown = "x".repeat(100);
    for (let i = 0; i < 60; i++) v = [v, v];
    const { bytes, issue } = measure(v, 1_000_000);
    expect(issue).toBeUndefined();
    expect(bytes).toBeGreaterThan(1_000_000);
    expect(bytes).toBeLessThan(1_100_000);
  });
});
