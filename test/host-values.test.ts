/**
 * Values cross the wire as the contract's types in every isolation mode: structured clone in a
 * worker, the framed channel's codec (worker/wire.mjs) in a child process and a sandbox. A Set,
 * a Map, a Date, a key whose value is undefined, holes, NaN and -0 reach a hook and come back
 * unchanged, and the gates hold on what only those types can carry: a Set where an array is
 * wanted, prototype keys inside a Set or a Map, Sets nested past the depth bound or over the size
 * bound, an object shared 2^60 ways.
 */
import { describe, expect, it } from "vitest";
import { start, until } from "./helpers/host.js";
import { describeValue, made } from "../fixtures/valid/echoes-structured-values.js";
import { ISOLATION } from "./support/isolation.js";

const codes = (errors: Array<{ code: string }>) => errors.map((e) => e.code);

/** A session_before_compact as pi builds it: `fileOps` of Sets, `customInstructions` present and undefined. */
function compaction() {
  return {
    type: "session_before_compact" as const, customInstructions: undefined, signal: new AbortController().signal,
    // Seen by the hook, not sent back: a BigInt crosses to a hook, never from one (the size gate refuses it in every mode).
    branchEntries: [{ type: "custom", id: "e0", parentId: null, timestamp: "2026-01-01T00:00:00.000Z", customType: "big", data: { big: 2n ** 70n, at: new Date(0) } }],
    preparation: {
      firstKeptEntryId: "e1", messagesToSummarize: [], turnPrefixMessages: [], recentMessages: [], isSplitTurn: false, tokensBefore: 5,
      fileOps: { read: new Set(["src/a.ts"]), written: new Set<string>(), edited: new Set(["src/b.ts", "src/c.ts"]) },
      settings: { enabled: true, reserveTokens: 16_384, keepRecentTokens: 20_000 }, previousSummary: undefined,
      extra: made(),
    },
  };
}

describe("the contract's values cross unchanged", () => {
  it("a hook sees session_before_compact's Sets, Map, Date, BigInt, undefined keys, holes, NaN and -0 as the host built them", async () => {
    const { runner, errors } = await start(["valid/echoes-structured-values.ts"]);
    const event = compaction();
    const result = (await runner.emit(event as never)) as { compaction: { summary: string } };
    expect(errors).toEqual([]);
    const { type: _, signal: __, ...seen } = event;
    expect(JSON.parse(result.compaction.summary)).toEqual(describeValue({ ...seen, hasCustomInstructions: true }));
    expect(result.compaction.summary).toContain('"read":{"Set":["string:src/a.ts"]}');
  });

  it("what the hook returns, sends and appends comes back as it built it: Sets, Maps, Dates, undefined keys, holes, NaN, -0, one object shared", async () => {
    const { runner, errors, sent, entries } = await start(["valid/echoes-structured-values.ts"]);
    const event = compaction();
    const result = (await runner.emit(event as never)) as { compaction: { details: { preparation: unknown; customInstructions: unknown; made: ReturnType<typeof made> } } };
    expect(errors).toEqual([]);
    const { details } = result.compaction;
    expect(details).toStrictEqual({ preparation: event.preparation, customInstructions: undefined, made: made() });
    expect(Object.hasOwn(details, "customInstructions")).toBe(true);
    expect(details.made.first).toBe(details.made.second);
    expect(Object.is(details.made.numbers[1], -0)).toBe(true);
    expect(details.made.invalidDate.getTime()).toBeNaN();
    await until(() => sent.length > 0 && entries.length > 0, 5_000, "the message and the entry");
    expect(sent[0]!.message.details).toStrictEqual(made());
    expect(entries[0]).toStrictEqual(["values", made()]);
  });
});

describe("the contract's values are the same data when they come back", () => {
  it("a hook that hands back the Sets, Map and Date it was given has no effect: under effects restrict nothing is refused", async () => {
    const restricted = ISOLATION === "sandbox" ? "untrusted" as const : { effects: "restrict" as const };
    const { runner, errors } = await start(["valid/echoes-structured-values.ts"], { load: { policy: restricted } });
    const details = { fileOps: { read: new Set(["a.ts"]), edited: new Set<string>() }, seen: new Map([["a.ts", new Date(0)]]) };
    const event = { ...toolResult("echo"), details };
    const result = (await runner.emit(event)) as { details: unknown };
    expect(errors).toEqual([]);
    // The same data: the agent keeps its own object.
    expect(result.details).toBe(details);
  });
});

const toolResult = (toolCallId: string) => ({ type: "tool_result" as const, toolName: "read", toolCallId, input: {}, content: [{ type: "text" as const, text: "fine" }], isError: false });

describe("the gates hold on what Sets, Maps and shared objects can carry", () => {
  it("a Set where the schema wants an array reaches the schema as a Set and is refused as invalid_result", async () => {
    const { runner, errors } = await start(["hostile/returns-structured-values.ts"]);
    expect(await runner.emit(toolResult("set-for-array"))).toBeUndefined();
    expect(codes(errors)).toEqual(["invalid_result"]);
    expect(errors[0]!.error).toContain("content: Invalid input: expected array, received Set");
  });

  it("prototype keys inside a Set and a Map are refused by the key gate as invalid_result, naming the path", async () => {
    const { runner, errors } = await start(["hostile/returns-structured-values.ts"]);
    expect(await runner.emit(toolResult("proto-in-set"))).toBeUndefined();
    expect(await runner.emit(toolResult("constructor-in-map"))).toBeUndefined();
    expect(codes(errors)).toEqual(["invalid_result", "invalid_result"]);
    expect(errors[0]!.error).toContain('details.s.1.__proto__: the key "__proto__" is refused');
    expect(errors[1]!.error).toContain('details.0.constructor: the key "constructor" is refused');
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("Sets nested past the depth bound are refused as invalid_result, returned or forged onto the wire", async () => {
    const { runner, errors } = await start(["hostile/returns-structured-values.ts"]);
    expect(await runner.emit(toolResult("deep-sets"))).toBeUndefined();
    expect(await runner.emit(toolResult("forged-deep-sets"))).toBeUndefined();
    expect(codes(errors)).toEqual(["invalid_result", "invalid_result"]);
    for (const e of errors) expect(e.error).toContain("deeper than 64 levels");
  });

  it("a Set or a Map holding more than maxMessageBytes is refused as result_too_large, returned or forged onto the wire", async () => {
    const { runner, errors } = await start(["hostile/returns-structured-values.ts"], { load: { maxMessageBytes: 1_000_000 } });
    expect(await runner.emit(toolResult("big-set"))).toBeUndefined();
    expect(await runner.emit(toolResult("forged-big-map"))).toBeUndefined();
    expect(codes(errors)).toEqual(["result_too_large", "result_too_large"]);
  });

  it("an object shared 2^60 ways (60 nodes) is walked to the size bound only and refused as result_too_large", async () => {
    const { runner, errors } = await start(["hostile/returns-structured-values.ts"]);
    expect(await runner.emit(toolResult("forged-shared"))).toBeUndefined();
    expect(codes(errors)).toEqual(["result_too_large"]);
  });
});
