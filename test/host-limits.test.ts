import { describe, expect, it } from "vitest";
import { start, until } from "./helpers/host.js";
import { turnStart } from "./helpers/events.js";

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
