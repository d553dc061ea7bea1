import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadHooks } from "../src/index.js";
import { tempDir } from "./helpers/files.js";
import { fixture, start, until } from "./helpers/host.js";
import { toolCall } from "./helpers/events.js";
import { ISOLATION } from "./support/isolation.js";

const sessionStart = () => ({ type: "session_start" as const });

describe("the transform cache is the host's", () => {
  it("a transform request with Babel options beyond the source-map fields, or a source over 16 MiB, is refused as protocol_violation", async () => {
    // A message bound above the source's, so that it is the transform row's own bound that refuses it.
    const { runner, errors } = await start(["hostile/forges-transform-options.ts", "valid/redacts-api-key.ts"], { load: { maxMessageBytes: 64 * 1024 * 1024 } });
    await runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 0 });
    await until(() => errors.length >= 4, 10_000, "four reports");
    expect(errors.map((e) => e.code)).toEqual(Array(4).fill("protocol_violation"));
    expect(errors.map((e) => e.error).join("\n")).toMatch(/bad arguments to transform/);
  });

  it("a confined hook cannot list, read or write the transform cache, and a trusted hook loaded later from the same file runs the original code", async () => {
    const hostile = await start(["hostile/rewrites-transform-cache.ts"]);
    await hostile.runner.emit(sessionStart() as never);
    expect(hostile.errors.map((e) => e.code)).toEqual(["handler_threw"]);
    expect(hostile.errors[0]!.error).toContain("transform cache: ERR_ACCESS_DENIED ERR_ACCESS_DENIED ERR_ACCESS_DENIED ERR_ACCESS_DENIED");
    await hostile.runner.dispose();

    const trusted = await start(["hostile/rewrites-transform-cache.ts"], { load: { policy: "trusted" } });
    expect(await trusted.runner.emitToolCall(toolCall())).toBeUndefined();
    expect(trusted.errors).toEqual([]);
  });

  it("a confined hook whose policy reaches the transform cache folder does not load, so it can neither read nor poison the cache", async () => {
    const cache = join(tempDir(), "cache");
    for (const policy of [{ fsWrite: [tmpdir()] }, { fsRead: [join(cache, "..")] }, { fsRead: ["/"] }]) {
      const { hooks, errors } = await loadHooks([fixture("valid/redacts-api-key.ts")], process.cwd(), { isolation: ISOLATION, transformCacheDir: cache, policy });
      expect(hooks).toEqual([]);
      expect(errors.map((e) => e.code)).toEqual(["load_failed"]);
      expect(errors[0]!.error).toContain("transform cache");
    }
  });
});

describe("the transform thread is charged to the hook that asks", () => {
  const flood = async (transformBudget: object) => {
    // A message bound above the sources' (7.9 M characters), so that it is the budget that refuses them.
    const { runner, errors } = await start(["hostile/floods-transform-requests.ts", "valid/redacts-api-key.ts"], { load: { maxMessageBytes: 64 * 1024 * 1024, transformBudget } });
    await runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 0 });
    const budget = () => errors.filter((e) => /transform budget|over its budget/.test(e.error));
    await until(() => budget().length >= 1, 20_000, "a budget refusal");
    return { runner, errors, budget: budget() };
  };

  it("sources over the hook's transformBudget.characters are refused as protocol_violation, naming the option; other hooks are untouched", async () => {
    // One 7.9 M-character source fits, the next one admitted does not (one forged while another runs is refused anyway).
    const { runner, errors, budget } = await flood({ characters: 10_000_000 });
    expect(new Set(errors.map((e) => e.code))).toEqual(new Set(["protocol_violation"]));
    expect(errors.every((e) => e.hookPath.endsWith("floods-transform-requests.ts"))).toBe(true);
    expect(budget[0]!.error).toContain("would take the hook over its transform budget");
    expect(budget[0]!.error).toContain("the transformBudget.characters option");
    expect(budget[0]!.event).toBe("transform");
    expect(await runner.emit({ type: "tool_result", toolName: "read", toolCallId: "r", input: {}, content: [{ type: "text", text: "API_KEY=k" }], isError: false }))
      .toEqual({ content: [{ type: "text", text: "API_KEY=[REDACTED]" }] });
  });

  it("transforms over the hook's transformBudget.ms of the host's thread are refused as protocol_violation, naming the option", async () => {
    const { errors, budget } = await flood({ ms: 50 });
    expect(new Set(errors.map((e) => e.code))).toEqual(new Set(["protocol_violation"]));
    expect(budget[0]!.error).toContain("the transformBudget.ms option");
  });
});
