/**
 * Hook text reaches the embedder's UI (and hookbox's CLI) only through the
 * terminal-text gate. One fixture writes the same hostile text to every surface; each surface gets
 * the letters and the SGR colour, nothing else (or the letters alone with `colors: false`).
 */
import { describe, expect, it } from "vitest";
import { createNoOpUIContext, type HookUIContext } from "../src/index.js";
import { StatusLine } from "../src/runner/status-line.js";
import { EVIL } from "../fixtures/hostile/writes-terminal-control-sequences.js";
import { TITLE } from "../fixtures/valid/asks-with-multiline-titles.js";
import { start, until } from "./helpers/host.js";
import { toolCall, turnStart } from "./helpers/events.js";
import { hookbox } from "./cli-run.js";
import { ISOLATION } from "./support/isolation.js";

const FIXTURE = "hostile/writes-terminal-control-sequences.ts";
/** What the gate leaves of EVIL: the letters and the SGR colour around H. */
const CLEAN = "ABCDEFG\x1b[31mH\x1b[0mIJ";
const PLAIN = "ABCDEFGHIJ";
/** Any control character but the SGR sequences of CLEAN. */
const live = (text: string) => text.replace(/\x1b\[(31|0)m/g, "").match(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);

/** A UI that records every text it was given, with the prompt answers a user would give. */
function recordingUI(shown: Array<[string, ...unknown[]]>, status: StatusLine, pick = 1): HookUIContext {
  return {
    ...createNoOpUIContext(),
    select: async (title, options) => { shown.push(["select", title, options]); return options[pick]; },
    confirm: async (title, message) => { shown.push(["confirm", title, message]); return true; },
    input: async (title, placeholder) => { shown.push(["input", title, placeholder]); return "typed"; },
    editor: async (title, prefill) => { shown.push(["editor", title, prefill]); return "edited"; },
    notify: (message, type) => { shown.push(["notify", message, type]); },
    setStatus: (key, text) => { shown.push(["setStatus", key, text]); status.set(key, text); },
    setEditorText: (text) => { shown.push(["setEditorText", text]); },
  };
}

async function withUI(colors?: boolean, pick = 1) {
  const shown: Array<[string, ...unknown[]]> = [];
  const status = new StatusLine();
  const host = await start([FIXTURE], {
    init: { uiContext: recordingUI(shown, status, pick), hasUI: true },
    load: colors === undefined ? {} : { terminalText: { colors } },
  });
  return { ...host, shown, status };
}

describe("the terminal-text gate on every surface", () => {
  it("log lines (pi.logger, stdout, stderr) reach onLog without control sequences, SGR kept (or not, with colors: false)", async () => {
    for (const colors of [true, false]) {
      const logs: Array<[string, string]> = [];
      const { runner } = await start([FIXTURE], { load: { terminalText: { colors }, onLog: (_hook, level, line) => { logs.push([level, line]); } } });
      await runner.emit({ type: "agent_end", messages: [] } as never);
      await until(() => logs.length >= 3, 5_000, "three log lines");
      const want = colors ? CLEAN : PLAIN;
      expect(logs.filter(([, line]) => line.includes("A")).sort()).toEqual([["stderr", want], ["stdout", want], ["warn", want]]);
    }
  });

  it("prompt titles, options, placeholders and prefills, notify, setStatus, setEditorText and a message's text reach the host without control sequences, SGR kept", async () => {
    const { runner, shown, status, entries, sent } = await withUI();
    await runner.emit(turnStart());
    await until(() => shown.length >= 7, 5_000, "every UI call");
    expect(shown).toEqual([
      ["select", CLEAN, [CLEAN, "plain"]],
      ["confirm", CLEAN, CLEAN],
      ["input", CLEAN, CLEAN],
      ["editor", CLEAN, `${CLEAN}\n${CLEAN}`],
      ["notify", CLEAN, "info"],
      ["setStatus", "evil", CLEAN],
      ["setEditorText", CLEAN],
    ]);
    expect(status.render(80)).toEqual([CLEAN]);
    expect(sent.map((m) => m.message.content)).toEqual([CLEAN]);
    // The hook still gets the answers; a chosen option is the hook's own text, not the text shown.
    expect(entries).toEqual([["answers", ["plain", true, "typed", "edited"]]]);
  });

  it("a dialog's title and message keep their newlines and tabs (layout, not controls), as in the agent's own process", async () => {
    const shown: Array<[string, ...unknown[]]> = [];
    const { runner, entries } = await start(["asks-with-multiline-titles"], { init: { uiContext: recordingUI(shown, new StatusLine(), 0), hasUI: true } });
    await runner.emit(turnStart());
    await until(() => entries.length >= 1, 5_000, "the answers");
    expect(shown).toEqual([
      ["select", TITLE, ["Yes", "No"]],
      ["confirm", TITLE, TITLE],
      ["input", TITLE, "reason"],
      ["editor", TITLE, TITLE],
    ]);
    expect(entries).toEqual([["answers", ["Yes", true, "typed", "edited"]]]);
  });

  it("with terminalText: { colors: false } the SGR colour goes too; the option the user picks reaches the hook as the hook wrote it", async () => {
    const { runner, shown, entries } = await withUI(false, 0);
    await runner.emit(turnStart());
    await until(() => shown.length >= 7, 5_000, "every UI call");
    expect(shown.map((s) => s[1])).toEqual([PLAIN, PLAIN, PLAIN, PLAIN, PLAIN, "evil", PLAIN]);
    expect((entries[0]![1] as unknown[])[0]).toBe(EVIL);
  });

  it("a block reason and a thrown error's message (onError and the error emitToolCall would carry) hold no control sequence", async () => {
    const { runner, errors } = await withUI();
    expect(await runner.emitToolCall(toolCall())).toEqual({ block: true, reason: CLEAN });
    await runner.emit({ type: "session_start" });
    expect(errors.map((e) => e.code)).toEqual(["handler_threw"]);
    expect(errors[0]!.error).toBe(PLAIN);
    expect(live(errors[0]!.stack ?? "")).toBeNull();
  });

  it.runIf(ISOLATION === "worker")("renderer lines and ctx.ui.custom() component lines pass the gate, a newline in a line becoming a space", async () => {
    const frames: string[][] = [];
    const ui: HookUIContext = {
      ...createNoOpUIContext(),
      custom: ((factory: (tui: unknown, theme: unknown, done: (v: unknown) => void) => { render(w: number): string[] }) => new Promise((resolve) => {
        frames.push(factory({ requestRender: () => {} }, createNoOpUIContext().theme, resolve).render(80));
      })) as never,
    };
    const { runner, errors } = await start([FIXTURE], { init: { uiContext: ui, hasUI: true }, load: { renderTimeoutMs: 10_000 } });
    const component = runner.getMessageRenderer("evil")!({ role: "custom", customType: "evil", content: "", display: true, timestamp: 0 }, { expanded: false }, createNoOpUIContext().theme)!;
    expect(component.render(80)).toEqual([CLEAN, `${CLEAN} ${CLEAN}`]);
    await runner.getCommand("evil-custom")!.handler("", runner.createCommandContext());
    expect(frames).toEqual([[CLEAN]]);
    expect(errors).toEqual([]);
  });

  it("hookbox's CLI writes hook text without control sequences (prompts, messages, block reasons, errors; text and JSON output)", async () => {
    const isolation = ["--isolation", ISOLATION];
    const turn = await hookbox(["emit", `fixtures/${FIXTURE}`, ...isolation, "--event", "turn_start", "--payload", '{"turnIndex":0,"timestamp":1}', "--confirm", "yes"]);
    expect(turn.code).toBe(0);
    expect(turn.stdout).toContain(`message   evil: ${PLAIN}`);
    expect(turn.stdout).toContain(`ui        notify`);
    expect(live(turn.stdout + turn.stderr)).toBeNull();
    const call = await hookbox(["emit", `fixtures/${FIXTURE}`, ...isolation, "--event", "tool_call", "--payload", JSON.stringify({ toolName: "bash", toolCallId: "1", input: {} })]);
    expect(call.stdout).toContain(`blocked   yes: ${PLAIN}`);
    const thrown = await hookbox(["emit", `fixtures/${FIXTURE}`, ...isolation, "--event", "session_start", "--json"]);
    expect(JSON.parse(thrown.stdout).errors[0].error).toBe(PLAIN);
    expect(live(call.stdout + thrown.stdout)).toBeNull();
    expect(EVIL).not.toBe(PLAIN);
  });
});
