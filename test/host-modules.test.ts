/**
 * Beyond the original: host modules a hook imports by name, whose functions run on the
 * host, and `ctx.ui.custom()` with the component in the worker. The end-to-end case is the
 * examples' Q&A command: a completion through a host module while a custom() loader spins, confined.
 */
import { describe, expect, it } from "vitest";
import { createNoOpUIContext, loadHooks, type Theme } from "../src/index.js";
import { hostModuleManifest } from "../src/bridge/host-modules.js";
import { presets } from "../src/policy/policy.js";
import type { HookUIContext } from "../src/contract/types.js";
import { sample } from "./helpers/events.js";
import { ROOT, fixture, host, until } from "./helpers/host.js";
import { IN_PROCESS, ISOLATION } from "./support/isolation.js";

const API_KEY = "sk-host-only-123";

/** The agent's LLM client as a host module: `complete` uses a key the hook never sees. */
function aiModule(calls: unknown[]) {
  return {
    DEFAULT_SYSTEM_PROMPT: "You are terse.",
    convertToLlm: (messages: Array<{ role: string; content: unknown }>) =>
      messages.map((m) => ({ role: m.role, content: typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content, timestamp: 0 })),
    async complete(model: { id: string }, context: { messages: unknown[] }) {
      calls.push({ model: model.id, messages: context.messages, usedKey: API_KEY });
      await new Promise((r) => setTimeout(r, 80));
      return { content: [{ type: "text", text: "1. Why now?\n2. Which branch?" }], stopReason: "stop" };
    },
    Client: class { secret = API_KEY; },
    handle: { key: API_KEY, call: () => API_KEY },
  };
}

const theme: Theme = { fg: (c, t) => `<${c}>${t}</${c}>`, bg: (_c, t) => t, bold: (t) => t, italic: (t) => t, underline: (t) => t };

async function load(rel: string, calls: unknown[], policy?: object) {
  const { hooks, errors } = await loadHooks([fixture(rel)], ROOT, {
    isolation: ISOLATION, hostModules: { "@hookbox-fixtures/ai": aiModule(calls) }, ...(policy ? { policy } : {}),
    // The render bound is not under test here: a loaded machine must not turn a frame into [].
    renderTimeoutMs: 10_000,
  });
  return { hooks, errors };
}

describe("host modules", () => {
  it("a confined hook imports a host module by name; its async function runs on the host and its sync one stays sync", async () => {
    const calls: unknown[] = [];
    const { hooks, errors } = await load("valid/host-modules/summarizes-compaction-with-host-llm.ts", calls);
    expect(errors).toEqual([]);
    const { runner } = host(hooks, { init: { getModel: () => ({ id: "m1" }) as never } });
    const event = sample("session_before_compact") as unknown as { preparation: { messagesToSummarize: unknown[] } };
    event.preparation.messagesToSummarize = [{ role: "user", content: "ship it?", timestamp: 1 }];
    const result = await runner.emit(event as never);
    expect(result).toEqual({ compaction: { summary: "1. Why now?\n2. Which branch?", firstKeptEntryId: "e1", tokensBefore: 100 } });
    expect(calls).toEqual([{ model: "m1", messages: [{ role: "user", content: [{ type: "text", text: "ship it?" }], timestamp: 0 }], usedKey: API_KEY }]);
  });

  it("a host module the hook's policy does not name cannot be imported", async () => {
    const { errors } = await load("valid/host-modules/summarizes-compaction-with-host-llm.ts", [], { hostModules: [] });
    expect(errors.map((e) => e.code)).toEqual(["load_failed"]);
    expect(errors[0]!.error).toContain('the host module "@hookbox-fixtures/ai" is offered, but not to this hook: policy.hostModules does not list it');
  });

  it("the untrusted preset offers no host module: the import fails naming policy.hostModules", async () => {
    expect(hostModuleManifest({ "@hookbox-fixtures/ai": aiModule([]) }, presets.untrusted)).toEqual({});
    if (ISOLATION !== "sandbox") return; // untrusted implies the sandbox
    const { errors } = await load("valid/host-modules/summarizes-compaction-with-host-llm.ts", [], "untrusted" as never);
    expect(errors.map((e) => e.code)).toEqual(["load_failed"]);
    expect(errors[0]!.error).toContain('the host module "@hookbox-fixtures/ai" is offered, but not to this hook: policy.hostModules does not list it (the untrusted preset lists none)');
  });

  it("a hook that asks on the raw wire for a class, an object, a prototype member or a module it was not offered is refused as protocol_violation, and nothing runs", async () => {
    const calls: unknown[] = [];
    const { hooks, errors: loadErrors } = await load("hostile/calls-host-module-internals.ts", calls);
    expect(loadErrors).toEqual([]);
    const { runner, errors } = host(hooks);
    await runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 0 });
    await until(() => errors.length >= 5, 5_000, "five reports");
    expect(errors.map((e) => e.code)).toEqual(Array(5).fill("protocol_violation"));
    expect(errors.slice(0, 4).map((e) => e.error.match(/sent a message outside the protocol, which was dropped: (.*)/)?.[1])).toEqual([
      "@hookbox-fixtures/ai.Client is not a function the host offers to this hook",
      "@hookbox-fixtures/ai.handle is not a function the host offers to this hook",
      // The bridge table refuses a prototype builtin before the host-module layer sees the call.
      "bad arguments to hostModule: 1: that name is not callable",
      "node:fs.readFileSync is not a function the host offers to this hook",
    ]);
    expect(calls).toEqual([]);
  });

  it("only a module's own exported functions are offered, and values that are plain data: no classes, no objects holding functions", () => {
    expect(hostModuleManifest({ "@hookbox-fixtures/ai": aiModule([]) }, presets.confined)).toEqual({
      "@hookbox-fixtures/ai": { functions: ["convertToLlm", "complete"], values: { DEFAULT_SYSTEM_PROMPT: "You are terse." } },
    });
  });
});

/** A TUI's custom(): shows the component, renders it on every requestRender, types Escape when told. */
function tuiWithCustom(frames: string[][], opts: { escapeAfterFrames?: number } = {}): HookUIContext {
  return {
    ...createNoOpUIContext(),
    get theme() { return theme; },
    custom: (factory) => new Promise((resolve) => {
      let component: { render(w: number): string[]; handleInput?(d: string): void } | undefined;
      const tui = {
        requestRender: () => {
          if (!component) return;
          frames.push(component.render(60));
          if (opts.escapeAfterFrames !== undefined && frames.length === opts.escapeAfterFrames) component.handleInput?.("\u001b");
        },
      };
      component = (factory as (t: unknown, th: Theme, done: (v: unknown) => void) => typeof component)(tui, theme, resolve as never);
      frames.push(component!.render(60));
    }) as never,
  };
}

async function qna(ui: HookUIContext, calls: unknown[]) {
  const { hooks, errors } = await load("valid/host-modules/qna-command.ts", calls);
  expect(errors).toEqual([]);
  const notes: unknown[] = [];
  let editor = "";
  const { runner } = host(hooks, {
    sessionManager: { getBranch: () => [
      { type: "message", message: { role: "user", content: "plan?" } },
      { type: "message", message: { role: "assistant", content: "Why now? Which branch?" } },
    ] },
    init: {
      getModel: () => ({ id: "m1" }) as never, hasUI: true,
      uiContext: { ...ui, notify: (m, t) => { notes.push([m, t]); }, setEditorText: (t) => { editor = t; } },
    },
  });
  const failure = await runner.getCommand("qna")!.handler("", runner.createCommandContext()).catch((e: Error) => e);
  return { failure, notes, editor: () => editor };
}

describe("ctx.ui.custom()", () => {
  it.skipIf(IN_PROCESS)("the examples' Q&A command runs confined: a host-module completion while its custom() loader renders on the host, done() resolves it", async () => {
    const calls: unknown[] = [];
    const frames: string[][] = [];
    const { failure, notes, editor } = await qna(tuiWithCustom(frames), calls);
    expect(failure).toBeUndefined();
    expect(editor()).toBe("1. Why now?\n2. Which branch?");
    expect(notes).toEqual([["Questions loaded. Edit and submit when ready.", "info"]]);
    expect(calls).toEqual([{ model: "m1", messages: [{ role: "assistant", content: [{ type: "text", text: "Why now? Which branch?" }], timestamp: 0 }], usedKey: API_KEY }]);
    // Every frame is the worker's loader, styled by the host's theme, its spinner moving with requestRender().
    expect(frames.length).toBeGreaterThan(1);
    for (const frame of frames) expect(frame).toEqual([expect.stringMatching(/^<accent>[|/\\-] Extracting questions using m1…<\/accent>$/)]);
  });

  it.skipIf(IN_PROCESS)("keys the host forwards reach the worker's component: Escape cancels through done()", async () => {
    const frames: string[][] = [];
    const { failure, notes, editor } = await qna(tuiWithCustom(frames, { escapeAfterFrames: 2 }), []);
    expect(failure).toBeUndefined();
    expect(notes).toEqual([["Cancelled", "info"]]);
    expect(editor()).toBe("");
  });

  it.runIf(IN_PROCESS)("in process and sandbox modes ctx.ui.custom() rejects, saying the mode has no synchronous rendering", async () => {
    const { failure } = await qna(tuiWithCustom([]), []);
    expect(failure).toMatchObject({ code: "handler_threw" });
    expect((failure as Error).message).toContain(`${ISOLATION} mode does not have`);
  });
});
