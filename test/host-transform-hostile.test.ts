import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadHooks, type HookRunner } from "../src/index.js";
import { tempDir } from "./helpers/files.js";
import { fixture, start, until } from "./helpers/host.js";
import { toolCall } from "./helpers/events.js";
import { ISOLATION } from "./support/isolation.js";

const sessionStart = () => ({ type: "session_start" as const });

/**
 * A real measurement of what a hog costs the host: its resident memory, sampled every 5 ms while
 * `run` goes (the transform thread lives in the host process in every mode; in worker mode the
 * hook's own worker too, so that mode is the strictest).
 */
async function hostGrowthMb(run: () => Promise<void>): Promise<number> {
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 5);
  try {
    await run();
  } finally {
    clearInterval(sampler);
  }
  return (peak - base) / 2 ** 20;
}

const redacted = async (runner: HookRunner) => expect(await runner.emit({ type: "tool_result", toolName: "read", toolCallId: "r", input: {}, content: [{ type: "text", text: "API_KEY=k" }], isError: false }))
  .toEqual({ content: [{ type: "text", text: "API_KEY=[REDACTED]" }] });

describe("the transform thread's memory is bounded", () => {
  it("six 7.9 M-character sources are refused by the size of one file as protocol_violation naming the file and the option; the host grows by less than 150 MB", async () => {
    const { runner, errors } = await start(["hostile/floods-transform-thread-memory.ts", "valid/redacts-api-key.ts"]);
    const growth = await hostGrowthMb(async () => {
      await runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 0 });
      await until(() => errors.length >= 6, 30_000, "six refusals");
    });
    expect(errors.map((e) => e.code)).toEqual(Array(6).fill("protocol_violation"));
    expect(errors.every((e) => e.hookPath.endsWith("floods-transform-thread-memory.ts") && e.event === "transform")).toBe(true);
    errors.forEach((e, i) => expect(e.error).toMatch(new RegExp(`"/forged/hog-${i}\\.ts" is 79000\\d\\d characters, over the 1048576 one file may have to be transformed by the host \\(the transformBudget\\.fileCharacters option\\); refused\\. Split the file`)));
    expect(growth).toBeLessThan(150);
    await redacted(runner);
  });

  it("a source under that size that needs more than the thread's heap is refused at the heap bound as protocol_violation naming the file; the host grows by less than 150 MB and the thread comes back", async () => {
    const { runner, errors } = await start(["hostile/exhausts-transform-heap.ts"]);
    const growth = await hostGrowthMb(async () => {
      await runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 0 });
      await until(() => errors.length >= 1, 60_000, "a refusal");
    });
    expect(errors.map((e) => e.code)).toEqual(["protocol_violation"]);
    expect(errors[0]!.event).toBe("transform");
    expect(errors[0]!.error).toContain('transforming "/forged/dense.ts" took more than the 96 MB heap of the host\'s transform thread; refused. Split the file');
    expect(growth).toBeLessThan(150);
    // A hook loaded now (no cache) still gets its TypeScript transformed, by a new thread.
    const after = await start(["valid/redacts-api-key.ts"], { load: { transformCacheDir: false } });
    await redacted(after.runner);
  });
});

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
    const { runner, errors } = await start(["hostile/floods-transform-requests.ts", "valid/redacts-api-key.ts"], { load: { transformBudget } });
    await runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 0 });
    const budget = () => errors.filter((e) => /transform budget|over its budget/.test(e.error));
    await until(() => budget().length >= 1, 20_000, "a budget refusal");
    return { runner, errors, budget: budget() };
  };

  it("sources over the hook's transformBudget.characters are refused as protocol_violation, naming the option; other hooks are untouched", async () => {
    // One 900 K-character source fits, the next one admitted does not (one forged while another runs is refused anyway).
    const { runner, errors, budget } = await flood({ characters: 1_000_000 });
    expect(new Set(errors.map((e) => e.code))).toEqual(new Set(["protocol_violation"]));
    expect(errors.every((e) => e.hookPath.endsWith("floods-transform-requests.ts"))).toBe(true);
    expect(budget[0]!.error).toContain("would take the hook over its transform budget");
    expect(budget[0]!.error).toContain("the transformBudget.characters option");
    expect(budget[0]!.event).toBe("transform");
    expect(await runner.emit({ type: "tool_result", toolName: "read", toolCallId: "r", input: {}, content: [{ type: "text", text: "API_KEY=k" }], isError: false }))
      .toEqual({ content: [{ type: "text", text: "API_KEY=[REDACTED]" }] });
  });

  it("transforms over the hook's transformBudget.ms of the host's thread are refused as protocol_violation, naming the option", async () => {
    const { errors, budget } = await flood({ ms: 20 });
    expect(new Set(errors.map((e) => e.code))).toEqual(new Set(["protocol_violation"]));
    expect(budget[0]!.error).toContain("the transformBudget.ms option");
  });
});
