/**
 * isolate() inside pi's own loader and runner appends to the audit log by default
 * ($XDG_STATE_HOME/hookbox): each tool call a module saw, with pi as the agent, and a module that
 * did not load, which blocks every tool call before any hook runs, recorded with its code.
 * HOOKBOX_AUDIT=off appends nothing (the control).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolate } from "../src/extension/adapter.js";
import { readAuditLog } from "../src/observe/read-log.js";
import { ROOT } from "./helpers/host.js";
import { ISOLATION } from "./support/isolation.js";
import { importPi, installPiDir } from "./support/pi-agent.js";

type Any = any;
let loader: Any;
let Runner: Any;
let SessionManager: Any;
const state = mkdtempSync(join(tmpdir(), "hookbox-audit-isolate-"));
const saved = { XDG_STATE_HOME: process.env.XDG_STATE_HOME, HOOKBOX_AUDIT: process.env.HOOKBOX_AUDIT };

beforeAll(async () => {
  ({ loader, Runner, SessionManager } = await importPi(installPiDir()));
  process.env.XDG_STATE_HOME = state;
}, 300_000);
afterAll(() => {
  for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  rmSync(state, { recursive: true, force: true });
});

/** A tool call `id` through isolate(paths) in pi's runner; what pi's runner answered. */
async function toolCallInPi(paths: string[], id: string): Promise<unknown> {
  const runtime = loader.createExtensionRuntime();
  const extension = await loader.loadExtensionFromFactory(isolate(paths, { isolation: ISOLATION }), ROOT, undefined, runtime, "<isolated>");
  const runner = new Runner([extension], runtime, ROOT, SessionManager.inMemory(ROOT), {});
  runner.onError(() => {});
  await runner.emit({ type: "session_start", reason: "startup" });
  try {
    return await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: id, input: { command: "rm -rf /" } });
  } finally {
    await runner.emit({ type: "session_shutdown", reason: "quit" });
  }
}

describe("isolate()'s audit log", () => {
  it("records each tool call a module blocked, and a module that did not load blocking one, by default; HOOKBOX_AUDIT=off records nothing", async () => {
    expect(await toolCallInPi([join(ROOT, "fixtures/extensions/blocks-rm-rf.ts")], "pi-blocked")).toMatchObject({ block: true });
    expect(await toolCallInPi([join(ROOT, "fixtures/extensions/no-such-module.ts")], "pi-unloaded")).toMatchObject({ block: true });
    process.env.HOOKBOX_AUDIT = "off";
    try {
      expect(await toolCallInPi([join(ROOT, "fixtures/extensions/blocks-rm-rf.ts")], "pi-off")).toMatchObject({ block: true });
    } finally {
      delete process.env.HOOKBOX_AUDIT;
    }
    const { records, invalid } = readAuditLog(join(state, "hookbox"));
    expect(invalid).toBe(0);
    expect(records.map((r) => [r.tool?.callId, r.agent, r.outcome, r.code ?? null, r.blocked, r.hook?.path.split("/").at(-1)])).toEqual([
      ["pi-blocked", "pi", "blocked", null, true, "blocks-rm-rf.ts"],
      ["pi-unloaded", "pi", "failed", "load_failed", true, "no-such-module.ts"],
    ]);
    expect(records[0]).toMatchObject({ isolation: ISOLATION, project: process.cwd(), event: "tool_call" });
  });
});
