/**
 * A result key an agent ignores in its process (src/contract/events.ts `agentReads`), for a runner
 * whose modules run inside that agent (hookbox/extension calls `insideAgent`): dropped with one
 * warning naming the key and the module, the rest validated and used; a key the agent reads that
 * hookbox does not carry (oh-my-pi's tool_call `input`) stays refused. The control: a runner that is
 * not inside an agent refuses the same result (`invalid_result`), as the hook contract does.
 */
import { describe, expect, it } from "vitest";
import { fixture, start } from "./helpers/host.js";
import { toolCall } from "./helpers/events.js";

const MODULE = fixture("extensions/returns-keys-the-agent-ignores.ts");
const beforeAgentStart = { type: "before_agent_start" as const, prompt: "hi", systemPrompt: "base" };

describe("result keys an agent ignores", () => {
  it("inside oh-my-pi: systemPromptAppend is dropped (one warning however often), tool_call's input is refused and the call blocked", async () => {
    const { runner, errors } = await start([MODULE]);
    const warnings: Array<[string, string, string]> = [];
    runner.insideAgent("omp", (path, kind, line) => warnings.push([path, kind, line]));
    for (let i = 0; i < 2; i++) expect(await runner.emit(beforeAgentStart)).toEqual({ systemPrompt: "base +kept" });
    expect(warnings.map(([, , line]) => line)).toEqual([
      `hookbox: ${MODULE}: the result of its before_agent_start handler has the key "systemPromptAppend", which oh-my-pi ignores in its process: dropped, as oh-my-pi drops it (the rest of the result is used)`,
      `hookbox: ${MODULE}: the result of its before_agent_start handler has the key "systemPromptAppend", which oh-my-pi ignores in its process: dropped, as oh-my-pi drops it (the rest of the result is used)`,
    ]);
    // Said once: the adapter's notices keep one per module and kind.
    expect(new Set(warnings.map(([path, kind]) => `${path} ${kind}`)).size).toBe(1);
    expect(errors).toEqual([]);
    const blocked = await runner.emitToolCall(toolCall("rm -rf /"));
    expect(blocked?.block).toBe(true);
    expect(errors.map((e) => [e.code, e.event])).toEqual([["invalid_result", "tool_call"]]);
    expect(errors[0]!.error).toContain('Unrecognized key: "input"');
  });

  it("control: a runner not inside an agent refuses the result with the unknown key (invalid_result)", async () => {
    const { runner, errors } = await start([MODULE]);
    expect(await runner.emit(beforeAgentStart)).toBeUndefined();
    expect(errors.map((e) => [e.code, e.event])).toEqual([["invalid_result", "before_agent_start"]]);
    expect(errors[0]!.error).toContain('Unrecognized key: "systemPromptAppend"');
  });
});
