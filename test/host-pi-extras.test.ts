/**
 * `pi.typebox` and `pi.pi`, which hooks written for the original use. TypeBox is an optional peer
 * dependency (this repository does not install it); the agent's package cannot be handed to a sandbox.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { start } from "./helpers/host.js";

const call = (toolName: string) => ({ type: "tool_call" as const, toolName, toolCallId: "c", input: {} });
const hasTypebox = (() => { try { createRequire(import.meta.url).resolve("@sinclair/typebox"); return true; } catch { return false; } })();

describe("pi.typebox and pi.pi", () => {
  it.skipIf(hasTypebox)("without @sinclair/typebox installed, using pi.typebox fails with an error that names the package and how to install it", async () => {
    const { runner } = await start(["uses-typebox-and-agent-package"]);
    const error = await runner.emitToolCall(call("schema")).catch((e: Error) => e) as Error & { code: string };
    expect(error.code).toBe("handler_threw");
    expect(error.message).toContain("pi.typebox.Type: @sinclair/typebox is not installed beside hookbox");
  });

  it.runIf(hasTypebox)("with @sinclair/typebox installed, pi.typebox is that module", async () => {
    const { runner } = await start(["uses-typebox-and-agent-package"]);
    const result = await runner.emitToolCall(call("schema"));
    expect(JSON.parse(result!.reason!)).toMatchObject({ type: "object", properties: { path: { type: "string" } } });
  });

  it("using pi.pi fails with an error that says the agent's package is not available and points to host modules", async () => {
    const { runner } = await start(["uses-typebox-and-agent-package"]);
    const error = await runner.emitToolCall(call("agent")).catch((e: Error) => e) as Error & { code: string };
    expect(error.code).toBe("handler_threw");
    expect(error.message).toContain("pi.pi.VERSION: the agent's own package is not available to a sandboxed hook");
    expect(error.message).toContain("hostModules");
  });
});
