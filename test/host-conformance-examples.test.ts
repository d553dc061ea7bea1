/** The four examples the contract documents, each over its real fixture and worker, over a full and a seed-shaped host. */
import { describe, expect, it } from "vitest";
import { HookToolWrapper, createNoOpUIContext } from "../src/index.js";
import type { AgentMessage, AgentToolResult, HookUIContext } from "../src/contract/types.js";
import { MESSAGES, sample } from "./helpers/events.js";
import { eachHostShape, start } from "./helpers/host.js";

const bash = (ran: string[]) => ({
  name: "bash",
  async execute(_id: string, params: Record<string, unknown>): Promise<AgentToolResult> {
    ran.push(String(params.command));
    return { content: [{ type: "text", text: "ok" }] };
  },
});
const asking = (answer: boolean, asked: unknown[]): HookUIContext => ({
  ...createNoOpUIContext(),
  confirm: async (title, message) => { asked.push([title, message]); return answer; },
});

eachHostShape(() => {
  describe("example 1: block unsafe bash", () => {
    it("without a UI, rm -rf is blocked with \"rm -rf blocked (no UI)\" and other commands run", async () => {
      const ran: string[] = [];
      const { runner } = await start(["blocks-rm-rf"]);
      const tool = new HookToolWrapper(bash(ran), runner);
      await expect(tool.execute("c1", { command: "rm -rf /" })).rejects.toThrow(new Error("rm -rf blocked (no UI)"));
      await tool.execute("c2", { command: "ls -la" });
      expect(ran).toEqual(["ls -la"]);
    });

    it("with a UI, the user is asked \"Dangerous command\" / \"Allow: <cmd>\", and a no blocks with \"user denied command\"", async () => {
      const ran: string[] = [];
      const asked: unknown[] = [];
      const { runner } = await start(["blocks-rm-rf"], { init: { hasUI: true, uiContext: asking(false, asked) } });
      await expect(new HookToolWrapper(bash(ran), runner).execute("c", { command: "rm -rf build" })).rejects.toThrow(new Error("user denied command"));
      expect(asked).toEqual([["Dangerous command", "Allow: rm -rf build"]]);
      expect(ran).toEqual([]);
    });

    it("with a UI, a yes lets rm -rf run", async () => {
      const ran: string[] = [];
      const { runner } = await start(["blocks-rm-rf"], { init: { hasUI: true, uiContext: asking(true, []) } });
      await new HookToolWrapper(bash(ran), runner).execute("c", { command: "rm -rf build" });
      expect(ran).toEqual(["rm -rf build"]);
    });
  });

  describe("example 2: redact tool output", () => {
    it("API_KEY=<value> is redacted in every text chunk of a successful read, other chunks untouched", async () => {
      const { runner } = await start(["redacts-api-key"]);
      const image = { type: "image" as const, data: "aGk=", mimeType: "image/png" };
      const result = await runner.emit({
        ...sample("tool_result") as object, toolName: "read",
        content: [{ type: "text", text: "API_KEY=s3cr3t and API_KEY=other" }, image, { type: "text", text: "no key" }],
      } as never);
      expect(result).toEqual({ content: [{ type: "text", text: "API_KEY=[REDACTED] and API_KEY=[REDACTED]" }, image, { type: "text", text: "no key" }] });
    });

    it("failed reads and other tools are left alone", async () => {
      const { runner } = await start(["redacts-api-key"]);
      const content = [{ type: "text", text: "API_KEY=s3cr3t" }];
      expect(await runner.emit({ ...sample("tool_result") as object, toolName: "read", content, isError: true } as never)).toBeUndefined();
      expect(await runner.emit({ ...sample("tool_result") as object, toolName: "bash", content } as never)).toBeUndefined();
    });
  });

  describe("example 3: change the model context per call", () => {
    it("custom debug-only messages are dropped and everything else is kept in order", async () => {
      const { runner } = await start(["drops-debug-messages"]);
      const messages = [...MESSAGES, { role: "assistant", content: "hi" }, { role: "custom", customType: "other", content: "kept" }] as AgentMessage[];
      expect(await runner.emitContext(messages)).toEqual([MESSAGES[0], messages[2], messages[3]]);
    });
  });

  describe("example 4: the handoff command", () => {
    it("waits for idle, then opens a new session whose parent is the current file, and setup writes to it", async () => {
      const steps: unknown[] = [];
      const { runner, errors } = await start(["handoff-command"], {
        sessionManager: { getSessionFile: () => "/sessions/current.jsonl" },
        init: {
          waitForIdle: async () => { steps.push("waitForIdle"); },
          newSessionHandler: async (options) => {
            steps.push(["newSession", options?.parentSession]);
            await options?.setup?.({ appendMessage: (m: unknown) => { steps.push(["appendMessage", m]); } });
            return { cancelled: false };
          },
        },
      });
      const command = runner.getCommand("handoff")!;
      expect(command.description).toBe("Start a new session that continues from this one");
      await command.handler("", runner.createCommandContext());
      expect(steps).toEqual([
        "waitForIdle",
        ["newSession", "/sessions/current.jsonl"],
        ["appendMessage", { role: "user", content: [{ type: "text", text: "Continue from prior session summary." }], timestamp: expect.any(Number) }],
      ]);
      expect(errors).toEqual([]);
    });
  });
});
