/** AbortSignals in payloads keep their state, as in the original. */
import { describe, expect, it } from "vitest";
import { sample } from "./helpers/events.js";
import { start } from "./helpers/host.js";

describe("AbortSignals in payloads", () => {
  it("an AbortSignal that is already aborted when the event is emitted arrives aborted", async () => {
    const { runner } = await start(["skips-compaction-if-already-aborted"]);
    const controller = new AbortController();
    controller.abort();
    expect(await runner.emit({ ...sample("session_before_compact"), signal: controller.signal } as never)).toEqual({ cancel: true });
  });

  it("an AbortSignal that is not aborted arrives not aborted", async () => {
    const { runner } = await start(["skips-compaction-if-already-aborted"]);
    expect(await runner.emit(sample("session_before_compact"))).toEqual({ compaction: { summary: "custom", firstKeptEntryId: "e1", tokensBefore: 100 } });
  });
});

describe("AbortSignals in a handler called directly (LoadedHook.handlers)", () => {
  it("a live AbortSignal in the event reaches the handler live: aborting it on the host aborts it in the worker", async () => {
    const { runner } = await start(["cancels-compaction-when-aborted"]);
    const controller = new AbortController();
    const handler = runner.getHooks()[0]!.handlers.get("session_before_compact")![0]!;
    const pending = handler({ ...sample("session_before_compact"), signal: controller.signal }, runner.createCommandContext());
    controller.abort();
    expect(await pending).toEqual({ cancel: true });
  });

  it("an AbortSignal already aborted arrives aborted", async () => {
    const { runner } = await start(["skips-compaction-if-already-aborted"]);
    const controller = new AbortController();
    controller.abort();
    const handler = runner.getHooks()[0]!.handlers.get("session_before_compact")![0]!;
    expect(await handler({ ...sample("session_before_compact"), signal: controller.signal }, runner.createCommandContext())).toEqual({ cancel: true });
  });
});
