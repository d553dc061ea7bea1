/** The bridge table is the one list of methods: every name the worker runtime uses is in it, with the kind it is sent as. */
import { describe, expect, it } from "vitest";
import { BRIDGE, methodSpec } from "../src/bridge/methods.js";
import { parseWorkerMessage, renderReplySchema, workerMessageSchema } from "../src/contract/protocol.js";
import { ruleFor } from "../src/runner/dispatch.js";
import { SESSION_MANAGER_METHODS } from "../src/contract/types.js";
import { CUT_MARK, toWireError } from "../worker/describe.mjs";
import { KIND, LIMITS, METHOD, SESSION_METHODS, measure } from "../worker/wire.mjs";

describe("the bridge table", () => {
  // First in this file: the tests below read every row.
  it("makes a row when it is first read, once (a start calls a handful of its methods)", () => {
    expect(Object.getOwnPropertyDescriptor(BRIDGE, METHOD.agentCompact)?.get).toBeTypeOf("function");
    const row = BRIDGE[METHOD.agentCompact];
    expect(row.kind).toBe("call");
    expect(Object.getOwnPropertyDescriptor(BRIDGE, METHOD.agentCompact)?.value).toBe(row);
    expect(methodSpec(METHOD.agentCompact)).toBe(row);
  });

  // The worker names methods only through METHOD, and its call, post and callSync take only names of
  // their kind (worker/wire.mjs CallMethod…): tsc checks every use. This checks the kinds at run time too.
  it("every row travels the way the wire's KIND says", () => {
    expect(Object.fromEntries(Object.entries(BRIDGE).map(([m, spec]) => [m, spec.kind]))).toEqual(KIND);
  });

  it("the table and the worker's name constants list the same methods", () => {
    expect(Object.keys(BRIDGE).sort()).toEqual(Object.values(METHOD).sort());
  });

  it("the session methods a hook may call are the ReadonlySessionManager methods of the public types", () => {
    expect([...SESSION_METHODS].sort()).toEqual([...SESSION_MANAGER_METHODS].sort());
  });

  it("a custom message is checked by one schema whether a hook sends it or returns it: a content block other than text or image is refused both ways", () => {
    const message = (content: unknown) => ({ customType: "note", content, display: true });
    const sent = (content: unknown) => BRIDGE[METHOD.sendMessage].args.safeParse([message(content), undefined]).success;
    const returned = (content: unknown) => ruleFor("before_agent_start").schema!.safeParse({ message: message(content) }).success;
    expect([sent([{ type: "text", text: "hi" }]), returned([{ type: "text", text: "hi" }])]).toEqual([true, true]);
    expect([sent([{ type: "thinking", thinking: "hm" }]), returned([{ type: "thinking", thinking: "hm" }])]).toEqual([false, false]);
    expect([sent("x"), returned("x")]).toEqual([true, true]);
  });

  it("an error is serialised one way: texts cut to their bound with one mark, and a host error sent to a hook carries no stack or code", () => {
    const err = Object.assign(new Error("x".repeat(LIMITS.maxText + 10)), { code: "EHOST" });
    const full = toWireError(err);
    expect(full.message).toHaveLength(LIMITS.maxText);
    expect(full.message.endsWith(CUT_MARK)).toBe(true);
    expect(full.code).toBe("EHOST");
    const small = Object.assign(new Error("small"), { code: "EHOST" });
    expect(toWireError(small).stack).toContain("wire-table.test.ts");
    expect(Object.keys(toWireError(small, { stack: false })).sort()).toEqual(["message", "name"]);
    expect(toWireError({ reason: 1 })).toEqual({ message: 'a non-Error value was thrown: {"reason":1}' });
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

  it("an answer has one strict shape on both ports: a res or a render reply with a key outside it fails the envelope", () => {
    const answer = { id: 1, ok: false, e: { message: "no" } };
    expect(parseWorkerMessage({ t: "res", ...answer }).success).toBe(true);
    expect(parseWorkerMessage({ t: "res", ...answer, hookPath: "/other.ts" }).success).toBe(false);
    expect(parseWorkerMessage({ t: "res", id: 1, ok: true, v: 1, extra: 1 }).success).toBe(false);
    expect(renderReplySchema.safeParse({ kind: "reply", ...answer, released: true }).success).toBe(true);
    expect(renderReplySchema.safeParse({ kind: "reply", ...answer, extra: 1 }).success).toBe(false);
    expect(renderReplySchema.safeParse({ kind: "sync", t: "sync", id: 2, m: METHOD.theme, a: [] }).success).toBe(true);
    expect(renderReplySchema.safeParse({ kind: "sync", t: "sync", id: 2, m: "theme.evil", a: [] }).success).toBe(false);
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
