/** A fault the host must contain, asserted the same way wherever a test needs it (host mode, host runtime). */
import { expect } from "vitest";
import type { LoadOptions } from "../../src/index.js";
import { turnStart } from "./events.js";
import { start, until } from "./host.js";

/** A hook that allocates past its heap limit (48 MB) is reported as out_of_memory, and a healthy hook beside it still answers. */
export async function expectHeapExhaustionContained(load: LoadOptions): Promise<void> {
  const { runner, errors } = await start(["faulty/exhausts-heap.ts", "valid/redacts-api-key.ts"], { load: {
    ...load, resourceLimits: { maxOldGenerationSizeMb: 48 }, unresponsiveMs: 10_000, maxRestarts: 0,
  } });
  await runner.emit(turnStart());
  await until(() => errors.length > 0, 20_000, "the report");
  expect(errors[0]!.code).toBe("out_of_memory");
  expect(await runner.emit({ type: "tool_result", toolName: "read", toolCallId: "r", input: {}, content: [{ type: "text", text: "API_KEY=1" }], isError: false }))
    .toEqual({ content: [{ type: "text", text: "API_KEY=[REDACTED]" }] });
}
