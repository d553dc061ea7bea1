/** The host releases the components it no longer renders, and never blames the hook for it. */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../worker/wire.mjs";
import { start } from "./helpers/host.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
/** Collect garbage and let the finalizers it queued run. */
async function collect(): Promise<void> {
  gc();
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
}

const card = (content: string) => ({ role: "hookMessage", customType: "card", content, display: true, timestamp: 1 }) as never;

async function cards() {
  const host = await start(["renders-counted-cards"]);
  const render = host.runner.getMessageRenderer("card")!;
  return { ...host, create: (content: string) => render(card(content), { expanded: false }, undefined as never)! };
}

describe("rendered components", () => {
  it("a component created before more than the bound of others still renders its message, created again, and no error is reported", async () => {
    const { create, errors } = await cards();
    const first = create("first");
    const others = Array.from({ length: LIMITS.maxComponents + 10 }, (_, i) => create(`m${i}`));
    expect(first.render(80)).toEqual(["first created 2x"]);
    expect(others.at(-1)!.render(80)).toEqual([`m${LIMITS.maxComponents + 9} created 1x`]);
    expect(errors).toEqual([]);
  });

  it("a component rendered recently stays in the worker while older ones are released", async () => {
    const { create, errors } = await cards();
    const kept = create("kept");
    const old = create("old");
    for (let i = 0; i < LIMITS.maxComponents + 10; i++) {
      create(`m${i}`);
      kept.render(80);
    }
    expect(kept.render(80)).toEqual(["kept created 1x"]);
    expect(old.render(80)).toEqual(["old created 2x"]);
    expect(errors).toEqual([]);
  });

  it("a stand-in the TUI drops releases its component, so the ones it still holds stay in the worker", async () => {
    const { create, errors } = await cards();
    const kept = create("kept");
    for (let batch = 0; batch < 3; batch++) {
      for (let i = 0; i < LIMITS.maxComponents / 2; i++) create(`dropped ${batch}.${i}`);
      await collect();
    }
    expect(kept.render(80)).toEqual(["kept created 1x"]);
    expect(errors).toEqual([]);
  });

  it("a component made by a worker that crashed renders its own message from the restarted worker", async () => {
    const { runner, create, errors } = await cards();
    const a = create("a");
    const b = create("b");
    expect(b.render(80)).toEqual(["b created 1x"]);
    await runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 1 });
    const sandbox = runner.getHooks()[0]!.sandbox!;
    for (let i = 0; i < 200 && sandbox.state !== "ready"; i++) await new Promise((r) => setTimeout(r, 25));
    expect(sandbox.state).toBe("ready");
    // The new worker's counts start again: each message is created once there, in the order used.
    expect(b.render(80)).toEqual(["b created 1x"]);
    expect(a.render(80)).toEqual(["a created 1x"]);
    expect(errors.map((e) => e.code)).toEqual(["crashed"]);
  });
});
