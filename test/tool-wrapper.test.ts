/** HookToolWrapper over real workers: every step of the contract's tool interception flow. */
import { describe, expect, it } from "vitest";
import { createSessionManager, HookRunner, HookToolWrapper } from "../src/index.js";
import type { AgentToolResult } from "../src/contract/types.js";
import { ROOT, start, track } from "./helpers/host.js";

class BaseTool {
  strict = true;
  renderResult(result: AgentToolResult) { return `${(this as unknown as ReadTool).name}: ${result.content.length}`; }
}

/** A real tool: records how it was called, streams one update, fails on request. */
class ReadTool extends BaseTool {
  name = "read";
  label = "Read";
  description = "Read a file";
  parameters = { type: "object", properties: { path: { type: "string" } } };
  calls: unknown[][] = [];
  results: AgentToolResult[] = [];
  thrown: unknown[] = [];
  #hidden = false;
  get hidden() { return this.#hidden; }
  hide() { this.#hidden = true; }
  renderCall(args: { path: string }) { return `${this.label} ${args.path}`; }
  async execute(toolCallId: string, params: Record<string, unknown>, signal?: AbortSignal, onUpdate?: (p: AgentToolResult) => void, context?: unknown): Promise<AgentToolResult> {
    this.calls.push([toolCallId, params, signal, onUpdate, context]);
    onUpdate?.({ content: [{ type: "text", text: "partial" }] });
    if (params.fail) {
      const error = params.fail === "string" ? "a string" : new Error("disk on fire");
      this.thrown.push(error);
      throw error;
    }
    const result: AgentToolResult = { content: [{ type: "text", text: String(params.text ?? "API_KEY=abc rest") }], details: { lines: 1 }, isWarning: true };
    this.results.push(result);
    return result;
  }
}

async function wrapped(hooks: string[], tool = new ReadTool()) {
  const host = await start(hooks);
  return { ...host, tool, wrapper: new HookToolWrapper(tool as never, host.runner) as HookToolWrapper & Record<string, any> };
}

describe("properties", () => {
  it("forwards every property of the tool and its prototypes, read live, methods bound to the tool", async () => {
    const tool = new ReadTool();
    const wrapper = new HookToolWrapper(tool as never, track(new HookRunner([], ROOT, createSessionManager(), {} as never))) as unknown as Record<string, any>;
    expect([wrapper.name, wrapper.label, wrapper.description, wrapper.parameters, wrapper.strict]).toEqual(["read", "Read", "Read a file", tool.parameters, true]);
    expect(wrapper.renderCall({ path: "a.txt" })).toBe("Read a.txt");
    expect(wrapper.renderResult({ content: [] })).toBe("read: 0");
    expect(wrapper.hidden).toBe(false);
    tool.hide();
    tool.label = "Reader";
    expect([wrapper.hidden, wrapper.label]).toEqual([true, "Reader"]);
    expect(Object.keys(wrapper)).toEqual(expect.arrayContaining(["name", "label", "description", "parameters", "strict", "renderCall", "renderResult", "hidden"]));
  });

  it("keeps its own execute rather than the tool's", async () => {
    const tool = new ReadTool();
    const wrapper = new HookToolWrapper(tool as never, track(new HookRunner([], ROOT, createSessionManager(), {} as never)));
    expect(wrapper.execute).toBe(HookToolWrapper.prototype.execute);
    expect(Object.hasOwn(wrapper, "execute")).toBe(false);
  });
});

describe("before the call: tool_call", () => {
  it("emits tool_call with the tool's name, the call id and the params as input", async () => {
    const { wrapper, received } = await wrapped(["records-call-order"]);
    await wrapper.execute("call-9", { path: "a.txt" });
    expect(received()[0]).toEqual({ type: "tool_call", toolName: "read", toolCallId: "call-9", input: { path: "a.txt" } });
  });

  it("a block stops the call: the tool does not run and the reason is the thrown error's message", async () => {
    const tool = Object.assign(new ReadTool(), { name: "bash" });
    const { wrapper } = await wrapped(["blocks-rm-rf"], tool);
    await expect(wrapper.execute("c", { command: "rm -rf /" })).rejects.toThrow(new Error("rm -rf blocked (no UI)"));
    expect(tool.calls).toEqual([]);
  });

  it("a block without a reason throws \"Tool execution was blocked by a hook\"", async () => {
    const { wrapper, tool } = await wrapped(["returns-block-true-without-reason"]);
    await expect(wrapper.execute("c", {})).rejects.toThrow(new Error("Tool execution was blocked by a hook"));
    expect(tool.calls).toEqual([]);
  });

  it("a handler that throws blocks the call (fail-safe) with its error and code handler_threw", async () => {
    const { wrapper, tool, errors } = await wrapped(["throws-from-handlers"]);
    await expect(wrapper.execute("c", {})).rejects.toMatchObject({ message: "tool_call handler failed", code: "handler_threw" });
    expect(tool.calls).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("a result that does not block lets the tool run", async () => {
    const { wrapper, tool } = await wrapped(["returns-first-result"]);
    await wrapper.execute("c", { text: "x" });
    expect(tool.calls).toHaveLength(1);
  });
});

describe("the call", () => {
  it("passes the call id, params, signal, onUpdate and context through to the tool", async () => {
    const { wrapper, tool } = await wrapped(["records-call-order"]);
    const signal = new AbortController().signal;
    const updates: unknown[] = [];
    const onUpdate = (p: unknown) => { updates.push(p); };
    const context = { session: "s" };
    await wrapper.execute("c7", { path: "p" }, signal, onUpdate, context);
    expect(tool.calls).toHaveLength(1);
    const [id, params, gotSignal, gotOnUpdate, gotContext] = tool.calls[0]!;
    expect([id, params]).toEqual(["c7", { path: "p" }]);
    expect(gotSignal).toBe(signal);
    expect(gotOnUpdate).toBe(onUpdate);
    expect(gotContext).toBe(context);
    expect(updates).toEqual([{ content: [{ type: "text", text: "partial" }] }]);
  });

  it("without any tool handler the tool's own result object is returned", async () => {
    const { wrapper, tool } = await wrapped(["registers-note-renderer"]);
    expect(await wrapper.execute("c", { text: "plain" })).toBe(tool.results[0]);
  });
});

describe("after success: tool_result", () => {
  it("emits tool_result with toolName, toolCallId, input, content, details and isError: false", async () => {
    const { wrapper, received } = await wrapped(["records-call-order"]);
    await wrapper.execute("c", { text: "out" });
    expect(received()[1]).toEqual({
      type: "tool_result", toolName: "read", toolCallId: "c", input: { text: "out" },
      content: [{ type: "text", text: "out" }], details: { lines: 1 }, isError: false,
    });
  });

  it("a handler that returns nothing leaves the tool's own result object", async () => {
    const { wrapper, tool } = await wrapped(["records-call-order"]);
    expect(await wrapper.execute("c", { text: "same" })).toBe(tool.results[0]);
  });

  it("a content override replaces the content and keeps the details (the redact example)", async () => {
    const { wrapper } = await wrapped(["redacts-api-key"]);
    expect(await wrapper.execute("c", {})).toEqual({ content: [{ type: "text", text: "API_KEY=[REDACTED] rest" }], details: { lines: 1 } });
  });

  it("a details override replaces the details and keeps the content", async () => {
    const { wrapper } = await wrapped(["returns-second-result"]);
    expect(await wrapper.execute("c", { text: "t" })).toEqual({ content: [{ type: "text", text: "t" }], details: { mark: "second" } });
  });

  it("isError and isWarning in a result are not applied: the call still succeeds with the override", async () => {
    const { wrapper } = await wrapped(["returns-tool-result-is-error"]);
    const result = await wrapper.execute("c", {});
    expect(result).toEqual({ content: [{ type: "text", text: "flagged" }], details: { lines: 1 } });
  });
});

describe("after a tool error", () => {
  it("emits tool_result with isError: true and the message as text, then rethrows the error even when a handler returns an override", async () => {
    const { wrapper, tool, received } = await wrapped(["records-call-order", "returns-first-result"]);
    const error = await wrapper.execute("c", { fail: true }).catch((e: unknown) => e);
    expect(error).toBe(tool.thrown[0]);
    expect(error).toEqual(new Error("disk on fire"));
    expect(tool.calls).toHaveLength(1);
    expect(received().filter((e) => e.type === "tool_result")).toEqual([
      { type: "tool_result", toolName: "read", toolCallId: "c", input: { fail: true }, content: [{ type: "text", text: "disk on fire" }], isError: true },
      { type: "tool_result", toolName: "read", toolCallId: "c", input: { fail: true }, content: [{ type: "text", text: "disk on fire" }], isError: true },
    ]);
  });

  it("a tool that throws a non-Error has its text emitted and the value rethrown as is", async () => {
    const { wrapper, received } = await wrapped(["records-call-order"]);
    await expect(wrapper.execute("c", { fail: "string" })).rejects.toBe("a string");
    expect(received().at(-1)?.content).toEqual([{ type: "text", text: "a string" }]);
  });
});
