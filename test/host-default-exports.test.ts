/** Every default-export shape jiti accepts, for .js, .cjs and .mjs alike, as hooks written for the original use. */
import { describe, expect, it } from "vitest";
import { fixture, start } from "./helpers/host.js";

describe("default export shapes", () => {
  it.each([
    ["tsc CommonJS output in a .js file (exports.default with __esModule)", "valid/tsc-commonjs/blocks-force-push.js"],
    ["tsc CommonJS output in a .cjs file", "valid/tsc-commonjs/blocks-force-push.cjs"],
    ["an .mjs whose default export is a module object with its own default", "valid/exports-default-object-with-default.mjs"],
  ])("a hook module with %s loads and its factory runs", async (_what, rel) => {
    const { runner } = await start([fixture(rel)]);
    expect(await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "c", input: { command: "git push --force" } }))
      .toEqual({ block: true, reason: "force push blocked" });
  });
});
