/** The effect rules (src/runner/effects.ts), pure: what a grant lets through of a result or an edit. */
import { describe, expect, it } from "vitest";
import { effectOf, gateEdits, gateResult, sameData, subsetOf } from "../src/runner/effects.js";
import { allows, EFFECTS } from "../worker/effects.mjs";

const a = { role: "user", content: "a", timestamp: 1 };
const b = { role: "custom", customType: "debug-only", content: "b", timestamp: 2 };
const c = { role: "assistant", content: "c", timestamp: 3 };

describe("the effect classes", () => {
  it("a grant covers its class and every class below, nothing above", () => {
    expect(EFFECTS).toEqual(["observe", "restrict", "substitute"]);
    expect(allows("restrict", "observe")).toBe(true);
    expect(allows("restrict", "restrict")).toBe(true);
    expect(allows("restrict", "substitute")).toBe(false);
    expect(allows("observe", "restrict")).toBe(false);
    expect(allows("substitute", "anything else")).toBe(false);
  });
});

describe("subsetOf: the host's own messages, in their order", () => {
  it("maps copies back to the host's objects", () => {
    const kept = subsetOf([a, b, c], [structuredClone(a), structuredClone(c)])!;
    expect(kept).toEqual([a, c]);
    expect(kept[0]).toBe(a);
    expect(kept[1]).toBe(c);
  });

  it("refuses a changed message, a new one, a reordering and a duplicate", () => {
    expect(subsetOf([a, b, c], [{ ...a, content: "changed" }])).toBeUndefined();
    expect(subsetOf([a, b, c], [a, { role: "user", content: "new", timestamp: 9 }])).toBeUndefined();
    expect(subsetOf([a, b, c], [c, a])).toBeUndefined();
    expect(subsetOf([a, b, c], [a, a])).toBeUndefined();
    expect(subsetOf([a, b, c], [])).toEqual([]);
  });

  it("matches equal messages greedily, so a subsequence is always found", () => {
    const x1 = { role: "user", content: "x", timestamp: 1 };
    const x2 = { role: "user", content: "x", timestamp: 1 };
    const kept = subsetOf([x1, b, x2], [structuredClone(x1), structuredClone(x1)])!;
    expect(kept[0]).toBe(x1);
    expect(kept[1]).toBe(x2);
  });
});

describe("sameData", () => {
  it("is data equality, a key holding undefined counting as absent (a JSON copy drops it)", () => {
    expect(sameData({ x: 1, y: undefined }, { x: 1 })).toBe(true);
    expect(sameData([1, { z: [2] }], [1, { z: [2] }])).toBe(true);
    expect(sameData({ x: 1 }, { x: 2 })).toBe(false);
    expect(sameData([1], { 0: 1 })).toBe(false);
  });

  it("compares Sets, Maps and Dates by what they hold: a hook that hands back the Set it was given changes nothing", () => {
    expect(sameData(new Date(0), new Date(0))).toBe(true);
    expect(sameData(new Date(Number.NaN), new Date(Number.NaN))).toBe(true);
    expect(sameData(new Date(0), new Date(1))).toBe(false);
    expect(sameData(new Date(0), 0)).toBe(false);
    expect(sameData({ read: new Set(["a.ts", "b.ts"]) }, { read: new Set(["b.ts", "a.ts"]) })).toBe(true);
    expect(sameData(new Set([{ x: 1 }]), new Set([{ x: 1 }]))).toBe(true);
    expect(sameData(new Set(["a.ts"]), new Set(["a.ts", "b.ts"]))).toBe(false);
    expect(sameData(new Set(["a.ts"]), ["a.ts"])).toBe(false);
    expect(sameData(new Map([["k", { n: 1 }]]), new Map([["k", { n: 1 }]]))).toBe(true);
    expect(sameData(new Map([["k", 1]]), new Map([["k", 2]]))).toBe(false);
    expect(sameData(new Map([["k", 1]]), { k: 1 })).toBe(false);
  });
});

describe("gateResult and gateEdits", () => {
  it("under substitute everything passes as it is", () => {
    const result = { content: [{ type: "text", text: "x" }] };
    expect(gateResult("tool_result", result, { content: [] }, "substitute")).toEqual({ result, refused: [] });
  });

  it("under restrict a substitute field is taken out, a restrict field beside it stays", () => {
    const out = gateResult("session_before_compact", { cancel: true, compaction: { summary: "s", firstKeptEntryId: "e", tokensBefore: 1 } }, {}, "restrict");
    expect(out).toEqual({ result: { cancel: true }, refused: [{ field: "compaction", effect: "substitute" }] });
  });

  it("a field set to what the handler received changes nothing, and the host's own value is applied", () => {
    const content = [{ type: "text", text: "same" }];
    const out = gateResult("tool_result", { content: structuredClone(content) }, { content }, "restrict");
    expect(out.refused).toEqual([]);
    expect((out.result as { content: unknown }).content).toBe(content);
  });

  it("input: continue observes, handled restricts, transform substitutes", () => {
    const input = { text: "hi" };
    expect(effectOf({ byValue: { continue: "observe", handled: "restrict", transform: "substitute" } }, "handled", undefined).effect).toBe("restrict");
    expect(gateResult("input", { action: "handled" }, input, "restrict")).toEqual({ result: { action: "handled" }, refused: [] });
    expect(gateResult("input", { action: "transform", text: "other" }, input, "restrict").result).toBeUndefined();
    expect(gateResult("input", { action: "continue" }, input, "observe").refused).toEqual([]);
  });

  it("before_provider_request: the whole result is the payload, refused whole", () => {
    expect(gateResult("before_provider_request", { model: "evil" }, { payload: { model: "m" } }, "restrict"))
      .toEqual({ result: undefined, refused: [{ field: "payload", effect: "substitute" }] });
  });

  it("context: a subset restricts (mapped to the host's objects), anything else substitutes", () => {
    const received = { messages: [a, b, c] };
    const kept = gateResult("context", { messages: [structuredClone(a)] }, received, "restrict");
    expect((kept.result as { messages: unknown[] }).messages[0]).toBe(a);
    expect(gateResult("context", { messages: [c, a] }, received, "restrict").refused).toEqual([{ field: "messages", effect: "substitute" }]);
    expect(gateEdits("context", { messages: [structuredClone(b)] }, received, "restrict").valid.messages).toEqual([b]);
  });

  it("edits: any change of a field (a deletion too) substitutes; unchanged ones observe", () => {
    const received = { toolName: "bash", toolCallId: "c", input: { command: "ls" } };
    expect(gateEdits("tool_call", { input: { command: "rm -rf /" } }, received, "restrict").refused).toEqual([{ field: "input", effect: "substitute" }]);
    expect(gateEdits("tool_call", { input: undefined }, received, "restrict").refused).toEqual([{ field: "input", effect: "substitute" }]);
    expect(gateEdits("tool_call", { input: { command: "ls" } }, received, "restrict").refused).toEqual([]);
  });
});
