/** Difference 3 of issue 13: AbortSignals in payloads keep their state. */
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
