/** A tool_call handler's throw is observed as the original's. */
import { describe, expect, it } from "vitest";
import { HookToolWrapper } from "../src/index.js";
import { fixture, start } from "./helpers/host.js";

const call = (toolName: string) => ({ type: "tool_call" as const, toolName, toolCallId: "c", input: {} });
const tool = (name: string) => ({ name, execute: async () => ({ content: [] }) });
const missing = fixture("valid/gate-policy-that-does-not-exist.json");

describe("errors thrown by tool_call handlers", () => {
  it("an Error rejects emitToolCall with the Error's own message, and the wrapper rethrows that same text; the thrown error is the cause", async () => {
    const { runner } = await start(["gates-on-policy-file"]);
    const error = await runner.emitToolCall(call("bash")).catch((e: unknown) => e) as Error & { code: string; cause: Error & { code: string } };
    expect(error).toMatchObject({ code: "handler_threw", message: `ENOENT: no such file or directory, open '${missing}'` });
    expect(error.cause).toBeInstanceOf(Error);
    expect(error.cause).toMatchObject({ code: "ENOENT", message: error.message });
    await expect(new HookToolWrapper(tool("bash"), runner).execute("c", {})).rejects.toMatchObject({ message: `ENOENT: no such file or directory, open '${missing}'` });
  });

  it("a thrown string rejects with that string as its text and its cause; the wrapper says \"Hook failed, blocking execution: <string>\"", async () => {
    const { runner } = await start(["gates-on-policy-file"]);
    const error = await runner.emitToolCall(call("write")).catch((e: unknown) => e) as Error & { cause: unknown };
    expect(error).toMatchObject({ code: "handler_threw", message: "writes are frozen", cause: "writes are frozen" });
    await expect(new HookToolWrapper(tool("write"), runner).execute("c", {})).rejects.toMatchObject({ message: "Hook failed, blocking execution: writes are frozen" });
  });

  it("a thrown plain object is kept as the cause and described as String(value), as the original does", async () => {
    const { runner } = await start(["gates-on-policy-file"]);
    const error = await runner.emitToolCall(call("edit")).catch((e: unknown) => e) as Error & { cause: unknown };
    expect(error).toMatchObject({ code: "handler_threw", message: "[object Object]" });
    expect(error.cause).toEqual({ reason: "edits are frozen", status: 423 });
    const wrapped = await new HookToolWrapper(tool("edit"), runner).execute("c", {}).catch((e: unknown) => e) as Error & { cause: { cause: unknown } };
    expect(wrapped.message).toBe("Hook failed, blocking execution: [object Object]");
    expect(wrapped.cause.cause).toEqual({ reason: "edits are frozen", status: 423 });
  });

  it("a handler called directly (LoadedHook.handlers) throws what it threw: an Error with its name, message and code, a string, an object", async () => {
    const { runner } = await start(["gates-on-policy-file"]);
    const handler = runner.getHooks()[0]!.handlers.get("tool_call")![0]!;
    const ctx = runner.createCommandContext();
    const error = await Promise.resolve(handler(call("bash"), ctx)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: "Error", code: "ENOENT", message: `ENOENT: no such file or directory, open '${missing}'` });
    expect((error as Error).stack).toContain("gates-on-policy-file.ts");
    await expect(Promise.resolve(handler(call("write"), ctx))).rejects.toBe("writes are frozen");
    await expect(Promise.resolve(handler(call("edit"), ctx))).rejects.toEqual({ reason: "edits are frozen", status: 423 });
  });

  it("an in-place edit of a tool call's input that is refused blocks the call as invalid_result (fail closed), and the tool does not run", async () => {
    const { runner, errors } = await start(["hostile/edits-tool-input-to-a-string.ts"]);
    const input = { command: "rm -rf build" };
    const result = await runner.emitToolCall({ ...call("bash"), input });
    expect(result).toMatchObject({ block: true, reason: expect.stringContaining("failed (invalid_result)") });
    expect(errors.map((e) => e.code)).toEqual(["invalid_result"]);
    expect(errors[0]!.error).toContain("edited event.input");
    expect(input).toEqual({ command: "rm -rf build" });
    let ran = 0;
    await expect(new HookToolWrapper({ name: "bash", execute: async () => { ran++; return { content: [] }; } } as never, runner).execute("c", input)).rejects.toThrow(/invalid_result/);
    expect(ran).toBe(0);
  });
});
