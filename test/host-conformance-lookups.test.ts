/**
 * The lookup rules of the contract over real workers: commands and renderers (first loaded wins),
 * getRegisteredCommands (no de-duplication), hasHandlers, and events nobody subscribed to, which
 * reach no worker at all.
 */
import { describe, expect, it } from "vitest";
import { createSessionManager, HookRunner } from "../src/index.js";
import { MESSAGES, emitAny, sample } from "./helpers/events.js";
import { ROOT, eachHostShape, start, track } from "./helpers/host.js";

eachHostShape(() => {
  describe("commands", () => {
    it("getCommand returns the command of the first loaded hook that has it", async () => {
      const { runner } = await start(["registers-command-handoff", "handoff-command"]);
      expect(runner.getCommand("handoff")?.description).toBe("handoff from registers-command-handoff");
      const reversed = await start(["handoff-command", "registers-command-handoff"]);
      expect(reversed.runner.getCommand("handoff")?.description).toBe("Start a new session that continues from this one");
      expect(runner.getCommand("no-such-command")).toBeUndefined();
    });

    it("the command getCommand returns runs in the worker of the hook that registered it", async () => {
      const { runner, sent } = await start(["registers-command-handoff", "handoff-command"]);
      await runner.getCommand("handoff")!.handler("now", runner.createCommandContext());
      expect(sent.map((s) => s.message.content)).toEqual(["registers-command-handoff ran handoff now"]);
    });

    it("getRegisteredCommands returns every command of every hook in load order, duplicates included", async () => {
      const { runner } = await start(["registers-command-handoff", "handoff-command"]);
      expect(runner.getRegisteredCommands().map(({ name, description }) => ({ name, description }))).toEqual([
        { name: "handoff", description: "handoff from registers-command-handoff" },
        { name: "status", description: undefined },
        { name: "handoff", description: "Start a new session that continues from this one" },
      ]);
    });
  });

  describe("message renderers", () => {
    it("getMessageRenderer returns the renderer of the first loaded hook that has one for the type", async () => {
      const { runner } = await start(["records-call-order", "registers-note-renderer", "registers-note-renderer"]);
      const [, first, second] = runner.getHooks();
      const renderer = runner.getMessageRenderer("note");
      expect(renderer).toBeTypeOf("function");
      expect(renderer).toBe(first!.messageRenderers.get("note"));
      expect(renderer).not.toBe(second!.messageRenderers.get("note"));
      expect(runner.getMessageRenderer("other")).toBeUndefined();
    });
  });

  describe("hasHandlers", () => {
    it("is true exactly for the events some hook subscribed to", async () => {
      const { runner } = await start(["returns-block-true", "registers-note-renderer"]);
      expect(runner.hasHandlers("tool_call")).toBe(true);
      expect(runner.hasHandlers("tool_result")).toBe(false);
      expect(runner.hasHandlers("turn_start")).toBe(false);
      expect(runner.hasHandlers("no_such_event")).toBe(false);
    });

    it("is false for every event on a runner without hooks, whose emits return the contract's empty results", async () => {
      const runner = track(new HookRunner([], ROOT, createSessionManager(), {} as never));
      expect(runner.hasHandlers("tool_call")).toBe(false);
      expect(await emitAny(runner, sample("tool_call"))).toBeUndefined();
      expect(await emitAny(runner, sample("session_before_switch"))).toBeUndefined();
      expect(await runner.emitContext(MESSAGES)).toBe(MESSAGES);
      expect(await runner.emitBeforeAgentStart("p")).toBeUndefined();
    });
  });

  describe("events nobody subscribed to", () => {
    it("reach no worker: a hook that watches its worker's every request sees only its own events", async () => {
      const { runner, sent } = await start(["records-every-request", "records-call-order"]);
      await runner.emit(sample("turn_start"));
      await runner.emit(sample("turn_end"));
      await runner.emit({ type: "no_one_listens" } as never);
      await runner.emitToolCall(sample("tool_call") as never);
      await runner.emit(sample("agent_start"));
      expect(sent.filter((s) => s.message.customType === "seen").map((s) => s.message.content)).toEqual(["turn_start"]);
    });

    it("an emit of an event no hook subscribed to resolves with the contract's empty result", async () => {
      const { runner, calls } = await start(["returns-block-true"]);
      expect(await runner.emit(sample("tool_result"))).toBeUndefined();
      expect(await runner.emitContext(MESSAGES)).toBe(MESSAGES);
      expect(calls()).toEqual([]);
    });
  });

  describe("context over real workers", () => {
    it("emitContext returns the very input array when no handler changed it", async () => {
      const { runner, calls } = await start(["records-call-order", "registers-two-handlers"]);
      expect(await runner.emitContext(MESSAGES)).toBe(MESSAGES);
      expect(calls()).toHaveLength(3);
    });

    it("the drops-debug-messages example filters the context and the next hook sees the filtered list", async () => {
      const { runner, received } = await start(["drops-debug-messages", "records-call-order"]);
      expect(await runner.emitContext(MESSAGES)).toEqual([MESSAGES[0]]);
      expect(received().map((e) => e.messages)).toEqual([[MESSAGES[0]]]);
    });
  });

  describe("what each handler receives", () => {
    it("tool_result is not chained: every handler receives the tool's own content, not an earlier override", async () => {
      const { runner, received } = await start(["returns-first-result", "records-call-order"]);
      const event = sample("tool_result");
      await runner.emit(event);
      expect(received().map((e) => e.content)).toEqual([(event as { content: unknown }).content, (event as { content: unknown }).content]);
    });

    it("before_agent_start handlers receive the prompt and the images", async () => {
      const { runner, received } = await start(["records-call-order", "registers-two-handlers"]);
      const images = [{ type: "image" as const, data: "aGk=", mimeType: "image/png" }];
      await runner.emitBeforeAgentStart("look", images);
      expect(received()).toEqual(Array(3).fill({ type: "before_agent_start", prompt: "look", images }));
    });

    it("an AbortSignal in the payload reaches the handler live: aborting it on the host aborts it in the worker", async () => {
      const { runner } = await start(["cancels-compaction-when-aborted"]);
      const controller = new AbortController();
      const pending = runner.emit({ ...(sample("session_before_compact") as object), signal: controller.signal } as never);
      controller.abort();
      expect(await pending).toEqual({ cancel: true });
    });

    it("each entry of a loaded hook's handlers map runs that one handler in the worker", async () => {
      const { runner, calls } = await start(["registers-two-handlers"]);
      const handlers = runner.getHooks()[0]!.handlers.get("tool_call")!;
      expect(handlers).toHaveLength(2);
      await handlers[1]!(sample("tool_call"), runner.createCommandContext());
      expect(calls()).toEqual(["registers-two-handlers tool_call#1"]);
    });
  });
});
