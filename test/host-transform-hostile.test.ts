import { describe, expect, it } from "vitest";
import { start, toolCall } from "./support/runner.js";

const sessionStart = () => ({ type: "session_start" as const });

describe("the transform cache is the host's", () => {
  it("a confined hook cannot list, read or write the transform cache, and a trusted hook loaded later from the same file runs the original code", async () => {
    const hostile = await start(["hostile/rewrites-transform-cache.ts"]);
    await hostile.runner.emit(sessionStart() as never);
    expect(hostile.errors.map((e) => e.code)).toEqual(["handler_threw"]);
    expect(hostile.errors[0]!.error).toContain("transform cache: ERR_ACCESS_DENIED ERR_ACCESS_DENIED ERR_ACCESS_DENIED ERR_ACCESS_DENIED");
    await hostile.runner.dispose();

    const trusted = await start(["hostile/rewrites-transform-cache.ts"], { policy: "trusted" });
    expect(await trusted.runner.emitToolCall(toolCall())).toBeUndefined();
    expect(trusted.errors).toEqual([]);
  });
});
