import { describe, expect, it } from "vitest";
import { HookFailure } from "../src/contract/errors.js";
import { RenderGuard } from "../src/isolation/render-guard.js";
import { TransformBudget, TRANSFORM_WINDOW_MS } from "../src/transform/budget.js";

const src = (characters: number) => ({ source: "x".repeat(characters), filename: "/h/a.ts" });

describe("TransformBudget", () => {
  it("refuses one file over its fileCharacters as protocol_violation, naming the file and the option, before charging it", () => {
    const budget = new TransformBudget("hook.ts", { fileCharacters: 10, characters: 100 });
    let refused: unknown;
    try { budget.admit(src(11), 0); } catch (err) { refused = err; }
    expect((refused as HookFailure).code).toBe("protocol_violation");
    expect((refused as HookFailure).event).toBe("transform");
    expect((refused as HookFailure).message).toContain('"/h/a.ts" is 11 characters, over the 10');
    expect((refused as HookFailure).message).toContain("transformBudget.fileCharacters");
    for (let i = 0; i < 10; i++) budget.admit(src(10), 1);
  });

  it("admits sources up to its characters per window, refuses the one over as protocol_violation, and starts again in the next window", () => {
    const budget = new TransformBudget("hook.ts", { characters: 100, ms: 1_000 });
    budget.admit(src(60), 0);
    budget.admit(src(40), 1);
    let refused: unknown;
    try { budget.admit(src(1), 2); } catch (err) { refused = err; }
    expect(refused).toBeInstanceOf(HookFailure);
    expect((refused as HookFailure).code).toBe("protocol_violation");
    expect((refused as HookFailure).message).toContain("transformBudget.characters");
    budget.admit(src(100), TRANSFORM_WINDOW_MS + 1);
  });

  it("refuses a request once the thread time charged in the window reaches its ms", () => {
    const budget = new TransformBudget("hook.ts", { characters: 1e9, ms: 100 });
    budget.admit(src(1), 0);
    budget.charge(100, 1);
    expect(() => budget.admit(src(1), 2)).toThrow(/transformBudget\.ms/);
  });
});

describe("RenderGuard", () => {
  it("demotes once the host time charged within one second passes the budget, and reports that once as timeout", () => {
    const reports: HookFailure[] = [];
    const guard = new RenderGuard("hook.ts", 100, {}, (f) => reports.push(f));
    guard.charge(60, 0);
    guard.charge(30, 500);
    expect(guard.allowed).toBe(true);
    guard.charge(60, 1_200); // a new window
    expect(guard.allowed).toBe(true);
    guard.charge(50, 1_300);
    expect(guard.allowed).toBe(false);
    guard.charge(500, 1_400);
    expect(reports.map((r) => [r.code, r.event])).toEqual([["timeout", "render"]]);
  });

  it("cuts lines to the width's bound and the line count with a marker, gates them, and reports the cut once", () => {
    const reports: HookFailure[] = [];
    const guard = new RenderGuard("hook.ts", 100, { colors: false }, (f) => reports.push(f));
    expect(guard.lines(["\x1b[31mok\x1b[0m\x1b]0;t\x07"], 10)).toEqual(["ok"]);
    const out = guard.lines(Array(1_500).fill("y".repeat(300)), 10);
    expect(out).toHaveLength(1_000);
    expect(out[0]).toBe(`${"y".repeat(255)}…`);
    expect(out.at(-1)).toBe("… (hookbox cut this render: more than 1000 lines)");
    guard.lines(["z".repeat(300)], 10);
    expect(reports.map((r) => r.code)).toEqual(["result_too_large"]);
  });
});
