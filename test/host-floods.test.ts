/** Floods: bounded per hook, each kind reported a bounded number of times, the hook ended past its budget. */
import { describe, expect, it } from "vitest";
import { CALLBACK_WINDOW_MS, EXEC_RECORDS_PER_WINDOW, LOG_LINES_PER_WINDOW } from "../src/gates/callback-budget.js";
import { createNoOpUIContext } from "../src/index.js";
import { LIMITS } from "../worker/wire.mjs";
import { start, until } from "./helpers/host.js";
import { toolCall, turnStart } from "./helpers/events.js";

const HEALTHY = "valid/redacts-api-key.ts";
const redact = { type: "tool_result" as const, toolName: "read", toolCallId: "r", input: {}, content: [{ type: "text" as const, text: "API_KEY=k" }], isError: false };
const REDACTED = { content: [{ type: "text", text: "API_KEY=[REDACTED]" }] };
const ended = (errors: Array<{ error: string }>) => errors.some((e) => e.error.includes("its worker was ended"));

describe("floods", () => {
  it("4000 log lines in a burst reach onLog as 2000, then one summary line says how many were dropped", async () => {
    const lines: Array<[string, string]> = [];
    const { runner } = await start(["hostile/floods-log-lines.ts"], { load: { onLog: (_h, level, line) => lines.push([level, line]) } });
    await runner.emit(turnStart());
    await until(() => lines.length > LOG_LINES_PER_WINDOW, CALLBACK_WINDOW_MS + 5_000, "the summary line");
    await new Promise((r) => setTimeout(r, 200));
    expect(lines).toHaveLength(LOG_LINES_PER_WINDOW + 1);
    expect(lines.slice(0, -1).every(([level, line]) => /^(stdout|info)$/.test(level) && /^(line|logged) \d+$/.test(line))).toBe(true);
    expect(lines.at(-1)).toEqual(["warn", `[hookbox: 2000 log lines dropped (over ${LOG_LINES_PER_WINDOW} per ${CALLBACK_WINDOW_MS / 1000} s)]`]);
  }, 30_000);

  it("3000 forged denial reports reach onDenied as at most 2000 records, within the hook's log budget", async () => {
    const records: Array<{ permission: string; resource: string }> = [];
    const { runner, errors } = await start(["hostile/forges-denial-reports.ts"], { load: { onDenied: (_h, r) => records.push(r) } });
    await expect(runner.emitToolCall(toolCall())).resolves.toEqual({ block: true, reason: "forged 3000" });
    await until(() => records.length >= LOG_LINES_PER_WINDOW, CALLBACK_WINDOW_MS + 5_000, "the reports");
    await new Promise((r) => setTimeout(r, 200));
    expect(records).toHaveLength(LOG_LINES_PER_WINDOW);
    expect(records[0]).toEqual({ permission: "FileSystemWrite", resource: "/project/forged-0/x.log" });
    expect(errors).toEqual([]);
  }, 30_000);

  it("300 refused pi.exec calls with 4,000-character names reach onExec as 100 records cut to 200 characters, then one record says how many were dropped", async () => {
    const records: Array<{ command: string; args: string[]; refused?: string; dropped?: number }> = [];
    const { runner } = await start(["hostile/floods-exec-records.ts"], { load: { onExec: (_h, r) => records.push(r) } });
    await expect(runner.emitToolCall({ ...toolCall(), input: { count: 300 } })).resolves.toEqual({ block: true, reason: "asked 300" });
    await until(() => records.length > EXEC_RECORDS_PER_WINDOW, CALLBACK_WINDOW_MS + 5_000, "the summary record");
    await new Promise((r) => setTimeout(r, 200));
    expect(records).toHaveLength(EXEC_RECORDS_PER_WINDOW + 1);
    const reported = records.slice(0, -1);
    expect(reported.every((r) => r.command.startsWith("refused-") && r.command.length === 200 && r.command.endsWith(" [cut by hookbox]") && r.args[0]!.length === 200 && r.refused && r.refused.length <= 400)).toBe(true);
    expect(records.at(-1)).toEqual({ command: "", args: [], dropped: 200 });
  }, 30_000);

  it("5000 ui.confirm calls reach the UI one at a time, the excess is refused, and past the budget the hook is ended as protocol_violation", async () => {
    let open = 0;
    let most = 0;
    let shown = 0;
    const { runner, errors } = await start(["hostile/floods-prompts.ts", HEALTHY], { init: {
      hasUI: true,
      uiContext: {
        ...createNoOpUIContext(),
        confirm: async () => {
          shown++;
          most = Math.max(most, ++open);
          await new Promise((r) => setTimeout(r, 1));
          open--;
          return false;
        },
      },
    } });
    await runner.emit(turnStart());
    await until(() => ended(errors), 10_000, "the hook to be ended");
    expect(most).toBe(1);
    expect(shown).toBeLessThan(100);
    expect(new Set(errors.map((e) => e.code))).toEqual(new Set(["protocol_violation"]));
    expect(errors.length).toBeLessThanOrEqual(11);
    expect(await runner.emit(redact)).toEqual(REDACTED);
  });

  it("150 000 malformed messages are reported at most 11 times and end the hook as protocol_violation, once", async () => {
    const { runner, errors } = await start(["hostile/floods-malformed-messages.ts", HEALTHY], { load: { unresponsiveMs: 10_000 } });
    await runner.emit(turnStart());
    await until(() => ended(errors), 10_000, "the hook to be ended");
    await new Promise((r) => setTimeout(r, 200));
    expect(new Set(errors.map((e) => e.code))).toEqual(new Set(["protocol_violation"]));
    expect(errors.length).toBeLessThanOrEqual(11);
    expect(errors.filter((e) => e.error.includes("its worker was ended"))).toHaveLength(1);
    expect(await runner.emit(redact)).toEqual(REDACTED);
  });

  it("replies to a request already settled are not read, count against the budget, and end the hook as protocol_violation", async () => {
    const { runner, errors } = await start(["hostile/replies-to-settled-requests.ts", HEALTHY]);
    expect(await runner.emitToolCall(toolCall())).toEqual({ block: true, reason: "honest answer" });
    await until(() => ended(errors), 10_000, "the hook to be ended");
    expect(new Set(errors.map((e) => e.code))).toEqual(new Set(["protocol_violation"]));
    expect(errors[0]!.error).toContain("already settled");
    expect(errors.length).toBeLessThanOrEqual(11);
    expect(await runner.emit(redact)).toEqual(REDACTED);
  });
});

describe("calls held at once", () => {
  const HOLDS = "hostile/holds-many-host-calls-at-once.ts";
  const turn = (type: "turn_start" | "turn_end", n: number) => ({ type, turnIndex: n, timestamp: Date.now(), ...(type === "turn_end" ? { message: { role: "assistant", content: [] }, toolResults: [] } : {}) }) as never;

  it(`a hook's bridge calls are served ${LIMITS.maxConcurrentCalls} at once; past that each is refused as protocol_violation and its call rejects (the control: ${LIMITS.maxConcurrentCalls} at once are all answered)`, async () => {
    const registry = { getApiKey: async () => { await new Promise((r) => setTimeout(r, 300)); return "sk"; }, find: () => null };
    const { runner, entries, errors } = await start([HOLDS], { modelRegistry: registry, load: { policy: { modelRegistry: "keys" } }, init: { getModel: () => ({ id: "m1", provider: "p" }) as never } });
    await runner.emit(turn("turn_start", LIMITS.maxConcurrentCalls));
    expect(entries).toEqual([["settled", { answered: LIMITS.maxConcurrentCalls, refused: 0 }]]);
    expect(errors).toEqual([]);
    entries.length = 0;
    await runner.emit(turn("turn_start", LIMITS.maxConcurrentCalls + 16));
    expect(entries).toEqual([["settled", { answered: LIMITS.maxConcurrentCalls, refused: 16, reason: expect.stringContaining(`more than ${LIMITS.maxConcurrentCalls} bridge calls at once`) }]]);
    expect(errors).toHaveLength(LIMITS.reportedViolations);
    expect(errors.every((e) => e.code === "protocol_violation" && e.error.includes(`more than ${LIMITS.maxConcurrentCalls} bridge calls at once`))).toBe(true);
  });

  it(`a hook's UI prompts run one at a time with ${LIMITS.maxQueuedPrompts} waiting; past that each is refused as protocol_violation (the control: one on screen and ${LIMITS.maxQueuedPrompts} waiting are all answered)`, async () => {
    const confirm = async () => { await new Promise((r) => setTimeout(r, 50)); return true; };
    const { runner, entries, errors } = await start([HOLDS], { init: { hasUI: true, uiContext: { ...createNoOpUIContext(), confirm } } });
    await runner.emit(turn("turn_end", 1 + LIMITS.maxQueuedPrompts));
    expect(entries).toEqual([["settled", { answered: 1 + LIMITS.maxQueuedPrompts, refused: 0 }]]);
    expect(errors).toEqual([]);
    entries.length = 0;
    await runner.emit(turn("turn_end", 1 + LIMITS.maxQueuedPrompts + 3));
    expect(entries).toEqual([["settled", { answered: 1 + LIMITS.maxQueuedPrompts, refused: 3, reason: expect.stringContaining(`more than ${LIMITS.maxQueuedPrompts} UI prompts waiting`) }]]);
    expect(errors.map((e) => e.code)).toEqual(["protocol_violation", "protocol_violation", "protocol_violation"]);
  });
});
