/** A fault the host must contain, asserted the same way wherever a test needs it (host mode, host runtime). */
import { expect } from "vitest";
import type { LoadOptions } from "../../src/index.js";
import { toolCall, turnStart } from "./events.js";
import { start, until } from "./host.js";

/**
 * A hook that allocates past its heap limit (48 MB) is reported as out_of_memory, and a healthy
 * guard beside it still answers (a block: an answer every policy's effects allow, untrusted's too).
 */
export async function expectHeapExhaustionContained(load: LoadOptions): Promise<void> {
  const { runner, errors } = await start(["faulty/exhausts-heap.ts", "valid/blocks-rm-rf.ts"], { load: {
    ...load, resourceLimits: { maxOldGenerationSizeMb: 48 }, unresponsiveMs: 10_000, maxRestarts: 0,
  } });
  await runner.emit(turnStart());
  await until(() => errors.length > 0, 20_000, "the report");
  expect(errors[0]!.code).toBe("out_of_memory");
  expect(await runner.emitToolCall(toolCall("rm -rf /"))).toMatchObject({ block: true, reason: expect.stringMatching(/^(rm -rf blocked \(no UI\)|user denied command)$/) });
}
