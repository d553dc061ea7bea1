/**
 * The decision record: one per hook call, from the one place the runner settles a call, the same
 * shape (src/observe/record.ts) whatever happened: allowed, blocked by the hook, failed (crashed,
 * timeout) and fail closed, refused by the wall (effect_refused); content only when asked for.
 */
import { describe, expect, it } from "vitest";
import { decisionRecordSchema, type DecisionRecord } from "../src/observe/record.js";
import { start } from "./helpers/host.js";
import { toolCall, turnStart } from "./helpers/events.js";
import { ISOLATION } from "./support/isolation.js";
import { presets } from "../src/policy/policy.js";

async function recorded(names: string[], load: Record<string, unknown>, emit: (h: Awaited<ReturnType<typeof start>>) => Promise<unknown>, content = false) {
  const host = await start(names, { load });
  const records: DecisionRecord[] = [];
  host.runner.onRecord((r) => records.push(r), { content });
  await emit(host);
  for (const r of records) expect(decisionRecordSchema.parse(r)).toEqual(r);
  return records;
}

describe("decision records", () => {
  it("a tool call through a hook that allows and one that blocks gives one record per hook, with the call id, isolation and policy", async () => {
    const records = await recorded(["reports-bash-command-seen", "blocks-rm-rf"], {}, (h) => h.runner.emitToolCall(toolCall("rm -rf /", "id-1")));
    expect(records.map((r) => [r.hook?.path.split("/").at(-1), r.outcome, r.blocked, r.effect, r.code])).toEqual([
      ["reports-bash-command-seen.ts", "allowed", false, "observe", undefined],
      ["blocks-rm-rf.ts", "blocked", true, "restrict", undefined],
    ]);
    for (const r of records) {
      expect(r).toMatchObject({ v: 1, agent: "library", event: "tool_call", tool: { name: "bash", callId: "id-1" }, isolation: ISOLATION, project: process.cwd() });
      expect(r.durationMs).toBeGreaterThan(0);
      expect(r.content).toBeUndefined();
    }
  });

  it("a hook that crashes fails closed: outcome failed, code crashed, blocked", async () => {
    const [r] = await recorded(["faulty/exits-process.ts"], {}, (h) => h.runner.emitToolCall(toolCall("ls", "id-2")));
    expect(r).toMatchObject({ outcome: "failed", code: "crashed", blocked: true, tool: { callId: "id-2" } });
  });

  it("a hook that times out names its deadline and the option that changes it", async () => {
    const [r] = await recorded(["faulty/hangs-async.ts"], { deadlines: { default: 150 } }, (h) => h.runner.emitToolCall(toolCall("ls", "id-3")));
    expect(r).toMatchObject({ outcome: "failed", code: "timeout", blocked: true, limitMs: 150 });
    expect(r!.why).toMatch(/did not settle tool_call within 150 ms/);
    expect(r!.allow).toMatch(/deadlines option/);
  });

  it("an edit above the hook's policy.effects is refused by the wall and names the grant that allows it", async () => {
    const policy = ISOLATION === "sandbox" ? "untrusted" : { effects: "restrict" };
    const [r] = await recorded(["appends-dry-run-in-place"], { policy }, (h) => h.runner.emitToolCall(toolCall("ls", "id-4")));
    expect(r).toMatchObject({ outcome: "refused", code: "effect_refused", blocked: true });
    expect(r!.allow).toMatch(/policy\.effects: "substitute"/);
  });

  it("a fault on an event that is not about a tool is recorded without a tool and blocks nothing", async () => {
    const [r] = await recorded(["faulty/exits-process.ts"], {}, (h) => h.runner.emit(turnStart()));
    expect(r).toMatchObject({ event: "turn_start", outcome: "failed", code: "crashed", blocked: false });
    expect(r!.tool).toBeUndefined();
  });

  it("a hook whose edit was applied is a substitute effect", async () => {
    const records = await recorded(["appends-dry-run-in-place", "reports-bash-command-seen"], {}, (h) => h.runner.emitToolCall(toolCall("ls", "id-5")));
    expect(records.map((r) => [r.outcome, r.effect])).toEqual([["allowed", "substitute"], ["allowed", "observe"]]);
  });

  it("a hook under an annotate grant whose added context was applied is an annotate effect", async () => {
    const policy = ISOLATION === "sandbox" ? { ...presets.untrusted, effects: "annotate" } : { effects: "annotate" };
    const records = await recorded(["valid/adds-project-notes.ts"], { policy }, (h) => h.runner.emit({ type: "before_agent_start", prompt: "do it", systemPrompt: "You are pi." } as never));
    expect(records.map((r) => [r.outcome, r.effect])).toEqual([["allowed", "annotate"]]);
  });

  it("a tool call that reaches a hook while its worker restarts is skipped, code restarting, and blocked (fail closed); the crash before it failed", async () => {
    const host = await start(["faulty/crashes-every-call.ts"]);
    const records: DecisionRecord[] = [];
    host.runner.onRecord((r) => records.push(r));
    // Asked the moment the state changes, so the restart cannot have finished yet.
    const asked = new Promise<void>((resolve) => {
      host.runner.getHooks()[0]!.sandbox!.listen({ state: (s) => { if (s === "restarting") void host.runner.emitToolCall(toolCall("ls", "id-7")).then(() => resolve()); } });
    });
    await host.runner.emit(turnStart());
    await asked;
    for (const r of records) expect(decisionRecordSchema.parse(r)).toEqual(r);
    expect(records.map((r) => [r.event, r.outcome, r.code, r.blocked ?? false])).toEqual([["turn_start", "failed", "crashed", false], ["tool_call", "skipped", "restarting", true]]);
  });

  it("content (what the hook received and answered, its reason) is in a record only when asked for", async () => {
    const [r] = await recorded(["blocks-rm-rf"], {}, (h) => h.runner.emitToolCall(toolCall("rm -rf /", "id-6")), true);
    expect(r!.content).toEqual({ input: toolCall("rm -rf /", "id-6"), output: { block: true, reason: "rm -rf blocked (no UI)" }, reason: "rm -rf blocked (no UI)" });
  });
});
