/**
 * A hook's values never walk the host into a prototype. Edits, results and
 * bridge arguments holding own `__proto__`, `constructor` or `prototype` keys (below the top level
 * too) are refused at the wire with the code of their path (an edit refused, `invalid_result`,
 * `protocol_violation`), nothing of them is applied, and the host's intrinsics stay untouched.
 */
import { describe, expect, it } from "vitest";
import { start, until } from "./helpers/host.js";
import { MESSAGES } from "./helpers/events.js";

const INTRINSICS = [Object.prototype, Array.prototype, Function.prototype, String.prototype];
const clean = () => {
  for (const proto of INTRINSICS) {
    for (const key of ["pollutedByEdit", "pollutedByResult", "pollutedByBridge", "BASH_ENV", "NODE_OPTIONS"]) expect(Object.hasOwn(proto, key), key).toBe(false);
  }
  expect(({} as Record<string, unknown>).pollutedByEdit).toBeUndefined();
};
const toolCall = (toolCallId: string) => ({ type: "tool_call" as const, toolName: "bash", toolCallId, input: { command: "ls" } as Record<string, unknown> });
const toolResult = (toolCallId: string) => ({
  type: "tool_result" as const, toolName: "read", toolCallId, input: {}, content: [{ type: "text" as const, text: "fine" }], details: { n: 1 } as unknown, isError: false,
});

describe("in-place edits that hold a prototype key", () => {
  it.each([
    ["proto", "event.input", "input.__proto__"],
    ["constructor", "event.input", "input.constructor"],
    ["nested", "event.input", "input.options.__proto__"],
  ])("an edit of the tool's input with a %s key is refused, not applied, and the prototype stays clean", async (id, field, path) => {
    const { runner, errors } = await start(["hostile/pollutes-prototype-through-edits.ts"]);
    const event = toolCall(id);
    const input = event.input;
    // A refused edit of a tool call fails closed: the hook meant to change what the tool runs.
    expect(await runner.emitToolCall(event)).toMatchObject({ block: true, reason: expect.stringContaining("failed (invalid_result)") });
    expect(event.input).toBe(input);
    expect(event.input).toEqual({ command: "ls" });
    expect(Object.getPrototypeOf(event.input)).toBe(Object.prototype);
    expect(errors.map((e) => e.code)).toEqual(["invalid_result"]);
    expect(errors[0]!.error).toContain(`edited ${field} in place`);
    expect(errors[0]!.error).toContain(`${path.slice(path.indexOf(".") + 1)}: the key "${path.split(".").pop()}" is refused`);
    clean();
  });

  it("edits of a tool result's details and content holding __proto__ are refused and the result is the tool's", async () => {
    const { runner, errors } = await start(["hostile/pollutes-prototype-through-edits.ts"]);
    const details = toolResult("details");
    expect(await runner.emit(details)).toBeUndefined();
    expect(details.details).toEqual({ n: 1 });
    const content = toolResult("content");
    expect(await runner.emit(content)).toBeUndefined();
    expect(content.content).toEqual([{ type: "text", text: "fine" }]);
    expect(errors.map((e) => e.code)).toEqual(["invalid_result", "invalid_result"]);
    expect(errors[0]!.error).toContain("edited event.details in place");
    expect(errors[0]!.error).toContain('__proto__: the key "__proto__" is refused');
    expect(errors[1]!.error).toContain("edited event.content in place");
    expect(errors[1]!.error).toContain('0.__proto__: the key "__proto__" is refused');
    clean();
  });

  it("an edit that adds a field the event does not have is refused and the host's event gains nothing", async () => {
    const { runner, errors } = await start(["hostile/pollutes-prototype-through-edits.ts"]);
    const event = toolResult("unknown-field");
    await runner.emit(event);
    expect(Object.hasOwn(event, "injected")).toBe(false);
    expect(errors.map((e) => e.code)).toEqual(["invalid_result"]);
    expect(errors[0]!.error).toContain("edited event.injected in place");
    expect(errors[0]!.error).toContain("it is not a field of this event");
  });

  it("a context handler that pushes a message with a constructor key is refused: emitContext returns the caller's messages", async () => {
    const { runner, errors } = await start(["hostile/pollutes-prototype-through-edits.ts"]);
    const messages = structuredClone(MESSAGES);
    const out = await runner.emitContext(messages);
    expect(out).toBe(messages);
    expect(out).toEqual(MESSAGES);
    expect(errors.map((e) => e.code)).toEqual(["invalid_result"]);
    expect(errors[0]!.error).toContain("edited event.messages in place");
    expect(errors[0]!.error).toContain('2.constructor: the key "constructor" is refused');
    clean();
  });
});

describe("results that hold a prototype key below the top level", () => {
  it("details, a message's details, preserveData and a summary's details are refused as invalid_result, naming the path", async () => {
    const { runner, errors } = await start(["hostile/pollutes-prototype-through-results.ts"]);
    expect(await runner.emit(toolResult("r"))).toBeUndefined();
    expect(await runner.emitBeforeAgentStart("hi")).toBeUndefined();
    expect(await runner.emit({ type: "session.compacting", sessionId: "s", messages: MESSAGES })).toBeUndefined();
    expect(await runner.emit({ type: "session_before_tree", preparation: {} } as never)).toBeUndefined();
    expect(errors.map((e) => e.code)).toEqual(["invalid_result", "invalid_result", "invalid_result", "invalid_result"]);
    const paths = ["details.deep.0.__proto__", "message.details.constructor", "preserveData.__proto__", "summary.details.prototype"];
    errors.forEach((e, i) => expect(e.error).toContain(`${paths[i]}: the key "${paths[i]!.split(".").pop()}" is refused: it names a prototype`));
    clean();
  });

  it("a context waterfall's messages holding __proto__ are refused as invalid_result: the caller's messages come back", async () => {
    const { runner, errors } = await start(["hostile/pollutes-prototype-through-results.ts"]);
    const messages = structuredClone(MESSAGES);
    expect(await runner.emitContext(messages)).toBe(messages);
    expect(errors.map((e) => e.code)).toEqual(["invalid_result"]);
    expect(errors[0]!.error).toContain('messages.2.meta.__proto__: the key "__proto__" is refused');
    clean();
  });
});

describe("bridge arguments and thrown values that hold a prototype key", () => {
  it("sendMessage details and appendEntry data holding one are refused as protocol_violation and never reach the host's handlers", async () => {
    const { runner, errors, sent, entries } = await start(["hostile/pollutes-prototype-through-bridge.ts"]);
    await runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 0 });
    await until(() => errors.length >= 2, 5_000, "two reports");
    expect(errors.map((e) => e.code)).toEqual(["protocol_violation", "protocol_violation"]);
    expect(errors[0]!.error).toContain('bad arguments to sendMessage: 0.details.__proto__: the key "__proto__" is refused');
    expect(errors[1]!.error).toContain('bad arguments to appendEntry: 1.list.0.constructor: the key "constructor" is refused');
    expect(sent).toEqual([]);
    expect(entries).toEqual([]);
    clean();
  });

  it("a thrown value holding __proto__ is refused as protocol_violation, never handed to the host as a cause", async () => {
    const { runner, errors } = await start(["hostile/pollutes-prototype-through-bridge.ts"]);
    await runner.emit({ type: "agent_start" });
    expect(errors.map((e) => e.code)).toEqual(["protocol_violation"]);
    expect(errors[0]!.error).toContain('value.__proto__: the key "__proto__" is refused');
    expect(Object.hasOwn(errors[0]!, "cause")).toBe(false);
    clean();
  });
});
