import { describe, expect, it } from "vitest";
import { start, until } from "./helpers/host.js";
import { toolCall, turnStart } from "./helpers/events.js";

describe("size limits", () => {
  it("a result over maxMessageBytes is refused as result_too_large and not applied", async () => {
    const { runner, errors } = await start(["faulty/returns-oversized-result.ts"], { load: { maxMessageBytes: 1_000_000 } });
    const out = await runner.emit({ type: "tool_result", toolName: "read", toolCallId: "r", input: {}, content: [], isError: false });
    expect(out).toBeUndefined();
    expect(errors.map((e) => e.code)).toEqual(["result_too_large"]);
    expect(errors[0]!.error).toContain("1000000-byte limit");
  });

  it("a log line over maxMessageBytes is refused as result_too_large", async () => {
    const lines: string[] = [];
    const { runner, errors } = await start(["faulty/returns-oversized-result.ts"], { load: { maxMessageBytes: 1_000_000, onLog: (_p, _l, line) => lines.push(line) } });
    await runner.emit(turnStart());
    await until(() => errors.length > 0, 5_000, "the report");
    expect(errors.map((e) => e.code)).toEqual(["result_too_large"]);
    expect(lines).toEqual([]);
  });
});

describe("synchronous calls", () => {
  /** A host whose getLeafId holds its event loop for `ms` before answering. */
  const slowHost = (ms: number) => ({ getLeafId: () => { const until = performance.now() + ms; while (performance.now() < until); return "leaf-1"; } });

  it("a synchronous ctx call the host does not answer within syncTimeoutMs throws in the hook, naming the method and the bound; the control: answered within it, it returns", async () => {
    const { runner, errors } = await start(["valid/reads-the-session-leaf.ts"], { sessionManager: slowHost(600), load: { syncTimeoutMs: 150 } });
    expect(await runner.emitToolCall(toolCall())).toEqual({ block: true, reason: expect.stringMatching(/^threw: ctx\.sessionManager\.getLeafId\(\): hookbox: the host did not answer \S+ within 150 ms$/) });
    expect(errors).toEqual([]);
    const within = await start(["valid/reads-the-session-leaf.ts"], { sessionManager: slowHost(20), load: { syncTimeoutMs: 2_000 } });
    expect(await within.runner.emitToolCall(toolCall())).toEqual({ block: true, reason: "leaf: leaf-1" });
  });
});
