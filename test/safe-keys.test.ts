/** The key gate (src/gates/safe-keys.ts) and the write-back of edits through it (src/runner/edits.ts). */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { applyEdits, checkEdits } from "../src/runner/edits.js";
import { forbiddenKeyPath, isSafeKey, keySafe } from "../src/gates/safe-keys.js";

const parse = (json: string) => JSON.parse(json) as unknown;

describe("the key gate", () => {
  it("finds an own __proto__, constructor or prototype key at any depth and names its path", () => {
    expect(forbiddenKeyPath(parse('{"a":[1,{"b":{"__proto__":{"x":1}}}]}'))).toEqual(["a", 1, "b", "__proto__"]);
    expect(forbiddenKeyPath(parse('{"constructor":{"prototype":{}}}'))).toEqual(["constructor"]);
    expect(forbiddenKeyPath([parse('{"prototype":1}')])).toEqual([0, "prototype"]);
    expect(forbiddenKeyPath(new Map([["k", parse('{"__proto__":1}')]]))).toEqual([0, "__proto__"]);
    expect(forbiddenKeyPath(new Set([parse('{"__proto__":1}')]))).toEqual([0, "__proto__"]);
  });

  it("passes plain data, cycles and shared values, each object walked once", () => {
    const shared = { x: 1 };
    const cyclic: Record<string, unknown> = { shared, again: shared, list: [shared] };
    cyclic.self = cyclic;
    expect(forbiddenKeyPath(cyclic)).toBeUndefined();
    expect(forbiddenKeyPath({ proto: 1, Constructor: 2, "__proto__x": 3, text: "__proto__" })).toBeUndefined();
    expect(forbiddenKeyPath(new Uint8Array(4))).toBeUndefined();
    // 2^40 paths, 41 objects: the walk is linear in objects, not paths.
    let dag: object = {};
    for (let i = 0; i < 40; i++) dag = { a: dag, b: dag };
    expect(forbiddenKeyPath(dag)).toBeUndefined();
  });

  it("finds a key past the quick walk's bounds: 150 levels down, behind a cycle, among 60,000 objects", () => {
    let deep: unknown = parse('{"__proto__":1}');
    for (let i = 0; i < 150; i++) deep = { d: deep };
    expect(forbiddenKeyPath(deep)).toHaveLength(151);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    cyclic.bad = parse('{"constructor":1}');
    expect(forbiddenKeyPath(cyclic)).toEqual(["bad", "constructor"]);
    const many = Array.from({ length: 60_000 }, () => ({ ok: 1 })) as unknown[];
    many.push(parse('{"prototype":1}'));
    expect(forbiddenKeyPath(many)).toEqual([60_000, "prototype"]);
  });

  it("refuses before the schema runs (zod alone silently drops a __proto__ key)", () => {
    const record = z.record(z.string(), z.unknown());
    expect(record.safeParse(parse('{"__proto__":{"x":1}}')).success).toBe(true);
    const gated = keySafe(record).safeParse(parse('{"__proto__":{"x":1}}'));
    expect(gated.success).toBe(false);
    expect(gated.error!.issues[0]).toMatchObject({ path: ["__proto__"], message: 'the key "__proto__" is refused: it names a prototype' });
    expect(keySafe(record).parse({ a: 1 })).toEqual({ a: 1 });
  });

  it("isSafeKey accepts indices and ordinary names, never the three", () => {
    expect([0, "a", "proto"].every(isSafeKey)).toBe(true);
    expect(["__proto__", "constructor", "prototype", Symbol("s")].some(isSafeKey)).toBe(false);
  });
});

describe("edits through the gate", () => {
  const event = () => ({ type: "tool_call", toolName: "bash", toolCallId: "c", input: { command: "ls", options: { cwd: "/w" } } as Record<string, unknown>, signal: new AbortController().signal });

  it("only fields the event holds (or its type's optional ones) are editable; type, prototype names, AbortSignals and new fields are refused", () => {
    const e = event();
    const edits = parse('{"type":"x","__proto__":{"x":1},"constructor":1,"signal":{},"injected":1,"toolName":"read"}') as Record<string, unknown>;
    const { valid, refused } = checkEdits(edits, e);
    expect(Object.getPrototypeOf(valid)).toBeNull();
    expect({ ...valid }).toEqual({ toolName: "read" });
    expect(refused).toEqual([
      { field: "__proto__", detail: "it is not an editable field of the event" },
      { field: "constructor", detail: "it is not an editable field of the event" },
      { field: "signal", detail: "the host's value there is not plain data" },
      { field: "injected", detail: "it is not a field of this event" },
    ]);
    expect(checkEdits({ images: [] }, { type: "before_agent_start", prompt: "p" }).refused).toEqual([]);
  });

  it("applies the parsed value in place, keeping the host's objects, and never writes through a prototype key", () => {
    const e = event();
    const options = e.input.options;
    const { valid } = checkEdits({ input: { command: "ls -l", options: { cwd: "/x" } } }, e);
    applyEdits(e, valid);
    expect(e.input).toEqual({ command: "ls -l", options: { cwd: "/x" } });
    expect(e.input.options).toBe(options);
    // The second lock: a value that reached applyEdits unchecked still cannot walk a prototype.
    const raw = Object.assign(Object.create(null), { input: parse('{"command":"x","__proto__":{"pollutedHere":1},"constructor":{"prototype":{"pollutedHere":1}}}') });
    applyEdits(e, raw);
    expect(Object.hasOwn(Object.prototype, "pollutedHere")).toBe(false);
    expect(e.input).toEqual({ command: "x" });
  });
});
