import { describe, expect, it } from "vitest";
import { createNoOpUIContext, loadHooks, StatusLine, type HookUIContext, type Model, type Theme } from "../src/index.js";
import { fixture, host, start, until } from "./helpers/host.js";
import { toolCall } from "./helpers/events.js";
import { ISOLATION } from "./support/isolation.js";

const entries = [
  { type: "message", id: "e1", parentId: null },
  { type: "message", id: "e2", parentId: "e1" },
];
const sessionManager = {
  getEntry: (id: string) => entries.find((e) => e.id === id),
  getSessionFile: () => "/sessions/current.jsonl",
  getLeafId: () => "e2",
  getBranch: () => entries,
};
const theme: Theme = {
  fg: (color, text) => `<${color}>${text}</${color}>`, bg: (_c, t) => t, bold: (t) => t, italic: (t) => t, underline: (t) => t,
};

describe("HookContext in the worker", () => {
  it("a modelRegistry method of the contract the host's registry lacks is the host's set-up error, naming the method (the original accepts such a host)", async () => {
    let aborted = 0;
    const { runner } = await start(["valid/reads-context-synchronously.ts"], { init: {
      getModel: () => ({ id: "m1", provider: "p" }) as Model,
      isIdle: () => false,
      hasQueuedMessages: () => true,
      abort: () => { aborted++; },
      hasUI: true,
      uiContext: { ...createNoOpUIContext(), getEditorText: () => "draft", get theme() { return theme; } },
    }, sessionManager, modelRegistry: {} });
    // The host's registry here is an empty object, so find() does not exist on the host.
    const result = await runner.emitToolCall({ ...toolCall(), input: { entryId: "e2" } }).catch((e: Error) => e);
    expect(result).toBeInstanceOf(Error);
    expect((result as Error).message).toContain("ctx.modelRegistry.find(): the host's modelRegistry has no find() method (the host's set-up, not this hook's fault)");
    expect(aborted).toBe(0);
  });

  it("every synchronous member works, including modelRegistry methods and the theme", async () => {
    const { hooks } = await loadHooks([fixture("valid/reads-context-synchronously.ts")], process.cwd(), { isolation: ISOLATION });
    let aborted = 0;
    const { runner } = host(hooks, {
      cwd: "/the/cwd", sessionManager, modelRegistry: { find: (id: string) => ({ id, provider: "p" }) },
      init: {
        getModel: () => ({ id: "m1" }) as Model,
        isIdle: () => false, hasQueuedMessages: () => true, abort: () => { aborted++; }, hasUI: true,
        uiContext: { ...createNoOpUIContext(), getEditorText: () => "draft", get theme() { return theme; } },
      },
    });
    const result = await runner.emitToolCall({ ...toolCall(), input: { entryId: "e2" } });
    expect(JSON.parse(result!.reason!)).toEqual({
      entry: entries[1], sessionFile: "/sessions/current.jsonl", leafId: "e2", branchIds: ["e1", "e2"],
      isIdle: false, queued: true, model: "m1", found: { id: "m2", provider: "p" }, cwd: "/the/cwd", hasUI: true,
      editorText: "draft", styled: "<accent>hi</accent>",
    });
    // ctx.abort() is fire and forget: wait for it to reach the host, not for a fixed time.
    await until(() => aborted > 0, 5_000, "ctx.abort() to reach the host");
    expect(aborted).toBe(1);
  });
});

describe("HookUIContext", () => {
  it("each UI call reaches the host's uiContext (custom() too: the no-op UI's resolves without showing anything)", async () => {
    const calls: unknown[] = [];
    const status = new StatusLine();
    const ui: HookUIContext = {
      ...createNoOpUIContext(),
      select: async (title, options) => { calls.push(["select", title, options]); return options[1]; },
      input: async (title, placeholder) => { calls.push(["input", title, placeholder]); return "typed"; },
      editor: async (title, prefill) => { calls.push(["editor", title, prefill]); return "edited"; },
      confirm: async (title, message) => { calls.push(["confirm", title, message]); return true; },
      notify: (message, type) => { calls.push(["notify", message, type]); },
      setStatus: (key, text) => status.set(key, text),
      setEditorText: (text) => { calls.push(["setEditorText", text]); },
    };
    const { runner, sent } = await start(["valid/uses-every-ui-method.ts"], { init: { uiContext: ui, hasUI: true } });
    await runner.emit({ type: "session_start" });
    const report = JSON.parse(String(sent[0]!.message.content));
    expect(report.picked).toBe("b");
    expect(report.typed).toBe("typed");
    expect(report.edited).toBe("edited");
    expect(report.confirmed).toBe(true);
    expect(report.custom).toBe("resolved");
    expect(calls).toEqual([
      ["select", "Pick", ["a", "b"]], ["input", "Name", "placeholder"], ["editor", "Edit", "prefill"],
      ["confirm", "Sure?", "really"], ["notify", "hello", "warning"], ["setEditorText", "prefilled"],
    ]);
    expect(status.render(80)).toEqual(["first second line here"]);
  });

  it("a function in custom()'s options (pi's overlayOptions.visible, which the agent's terminal calls at each render) is refused by name; it cannot cross", async () => {
    let shown = 0;
    const ui: HookUIContext = { ...createNoOpUIContext(), custom: async () => { shown++; return undefined as never; } };
    const { runner, sent } = await start(["valid/custom-with-a-function-option.ts"], { init: { uiContext: ui, hasUI: true } });
    await runner.emit({ type: "session_start" });
    expect(sent[0]!.message.content).toBe("ctx.ui.custom's overlayOptions.visible is refused by hookbox/extension: the agent's terminal calls it synchronously, in its own process, and a function cannot cross the isolation boundary");
    expect(shown).toBe(0);
  });

  it("without a UI the no-op defaults answer: undefined, false and an empty editor", async () => {
    const { runner, sent } = await start(["valid/uses-every-ui-method.ts"]);
    await runner.emit({ type: "session_start" });
    const report = JSON.parse(String(sent[0]!.message.content));
    // JSON drops the undefined answers of select, input and editor.
    expect(report).toEqual({ confirmed: false, custom: "resolved" });
  });
});

describe("commands", () => {
  it("branch and navigateTree reach the host's handlers", async () => {
    const { runner, sent } = await start(["valid/branches-and-navigates.ts"], { init: {
      branchHandler: async (entryId) => ({ cancelled: entryId === "nope" }),
      navigateTreeHandler: async (targetId, options) => ({ cancelled: !(targetId === "target-1" && options?.summarize) }),
    } });
    await runner.getCommand("hop")!.handler("nope", runner.createCommandContext());
    expect(JSON.parse(String(sent[0]!.message.content))).toEqual({ branched: { cancelled: true }, moved: { cancelled: false } });
  });
});

describe("message renderers and signals", () => {
  // Synchronous rendering needs a shared buffer: worker isolation only (README, "Isolation modes").
  it.skipIf(ISOLATION !== "worker")("a renderer runs in the worker synchronously and styles with the host's theme", async () => {
    const { runner, errors } = await start(["valid/renders-with-theme.ts"], { init: { uiContext: { ...createNoOpUIContext(), get theme() { return theme; } } } });
    const render = runner.getMessageRenderer("status-card")!;
    const component = render({ role: "custom", customType: "status-card", content: "hello world", display: true, timestamp: 0 }, { expanded: true }, theme)!;
    expect(component.render(5)).toEqual(["<accent>[status-card]</accent>", "hello", "expanded"]);
    expect(runner.getMessageRenderer("plain")!({ role: "custom", customType: "plain", content: "", display: true, timestamp: 0 }, { expanded: false }, theme)).toBeUndefined();
    expect(errors).toEqual([]);
  });

  it.skipIf(ISOLATION !== "worker")("a renderer that throws or is too slow gives undefined and a HookError", async () => {
    const { runner, errors } = await start(["valid/renders-with-theme.ts"], { load: { renderTimeoutMs: 100 } });
    const msg = { role: "custom" as const, customType: "x", content: "", display: true, timestamp: 0 };
    expect(runner.getMessageRenderer("throws")!(msg, { expanded: false }, theme)).toBeUndefined();
    expect(runner.getMessageRenderer("slow")!(msg, { expanded: false }, theme)).toBeUndefined();
    expect(errors.map((e) => [e.code, e.event])).toEqual([["handler_threw", "render"], ["timeout", "render"]]);
  });

  it("an AbortSignal in a payload arrives live and aborts when the host's signal does", async () => {
    const { runner, sent } = await start(["valid/cancels-when-aborted.ts"]);
    const controller = new AbortController();
    const result = runner.emit({
      type: "session_before_compact", preparation: {} as never, branchEntries: [], signal: controller.signal,
    });
    // Abort only once the handler listens: the signal must cross live, not arrive already aborted.
    await until(() => sent.some((s) => s.message.customType === "waiting"), 5_000, "the handler to wait");
    controller.abort();
    expect(await result).toEqual({ cancel: true });
  });

  it("a payload holding a function is refused with a clear error before it is posted", async () => {
    const { runner, errors } = await start(["valid/cancels-when-aborted.ts"]);
    await runner.emit({ type: "session_before_compact", preparation: { fileOps: () => 1 } as never, branchEntries: [], signal: new AbortController().signal });
    expect(errors.map((e) => e.code)).toEqual(["handler_threw"]);
    expect(errors[0]!.error).toContain("cannot be sent to a worker");
  });
});
