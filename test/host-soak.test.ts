import { describe, expect, it } from "vitest";
import { HookFailure } from "../src/index.js";
import { start } from "./helpers/host.js";

/** A deterministic PRNG so a failing soak can be replayed (mulberry32). */
function random(seed: number) {
  return () => {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FAULTS = [["throw", 0.04], ["hang", 0.02], ["exit", 0.004], ["invalid", 0.03]] as const;

describe("nothing lost", () => {
  it("thousands of events with random faults all settle, and a surviving hook's messages arrive once each, in order", async () => {
    const { runner, errors, sent } = await start(["valid/sends-sequence.ts", "faulty/fails-on-command.ts", "valid/redacts-api-key.ts"], { load: { deadlines: { tool_call: 100 }, maxRestarts: 1_000 } });
    const rand = random(20261202);
    const EVENTS = 2_000;
    const injected: Record<string, number> = {};
    let settled = 0;
    let threw = 0;
    for (let seq = 0; seq < EVENTS; seq++) {
      let fault: string | undefined;
      const r = rand();
      let edge = 0;
      for (const [name, p] of FAULTS) if (fault === undefined && r < (edge += p)) fault = name;
      if (fault) injected[fault] = (injected[fault] ?? 0) + 1;
      try {
        await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: `c${seq}`, input: { seq, fault } });
      } catch (err) {
        expect(err).toBeInstanceOf(HookFailure);
        expect((err as HookFailure).code).toBe("handler_threw");
        threw++;
      }
      settled++;
    }
    expect(settled).toBe(EVENTS);
    // A planned throw while the hook restarts after an exit is a block instead.
    expect(threw).toBeGreaterThan(0);
    expect(threw).toBeLessThanOrEqual(injected.throw!);
    // The surviving hook saw every call: each of its messages arrived exactly once, in order.
    expect(sent.map((s) => Number(s.message.content))).toEqual(Array.from({ length: EVENTS }, (_, i) => i));
    const codes = new Set(errors.map((e) => e.code));
    for (const code of ["timeout", "crashed", "invalid_result"]) expect(codes).toContain(code);
    expect(injected.exit).toBeGreaterThan(0);
  }, 120_000);
});

describe("dispose", () => {
  it("after dispose no worker, port or timer is left and the process exits by itself", async () => {
    const { execFileSync } = await import("node:child_process");
    const out = execFileSync(process.execPath, ["--import", "tsx", new URL("./support/dispose-and-report.mts", import.meta.url).pathname], { encoding: "utf8", timeout: 60_000 });
    const report = JSON.parse(out.trim().split("\n").pop()!) as { states: string[]; resources: string[] };
    expect(report.states).toEqual(["disposed", "disposed", "disposed"]);
    expect(report.resources.filter((r) => /Worker|MessagePort|Timeout|Immediate/.test(r))).toEqual([]);
  }, 90_000);
});
