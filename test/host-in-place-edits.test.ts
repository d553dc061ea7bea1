/** Handlers that edit their event in place, as hooks written for the original do. */
import { describe, expect, it } from "vitest";
import { HookToolWrapper } from "../src/index.js";
import type { AgentToolResult } from "../src/contract/types.js";
import { start } from "./helpers/host.js";

const tool = (name: string, output: string, ran: Array<Record<string, unknown>>) => ({
  name,
  async execute(_id: string, params: Record<string, unknown>): Promise<AgentToolResult> {
    ran.push({ ...params });
    return { content: [{ type: "text", text: output }, { type: "text", text: `second ${output}` }], details: { n: 1 } };
  },
});

describe("in-place edits of the event", () => {
  it("a tool_call handler that appends to event.input.command changes the command the tool runs", async () => {
    const ran: Array<Record<string, unknown>> = [];
    const { runner, errors } = await start(["appends-dry-run-in-place"]);
    await new HookToolWrapper(tool("bash", "ok", ran), runner).execute("c1", { command: "make deploy", cwd: "/w" });
    expect(ran).toEqual([{ command: "make deploy --dry-run", cwd: "/w" }]);
    expect(errors).toEqual([]);
  });

  it("a redaction hook that edits event.content[i].text in place leaks no secret into the tool's result", async () => {
    const { runner, errors } = await start(["redacts-secrets-in-place"]);
    const result = await new HookToolWrapper(tool("read", "key sk-abc123 here", []), runner).execute("c1", { path: "a" });
    expect(result.content).toEqual([{ type: "text", text: "key [REDACTED] here" }, { type: "text", text: "second key [REDACTED] here" }]);
    expect(JSON.stringify(result)).not.toContain("sk-abc123");
    expect(errors).toEqual([]);
  });

  it("a context handler that splices event.messages in place changes the messages emitContext returns, in the caller's array", async () => {
    const { runner } = await start(["splices-debug-messages-in-place"]);
    const messages = [
      { role: "user", content: "hi", timestamp: 1 },
      { role: "custom", customType: "debug-only", content: "noise", timestamp: 2 },
      { role: "assistant", content: "hello", timestamp: 3 },
    ];
    const out = await runner.emitContext(messages as never);
    expect(out).toBe(messages);
    expect(out.map((m) => (m as { timestamp: number }).timestamp)).toEqual([1, 3]);
  });

  it("a later hook sees the earlier hook's in-place edits, in the original's order", async () => {
    const ran: Array<Record<string, unknown>> = [];
    const { runner, sent } = await start(["appends-dry-run-in-place", "reports-bash-command-seen", "appends-dry-run-in-place"]);
    await new HookToolWrapper(tool("bash", "ok", ran), runner).execute("c1", { command: "ls" });
    expect(sent.map((s) => s.message.content)).toEqual(["ls --dry-run"]);
    expect(ran).toEqual([{ command: "ls --dry-run --dry-run" }]);
  });

  it("an in-place edit to a value that is not valid is not applied and is reported as invalid_result", async () => {
    const { runner, errors } = await start(["hostile/edits-event-content-to-a-string.ts"]);
    const result = await new HookToolWrapper(tool("read", "fine", []), runner).execute("c1", { path: "a" });
    expect(result.content).toEqual([{ type: "text", text: "fine" }, { type: "text", text: "second fine" }]);
    expect(errors.map((e) => e.code)).toEqual(["invalid_result"]);
    expect(errors[0]!.error).toContain("event.content");
  });

  it("a handler's result that holds parts of its event still reaches the host as plain data", async () => {
    const { runner, errors } = await start(["redacts-api-key"]);
    const result = await runner.emit({ type: "tool_result", toolName: "read", toolCallId: "c", input: {}, content: [{ type: "text", text: "API_KEY=x" }], isError: false } as never);
    expect(result).toEqual({ content: [{ type: "text", text: "API_KEY=[REDACTED]" }] });
    expect(errors).toEqual([]);
  });
});

describe("in-place edits through LoadedHook.handlers", () => {
  it("calling a loaded hook's handler directly, as the original's tests do, edits the event passed in", async () => {
    const { runner } = await start(["appends-dry-run-in-place"]);
    const event = { type: "tool_call", toolName: "bash", toolCallId: "c", input: { command: "make" } };
    await runner.getHooks()[0]!.handlers.get("tool_call")![0]!(event, runner.createCommandContext());
    expect(event.input.command).toBe("make --dry-run");
  });
});
