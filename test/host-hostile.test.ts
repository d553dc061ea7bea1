import { describe, expect, it } from "vitest";
import { start, until } from "./helpers/host.js";
import { toolCall, turnStart } from "./helpers/events.js";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createNoOpUIContext, type HookUIContext } from "../src/index.js";
import { OVERLAY_OPTIONS } from "../fixtures/hostile/pads-the-screen-with-an-overlay-margin.js";
import { installPiDir } from "./support/pi-run.js";
import { ISOLATION } from "./support/isolation.js";
import { FORGED } from "../fixtures/hostile/forges-answers-to-custom-calls-it-never-made.js";
import { OVERLAY_CELLS } from "../src/bridge/methods.js";

const clean = () => {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty("polluted");
};
const redact = { type: "tool_result" as const, toolName: "read", toolCallId: "r", input: {}, content: [{ type: "text" as const, text: "API_KEY=k" }], isError: false };
const REDACTED = { content: [{ type: "text", text: "API_KEY=[REDACTED]" }] };

describe("hostile messages", () => {
  it("comlink SET/GET/CONSTRUCT walks sent over parentPort are dropped as protocol_violation", async () => {
    const { runner, errors } = await start(["hostile/posts-comlink-walks.ts", "valid/redacts-api-key.ts"]);
    expect(await runner.emitToolCall(toolCall())).toBeUndefined();
    await until(() => errors.length >= 4, 5_000, "four reports");
    expect(errors.map((e) => e.code)).toEqual(["protocol_violation", "protocol_violation", "protocol_violation", "protocol_violation"]);
    clean();
    expect(await runner.emit(redact)).toEqual(REDACTED);
  });

  it("forged replies to ids the host never sent are reported, and cannot speak for the real call", async () => {
    const { runner, errors } = await start(["hostile/forges-replies.ts", "valid/redacts-api-key.ts"]);
    expect(await runner.emitToolCall(toolCall())).toEqual({ block: true, reason: "honest answer" });
    await until(() => errors.length >= 1, 5_000, "a report");
    expect(new Set(errors.map((e) => e.code))).toEqual(new Set(["protocol_violation"]));
    expect(errors.every((e) => e.hookPath.endsWith("forges-replies.ts"))).toBe(true);
    expect(await runner.emit(redact)).toEqual(REDACTED);
  });

  it("an error that claims another hookPath is reported under the hook's own path", async () => {
    const { runner, errors } = await start(["hostile/forges-hook-path.ts"]);
    await runner.emit(turnStart());
    expect(errors).toHaveLength(1);
    expect(errors[0]!.code).toBe("handler_threw");
    expect(errors[0]!.hookPath.endsWith("forges-hook-path.ts")).toBe(true);
  });

  it("a result with an own __proto__ key is refused as invalid_result and the prototype stays clean", async () => {
    const { runner, errors } = await start(["hostile/returns-own-proto-key.ts"]);
    const result = await runner.emitToolCall(toolCall());
    expect(result?.block).toBe(true);
    expect(await runner.emit(redact)).toBeUndefined();
    expect(errors.map((e) => e.code)).toEqual(["invalid_result", "invalid_result"]);
    expect(errors[0]!.error).toContain("__proto__");
    clean();
  });

  it("a flood of sendMessage and setStatus calls is bounded, reported once, and the host stays responsive", async () => {
    const statuses: string[] = [];
    const { runner, errors, sent } = await start(["hostile/floods-messages.ts", "valid/redacts-api-key.ts"], { load: { maxPostsPerSecond: 500, unresponsiveMs: 10_000 }, init: {
      uiContext: { ...(await import("../src/index.js")).createNoOpUIContext(), setStatus: (_k, t) => { statuses.push(String(t)); } },
    } });
    const t0 = performance.now();
    await runner.emit(turnStart());
    expect(await runner.emit(redact)).toEqual(REDACTED);
    await until(() => errors.length > 0, 5_000, "the flood report");
    // 40 000 calls at 500 a second: most were refused (each started second lets 500 through).
    const windows = Math.ceil((performance.now() - t0) / 1000) + 1;
    expect(sent.length + statuses.length).toBeLessThanOrEqual(500 * windows);
    expect(sent.length + statuses.length).toBeLessThan(40_000 / 2);
    expect(sent.length + statuses.length).toBeGreaterThan(0);
    expect(errors.map((e) => e.code)).toEqual(["protocol_violation"]);
  });

  it("getter-laden results are cloned, cyclic ones refused as invalid_result and throwing getters reported as handler_threw", async () => {
    const { runner, errors } = await start(["hostile/returns-tricky-objects.ts"]);
    expect(await runner.emit({ ...redact, toolCallId: "getter" })).toEqual({ content: [{ type: "text", text: "from a getter" }] });
    expect(await runner.emit({ ...redact, toolCallId: "cyclic" })).toBeUndefined();
    expect(await runner.emit({ ...redact, toolCallId: "throwing-getter" })).toBeUndefined();
    expect(errors.map((e) => e.code)).toEqual(["invalid_result", "handler_threw"]);
    expect(errors[0]!.error).toContain("cycle");
    expect(errors[1]!.error).toContain("getter exploded");
  });

  it("unknown bridge methods and malformed arguments are refused as protocol_violation", async () => {
    const { runner, errors, sent } = await start(["hostile/calls-unknown-bridge-methods.ts"]);
    await runner.emit(turnStart());
    await until(() => errors.length >= 4, 5_000, "four reports");
    expect(errors.map((e) => e.code)).toEqual(["protocol_violation", "protocol_violation", "protocol_violation", "protocol_violation"]);
    expect(sent).toEqual([]);
    clean();
  });
});

describe("the agent's UI", () => {
  it("custom() overlay options past the terminal's size (a top margin of 1e9, which pi's TUI pads its screen down to) are refused as protocol_violation and never reach the host's UI", async () => {
    // Control: pi's own TUI places an overlay with these options a billion rows down (it would push that many lines at each render).
    const { TUI } = await import(pathToFileURL(join(installPiDir(), "node_modules", "@mariozechner", "pi-tui", "dist", "tui.js")).href);
    expect(new TUI({ columns: 80, rows: 24 }).resolveOverlayLayout(OVERLAY_OPTIONS, 1, 80, 24).row).toBe(1e9);
    const shown: unknown[] = [];
    const ui: HookUIContext = { ...createNoOpUIContext(), custom: async (_factory: unknown, options?: unknown) => { shown.push(options); return undefined as never; } };
    const { runner, errors, sent } = await start(["hostile/pads-the-screen-with-an-overlay-margin.ts"], { init: { uiContext: ui, hasUI: true } });
    await runner.emit({ type: "session_start" });
    await until(() => sent.length > 0, 5_000, "the module's report");
    expect(shown).toEqual([]);
    expect(errors.map((e) => e.code)).toEqual(["protocol_violation"]);
    expect(errors[0]!.error).toContain("overlayOptions.margin");
    expect(sent[0]!.message.content).toContain("overlayOptions.margin");
  });

  it(`custom() overlay options at the bound (a margin of ${OVERLAY_CELLS} cells, an offset of -${OVERLAY_CELLS}) are taken; one cell past it (${OVERLAY_CELLS + 1}, -${OVERLAY_CELLS + 1}) is refused as protocol_violation and never reaches the host's UI`, async () => {
    const shown: unknown[] = [];
    const ui: HookUIContext = { ...createNoOpUIContext(), custom: async (_factory: unknown, options?: unknown) => { shown.push(options); return undefined as never; } };
    const { runner, errors } = await start(["hostile/pads-the-screen-with-an-overlay-margin.ts"], { init: { uiContext: ui, hasUI: true } });
    const overlay = async (top: number, offsetX: number) => (await runner.emitToolCall({ ...toolCall(), input: { top, offsetX } }))!.reason;
    // This UI never calls the factory: the host's UI is reached in every mode (a child's custom() is refused only when its factory runs).
    expect(await overlay(OVERLAY_CELLS, -OVERLAY_CELLS)).toBe("shown");
    expect(errors).toEqual([]);
    expect(shown).toEqual([{ overlay: true, overlayOptions: { anchor: "top-left", width: 20, offsetX: -OVERLAY_CELLS, margin: { top: OVERLAY_CELLS } } }]);
    expect(await overlay(OVERLAY_CELLS + 1, 0)).toContain("overlayOptions.margin");
    expect(await overlay(0, -OVERLAY_CELLS - 1)).toContain("overlayOptions.offsetX");
    expect(errors.map((e) => e.code)).toEqual(["protocol_violation", "protocol_violation"]);
    expect(shown).toHaveLength(1);
  });

  it("custom() answers for calls the module never made are refused as protocol_violation: the host keeps none, and its first real call gets the answer its component gave", async () => {
    // A TUI's custom(): calls the factory it is given, shows what it returned, resolves with done's value.
    const ui: HookUIContext = { ...createNoOpUIContext(), custom: ((factory: (tui: unknown, theme: unknown, done: (v: unknown) => void) => unknown) => new Promise((resolve, reject) => {
      try { void Promise.resolve(factory({ requestRender() {} }, {}, resolve as (v: unknown) => void)).catch(reject); } catch (err) { reject(err); }
    })) as HookUIContext["custom"] };
    const { runner, errors, sent } = await start(["hostile/forges-answers-to-custom-calls-it-never-made.ts"], { init: { uiContext: ui, hasUI: true }, load: { renderTimeoutMs: 5_000 } });
    await runner.emit({ type: "session_start" });
    await until(() => sent.length > 0, 10_000, "the module's report");
    expect(sent[0]!.message.content).toBe(ISOLATION === "worker" ? "honest" : `ctx.ui.custom() needs synchronous rendering, which ${ISOLATION} mode does not have`);
    // The first 10 violations are reported one by one (the rest counted).
    expect(errors.map((e) => e.code)).toEqual(Array(Math.min(FORGED, 10)).fill("protocol_violation"));
    expect(errors[0]!.error).toContain("custom:1");
  });
});
