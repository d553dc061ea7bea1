/** The wire: every message bounded and validated, deadlines the host decides, command-only capabilities. */
import { describe, expect, it } from "vitest";
import { createNoOpUIContext, presets } from "../src/index.js";
import { start, until } from "./helpers/host.js";
import { toolCall, turnStart } from "./helpers/events.js";
import { IN_PROCESS, POLICY } from "./support/isolation.js";

const HEALTHY = "valid/redacts-api-key.ts";
const redact = { type: "tool_result" as const, toolName: "read", toolCallId: "r", input: {}, content: [{ type: "text" as const, text: "API_KEY=k" }], isError: false };
const REDACTED = { content: [{ type: "text", text: "API_KEY=[REDACTED]" }] };
const codes = (errors: Array<{ code: string }>) => errors.map((e) => e.code);

describe("every message is bounded", () => {
  it("a forged manifest with four billion handlers, or more commands or events than the bound, is refused as protocol_violation", async () => {
    const { runner, errors } = await start(["hostile/forges-huge-manifest.ts", HEALTHY]);
    await runner.emit(turnStart());
    await until(() => errors.length >= 3, 5_000, "three reports");
    expect(codes(errors)).toEqual(["protocol_violation", "protocol_violation", "protocol_violation"]);
    expect(runner.hasHandlers("x")).toBe(false);
    expect(runner.getRegisteredCommands()).toEqual([]);
    expect(await runner.emit(redact)).toEqual(REDACTED);
  });

  it("a second synchronous transform forged while the host still works on the first is refused as protocol_violation", async () => {
    const { runner, errors } = await start(["hostile/forges-concurrent-transforms.ts", HEALTHY]);
    await runner.emit(turnStart());
    await until(() => errors.length >= 1, 5_000, "a report");
    expect(codes(errors)).toEqual(["protocol_violation"]);
    expect(errors[0]!.error).toContain("while the host still works on another");
    expect(await runner.emit(redact)).toEqual(REDACTED);
  });

  it("a synchronous call with an argument over maxMessageBytes is refused in the worker as result_too_large", async () => {
    const { runner, errors } = await start(["hostile/sends-oversized-sync-arguments.ts", HEALTHY], { load: { maxMessageBytes: 1_000_000 } });
    const result = await runner.emitToolCall(toolCall());
    expect(result?.reason).toContain("over the size limit");
    await until(() => errors.length >= 1, 5_000, "a report");
    expect(codes(errors)).toEqual(["result_too_large"]);
    expect(await runner.emit(redact)).toEqual(REDACTED);
  });

  it("a synchronous call forged with an argument over maxMessageBytes is refused on the host as result_too_large", async () => {
    const { runner, errors } = await start(["hostile/sends-oversized-sync-arguments.ts", HEALTHY], { load: { maxMessageBytes: 1_000_000 } });
    await runner.emitToolCall({ ...toolCall(), input: { forge: true } });
    await until(() => errors.length >= 2, 5_000, "two reports");
    expect(codes(errors)).toEqual(["result_too_large", "result_too_large"]);
    expect(errors.map((e) => e.event)).toEqual(["modelRegistry", "modelRegistry"]);
    expect(await runner.emit(redact)).toEqual(REDACTED);
  });
});

describe("results are JSON data", () => {
  it("a result nested deeper than 64 levels, or holding a BigInt, is refused as invalid_result", async () => {
    const { runner, errors } = await start(["hostile/returns-non-json-results.ts", HEALTHY]);
    expect(await runner.emit({ ...redact, toolCallId: "deep" })).toEqual(REDACTED);
    expect(await runner.emit({ ...redact, toolCallId: "bigint" })).toEqual(REDACTED);
    expect(codes(errors)).toEqual(["invalid_result", "invalid_result"]);
    expect(errors[0]!.error).toContain("deeper than 64 levels");
    expect(errors[1]!.error).toContain("BigInt");
  });

  it("a result exactly as deep as the bound arrives whole, also two at a time in one batch (the frame's envelope allowance holds)", async () => {
    const { runner, errors } = await start(["hostile/returns-non-json-results.ts"]);
    const deepest = { ...redact, toolCallId: "deepest" };
    const results = await Promise.all([runner.emit(deepest), runner.emit(deepest)]);
    const depth = (v: unknown): number => (typeof v === "object" && v !== null ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 0);
    for (const result of results) expect(depth((result as { details?: unknown }).details)).toBe(63);
    expect(errors).toEqual([]);
  });

  it("a reply forged onto the wire that is not an emit reply is refused once, by the channel, as protocol_violation naming the event", async () => {
    const { runner, errors } = await start(["hostile/returns-non-json-results.ts", HEALTHY]);
    expect(await runner.emit({ ...redact, toolCallId: "malformed" })).toEqual(REDACTED);
    expect(codes(errors)).toEqual(["protocol_violation"]);
    expect(errors[0]!.error).toContain("bad tool_result reply: steps:");
  });

  it("a deep result forged straight onto the wire is refused by the host as invalid_result", async () => {
    const { runner, errors } = await start(["hostile/returns-non-json-results.ts", HEALTHY]);
    expect(await runner.emit({ ...redact, toolCallId: "forged" })).toEqual(REDACTED);
    expect(codes(errors)).toEqual(["invalid_result"]);
    expect(errors[0]!.error).toContain("deeper than");
  });

  it("a message whose details hold a BigInt never reaches sendMessage and is reported as bad_argument, naming sendMessage", async () => {
    const { runner, errors, sent } = await start(["hostile/returns-non-json-results.ts", HEALTHY]);
    await runner.emit({ ...redact, toolCallId: "message" });
    await until(() => errors.length >= 1, 5_000, "a report");
    expect(codes(errors)).toEqual(["bad_argument"]);
    expect(errors[0]!.event).toBe("sendMessage");
    expect(sent).toEqual([]);
  });

  it("a bad_argument during a tool_call is reported on the bridge method, not the event, and the call stands on the handler's answer; control: a BigInt in the tool_call result itself blocks the call as invalid_result", async () => {
    const { runner, errors, sent } = await start(["hostile/returns-non-json-results.ts", HEALTHY]);
    expect(await runner.emitToolCall(toolCall("ls", "message"))).toBeUndefined();
    await until(() => errors.length >= 1, 5_000, "a report");
    expect(errors.map((e) => [e.code, e.event])).toEqual([["bad_argument", "sendMessage"]]);
    expect(sent).toEqual([]);
    const blocked = await runner.emitToolCall(toolCall("ls", "bigint"));
    expect(blocked?.block).toBe(true);
    expect(blocked?.reason).toContain("(invalid_result)");
    expect(errors.map((e) => [e.code, e.event])).toEqual([["bad_argument", "sendMessage"], ["invalid_result", "tool_call"]]);
  });

  it("bridge arguments forged past the worker's check and nested past the bound are refused on the host as bad_argument", async () => {
    const { runner, errors, sent } = await start(["hostile/forges-deep-bridge-arguments.ts", HEALTHY]);
    await runner.emit(turnStart());
    await until(() => errors.length >= 1, 5_000, "a report");
    expect(codes(errors)).toEqual(["bad_argument"]);
    expect(errors[0]!.error).toContain("deeper than 64 levels");
    expect(sent).toEqual([]);
    expect(await runner.emit(redact)).toEqual(REDACTED);
  });

  it.skipIf(IN_PROCESS)("render lines that are not strings are refused on the host as invalid_result, and nothing reaches the TUI", async () => {
    const { runner, errors } = await start(["hostile/renders-objects-as-lines.ts"]);
    const component = runner.getMessageRenderer("fooled")!({ customType: "fooled", content: "x", display: true } as never, { expanded: false }, {} as never);
    expect(component!.render(80)).toEqual([]);
    expect(codes(errors)).toEqual(["invalid_result"]);
  });
});

describe("the host decides which request a bridge call pauses", () => {
  it("a forged waitForIdle naming the current request neither runs nor pauses its deadline: the tool_call times out", async () => {
    let idle = 0;
    const { runner, errors } = await start(["hostile/forges-deadline-pauses.ts", HEALTHY], { load: { deadlines: { tool_call: 300 } }, init: {
      waitForIdle: () => { idle++; return new Promise(() => {}); },
    } });
    const result = await runner.emitToolCall({ ...toolCall(), input: { how: "forge" } });
    expect(result?.block).toBe(true);
    expect(codes(errors)).toEqual(["protocol_violation", "timeout"]);
    expect(idle).toBe(0);
    expect(await runner.emit(redact)).toEqual(REDACTED);
  });

  it("a request waiting on UI prompts longer than maxPausedMs in all times out", async () => {
    const { runner, errors } = await start(["hostile/forges-deadline-pauses.ts", HEALTHY], { load: { deadlines: { tool_call: 60_000 }, maxPausedMs: 300 }, init: {
      hasUI: true, uiContext: { ...createNoOpUIContext(), confirm: () => new Promise<boolean>(() => {}) },
    } });
    const result = await runner.emitToolCall({ ...toolCall(), input: { how: "prompt" } });
    expect(result?.block).toBe(true);
    expect(codes(errors)).toEqual(["timeout"]);
    expect(errors[0]!.error).toContain("maxPausedMs");
    expect(await runner.emit(redact)).toEqual(REDACTED);
  });

  it("waitForIdle, newSession, branch and navigateTree called outside a command are refused as protocol_violation and never run", async () => {
    const ran: string[] = [];
    const { runner, errors } = await start(["hostile/calls-command-methods-outside-commands.ts", HEALTHY], { init: {
      waitForIdle: async () => { ran.push("waitForIdle"); },
      newSessionHandler: async () => { ran.push("newSession"); return { cancelled: false }; },
      branchHandler: async () => { ran.push("branch"); return { cancelled: false }; },
      navigateTreeHandler: async () => { ran.push("navigateTree"); return { cancelled: false }; },
    } });
    expect(await runner.emitToolCall(toolCall())).toEqual({ block: true, reason: "forged" });
    await until(() => errors.length >= 5, 5_000, "five reports");
    expect(codes(errors)).toEqual(Array(5).fill("protocol_violation"));
    expect(errors[0]!.error).toContain("exists only in a command's context");
    expect(ran).toEqual([]);
    expect(await runner.emit(redact)).toEqual(REDACTED);
  });
});

describe("the context a worker holds", () => {
  it("a handler called directly with its own ctx does not change the context of the next emit", async () => {
    const { runner } = await start(["valid/reports-context.ts"]);
    expect(JSON.parse((await runner.emitToolCall(toolCall()))!.reason!).cwd).toBe(process.cwd());
    await runner.getHooks()[0]!.handlers.get("tool_call")![0]!(toolCall(), { cwd: "/elsewhere", hasUI: false, model: undefined });
    expect(JSON.parse((await runner.emitToolCall(toolCall()))!.reason!).cwd).toBe(process.cwd());
  });

  it("a model with methods reaches commands as the same JSON snapshot events get", async () => {
    const { runner, errors, sent } = await start(["valid/reports-context.ts"], { init: { getModel: () => ({ id: "m1", describe: () => "m1" }) as never } });
    await runner.getCommand("model")!.handler("", runner.createCommandContext());
    expect(sent.map((s) => s.message)).toEqual([{ customType: "model", content: JSON.stringify({ id: "m1" }), display: false }]);
    expect(errors).toEqual([]);
  });

  it("a model changed in place is sent again, without its credential fields each time; a model that is not JSON data crosses as none", async () => {
    let model: Record<string, unknown> = { id: "m1", headers: { Authorization: "Bearer sk-host" } };
    // The credential gate is policy.modelRegistry "read" (the default's); the Bun job's trusted worker ("all") asks for it here.
    const policy = { ...presets[POLICY ?? "confined"], modelRegistry: "read" as const };
    const { runner } = await start(["valid/reports-context.ts"], { init: { getModel: () => model as never }, load: { policy } });
    const seen = async () => JSON.parse((await runner.emitToolCall(toolCall()))!.reason!).model;
    expect(await seen()).toEqual({ id: "m1" });
    expect(await seen()).toEqual({ id: "m1" });
    model.id = "m2";
    expect(await seen()).toEqual({ id: "m2" });
    model.headers = { Authorization: "Bearer sk-other" };
    expect(await seen()).toEqual({ id: "m2" });
    model = { id: "m3" };
    model.self = model;
    expect(await seen()).toBeNull();
    model = { id: "m4" };
    expect(await seen()).toEqual({ id: "m4" });
    // Not JSON only in a credential field: what crosses is the model without it, changes included.
    const headers: Record<string, unknown> = {};
    headers.self = headers;
    model = { id: "m5", headers };
    expect(await seen()).toEqual({ id: "m5" });
    model.id = "m6";
    expect(await seen()).toEqual({ id: "m6" });
  });

  it("the embedder's sendMessage handler throwing is a host warning, not the hook's handler_threw", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => { if (w.name === "HookboxHostWarning") warnings.push(w.message); };
    process.on("warning", onWarning);
    try {
      const { runner, errors } = await start(["valid/reports-context.ts"], { init: { sendMessageHandler: () => { throw new Error("embedder bug"); } } });
      await runner.getCommand("model")!.handler("", runner.createCommandContext());
      await until(() => warnings.length > 0, 5_000, "the warning");
      expect(warnings[0]).toContain("embedder bug");
      expect(errors).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });
});
