/**
 * What a hook's renderers send to the host's UI is bounded in size (lines ×
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
  it("a render of 60 M characters reaches the UI cut to 1000 lines of 8 characters per column with a marker, reported once as result_too_large, and the host is not blocked beyond the render budget", async () => {
    const { runner, errors } = await start(["hostile/renders-huge-lines.ts"], { load: { renderTimeoutMs: 5_000 } });
    const component = runner.getMessageRenderer("huge")!(message("huge"), { expanded: false }, theme)!;
    let blocked = 0;
    const frames: string[][] = [];
    for (let i = 0; i < 4; i++) {
      const t0 = performance.now();
      frames.push(component.render(80));
      blocked += performance.now() - t0;
    }
    // The first render is always given (cut); a loaded machine may demote the hook after it (then []).
    for (const lines of frames.filter((f) => f.length > 0)) {
      expect(lines).toHaveLength(LIMITS.renderLines);
      expect(lines.slice(0, -1).every((l) => l === `${"x".repeat(639)}\x1b[0m…`)).toBe(true);
      expect(lines.at(-1)).toBe("… (hookbox cut this render: more than 1000 lines)");
    }
    expect(frames[0]).toHaveLength(LIMITS.renderLines);
    const cut = errors.filter((e) => e.code === "result_too_large");
    expect(cut.map((e) => e.event)).toEqual(["render"]);
    expect(cut[0]!.error).toContain("rendered more than 1000 lines or a line over 640 characters (for a width of 80)");
    expect(errors.every((e) => e.code === "result_too_large" || (e.code === "timeout" && e.event === "render"))).toBe(true);
    // Loose: the unbounded render copied 60 M characters each time (519 ms over 4 calls in the report).
    expect(blocked).toBeLessThan(500 * 2);
  });

  it("a renderer taking 85 ms of a 100 ms timeout, rendered 30 times, is demoted to default rendering once over its 500 ms budget, reported once as timeout", async () => {
    const { runner, errors } = await start(["hostile/renders-slowly-under-the-timeout.ts"], { load: { renderTimeoutMs: 100 } });
    const render = runner.getMessageRenderer("slow")!;
    const component = render(message("slow"), { expanded: false }, theme)!;
    expect(component).toBeDefined();
    let blocked = 0;
    const frames: string[][] = [];
    // The render after which the budget's report came (it is reported as the render that spent it ends).
    let demotedAt = -1;
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      frames.push(component.render(80));
      blocked += performance.now() - t0;
      if (demotedAt < 0 && errors.some((e) => e.error.includes("the renderBudgetMs option"))) demotedAt = i;
    }
    // Every fault is a timeout; exactly one is the budget's (a loaded machine may also time out a render).
    expect(new Set(errors.map((e) => [e.code, e.event].join(" ")))).toEqual(new Set(["timeout render"]));
    const budget = errors.filter((e) => e.error.includes("the renderBudgetMs option"));
    expect(budget).toHaveLength(1);
    expect(budget[0]!.error).toContain("its messages and components use default rendering from now on");
    // Demoted: no more renders in the worker from then on, default rendering for new messages. Which
    // render spends the budget depends on the machine (the budget is host time per one-second window:
    // a loaded machine that stalls the host between renders starts a new window), not whether.
    expect(demotedAt).toBeGreaterThanOrEqual(0);
    expect(demotedAt).toBeLessThan(29);
    expect(frames.slice(demotedAt + 1).every((f) => f.length === 0)).toBe(true);
    expect(render(message("slow"), { expanded: false }, theme)).toBeUndefined();
    // Loose bound: the budget (500 ms) plus at most one render over it, never the 2.5 s of 30 renders.
    expect(blocked).toBeLessThan(500 * 2);
  });

  it("a renderer within the budget keeps rendering: a frame every 16 ms for a second", async () => {
    const { runner, errors } = await start(["valid/renders-deploy-card.ts"], { load: { renderTimeoutMs: 5_000 } });
    const component = runner.getMessageRenderer("deploy")!({ ...message("deploy"), content: "v1" }, { expanded: false }, theme)!;
    for (let i = 0; i < 60; i++) {
      expect(component.render(80)).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 16));
    }
    expect(errors).toEqual([]);
  });
});
