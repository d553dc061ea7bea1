/**
 * Class 5 of issue 22: what a hook's renderers send to the host's UI is bounded in size (lines ×
 * characters per render) and in host time (a budget per second; over it, default rendering).
 * Renderers are synchronous in worker mode only.
 */
import { describe, expect, it } from "vitest";
import { createNoOpUIContext } from "../src/index.js";
import { LIMITS } from "../worker/wire.mjs";
import { start } from "./helpers/host.js";
import { ISOLATION } from "./support/isolation.js";

const theme = createNoOpUIContext().theme;
const message = (customType: string) => ({ role: "custom" as const, customType, content: "", display: true, timestamp: 0 });

describe.runIf(ISOLATION === "worker")("render bounds", () => {
  it("a render of 60 M characters reaches the UI cut to 1000 lines of 4096 characters with a marker, reported once as result_too_large, without blocking the host", async () => {
    // Budget and timeout out of the way: this test is about size.
    const { runner, errors } = await start(["hostile/renders-huge-lines.ts"], { load: { renderTimeoutMs: 5_000, renderBudgetMs: 60_000 } });
    const component = runner.getMessageRenderer("huge")!(message("huge"), { expanded: false }, theme)!;
    let blocked = 0;
    for (let i = 0; i < 4; i++) {
      const t0 = performance.now();
      const lines = component.render(80);
      blocked += performance.now() - t0;
      expect(lines).toHaveLength(LIMITS.renderLines);
      expect(lines.slice(0, -1).every((l) => l.length <= LIMITS.renderLineChars + 4)).toBe(true);
      expect(lines[0]!.endsWith("\x1b[0m…")).toBe(true);
      expect(lines.at(-1)).toBe("… (hookbox cut this render: more than 1000 lines)");
    }
    expect(errors.map((e) => [e.code, e.event])).toEqual([["result_too_large", "render"]]);
    expect(errors[0]!.error).toContain("rendered more than 1000 lines or a line over 4096 characters");
    // Loose: the unbounded render copied 60 M characters each time (519 ms over 4 calls in the report).
    expect(blocked).toBeLessThan(400);
  });

  it("a renderer taking 85 ms of a 100 ms timeout, rendered 30 times, is demoted to default rendering once over its 250 ms budget, reported once as timeout", async () => {
    const { runner, errors } = await start(["hostile/renders-slowly-under-the-timeout.ts"], { load: { renderTimeoutMs: 100 } });
    const render = runner.getMessageRenderer("slow")!;
    const component = render(message("slow"), { expanded: false }, theme)!;
    expect(component).toBeDefined();
    let blocked = 0;
    const frames: string[][] = [];
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      frames.push(component.render(80));
      blocked += performance.now() - t0;
    }
    // Every fault is a timeout; exactly one is the budget's (a loaded machine may also time out a render).
    expect(new Set(errors.map((e) => [e.code, e.event].join(" ")))).toEqual(new Set(["timeout render"]));
    const budget = errors.filter((e) => e.error.includes("the renderBudgetMs option"));
    expect(budget).toHaveLength(1);
    expect(budget[0]!.error).toContain("its messages and components use default rendering from now on");
    // Demoted: no more renders in the worker, default rendering for new messages.
    expect(frames.slice(-20).every((f) => f.length === 0)).toBe(true);
    expect(render(message("slow"), { expanded: false }, theme)).toBeUndefined();
    // Loose bound: the budget (250 ms) plus at most one render over it, never the 2.5 s of 30 renders.
    expect(blocked).toBeLessThan(250 * 2);
  });

  it("a renderer within the budget keeps rendering", async () => {
    const { runner, errors } = await start(["valid/renders-deploy-card.ts"], { load: { renderTimeoutMs: 5_000 } });
    const component = runner.getMessageRenderer("deploy")!({ ...message("deploy"), content: "v1" }, { expanded: false }, theme)!;
    for (let i = 0; i < 100; i++) expect(component.render(80)).toHaveLength(1);
    expect(errors).toEqual([]);
  });
});
