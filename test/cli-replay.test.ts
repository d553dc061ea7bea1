import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { hookbox, watching } from "./cli-run.js";
import { blocksWith, tempDir, writeHook } from "./helpers/files.js";

const line = (event: object) => JSON.stringify(event);
const RM = { type: "tool_call", toolName: "bash", toolCallId: "1", input: { command: "rm -rf /" } };
const LS = { type: "tool_call", toolName: "bash", toolCallId: "2", input: { command: "ls" } };
const TURN = { type: "turn_start", turnIndex: 0, timestamp: 1 };
const READ = { type: "tool_result", toolName: "read", toolCallId: "3", input: {}, content: [{ type: "text", text: "API_KEY=abc" }], isError: false };

function stream(lines: string[]): string {
  const dir = tempDir();
  return writeHook(dir, "events.jsonl", `${lines.join("\n")}\n`);
}

describe("hookbox replay", () => {
  it("prints one line per event in order, then the per-hook table, and exits 0", async () => {
    const events = stream([line(TURN), line(LS), line(RM), line(READ)]);
    const r = await hookbox(["replay", "fixtures/valid/blocks-rm-rf.ts", "fixtures/valid/redacts-api-key.ts", "--events", events]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines.slice(0, 4)).toEqual([
      "line 1  turn_start            ok",
      "line 2  tool_call             allowed",
      "line 3  tool_call             blocked: rm -rf blocked (no UI)",
      'line 4  tool_result           result {"content":[{"type":"text","text":"API_KEY=[REDACTED]"}]}',
    ]);
    expect(r.stdout).toContain("\n4 events replayed; 1 tool call blocked, 0 errors\n");
    expect(lines.find((l) => l.startsWith("hook "))).toMatch(/^hook\s+state\s+event\s+calls\s+p50\s+p99\s+errors\s+restarts$/);
    expect(lines.find((l) => l.startsWith("fixtures/valid/blocks-rm-rf.ts"))).toMatch(/^fixtures\/valid\/blocks-rm-rf\.ts\s+ready\s+tool_call\s+2\s+[\d.]+ ms\s+[\d.]+ ms\s+-\s+0$/);
    expect(lines.find((l) => l.startsWith("fixtures/valid/redacts-api-key.ts"))).toMatch(/\s+tool_result\s+1\s/);
  });

  it("reports a malformed line with its line number, skips it and counts it in the summary", async () => {
    const events = stream([line(TURN), "not json", "", line({ type: "nope" }), "[1]", line({ toolName: "bash" }), line(RM)]);
    const r = await hookbox(["replay", "fixtures/valid/blocks-rm-rf.ts", "--events", events]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^line 2  skipped: not valid JSON: /m);
    expect(r.stdout).toContain('line 4  skipped: unknown event type "nope"');
    expect(r.stdout).toContain("line 5  skipped: an event must be a JSON object, got an array");
    expect(r.stdout).toContain('line 6  skipped: the event has no "type" field');
    expect(r.stdout).toContain("line 7  tool_call             blocked: rm -rf blocked (no UI)");
    expect(r.stdout).toContain("2 events replayed, 4 malformed lines skipped (2, 4, 5, 6); 1 tool call blocked, 0 errors");
  });

  it("with --json prints one document: summary, each event by line, malformed lines, and runner.stats()", async () => {
    const events = stream([line(TURN), "{oops", line(RM), line(TURN)]);
    const r = await hookbox(["replay", "fixtures/valid/blocks-rm-rf.ts", "fixtures/faulty/crashes-every-call.ts", "--events", events, "--json"]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.summary).toEqual({ events: 3, malformed: 1, blocked: 1, errors: 1, edited: 0, refused: 0 });
    expect(doc.malformed).toEqual([{ line: 2, error: expect.stringMatching(/^not valid JSON/) }]);
    expect(doc.events.map((e: { line: number; event: string }) => [e.line, e.event])).toEqual([[1, "turn_start"], [3, "tool_call"], [4, "turn_start"]]);
    expect(doc.events[0].errors).toEqual([expect.objectContaining({ hookPath: "fixtures/faulty/crashes-every-call.ts", code: "crashed" })]);
    expect(doc.events[1]).toMatchObject({ blocked: true, reason: "rm -rf blocked (no UI)" });
    const [blocks, crashes] = doc.stats;
    expect(blocks).toMatchObject({ hookPath: "fixtures/valid/blocks-rm-rf.ts", state: "ready", events: { tool_call: { calls: 1 } }, errors: {}, restarts: 0 });
    expect(crashes).toMatchObject({ hookPath: "fixtures/faulty/crashes-every-call.ts", errors: { crashed: 1 } });
    expect(crashes.events.turn_start.p50).toBeLessThanOrEqual(crashes.events.turn_start.p99);
  });

  it("shows below each event the edits the host applied (field path: before → after) and what it refused, with its code; --json carries both", async () => {
    const hooks = ["fixtures/valid/appends-dry-run-in-place.ts", "fixtures/valid/redacts-secrets-in-place.ts", "fixtures/hostile/edits-tool-input-to-a-string.ts"];
    const result = { ...READ, content: [{ type: "text", text: "key sk-abc" }] };
    const events = stream([line(TURN), line(result), line(LS)]);
    const r = await hookbox(["replay", ...hooks, "--events", events]);
    expect(r.code).toBe(0);
    const refusal = 'Hook "fixtures/hostile/edits-tool-input-to-a-string.ts" edited event.input in place during tool_call to a value that is not valid, which was not applied';
    const lines = r.stdout.split("\n");
    expect(lines.slice(0, 3)).toEqual([
      "line 1  turn_start            ok",
      "line 2  tool_result           ok",
      '        edit content[0].text: "key sk-abc" → "key [REDACTED]"',
    ]);
    expect(lines[3]).toMatch(/^line 3  tool_call             blocked: /);
    expect(lines[4]).toBe('        edit input.command: "ls" → "ls --dry-run"');
    expect(lines[5]).toBe(`        refused invalid_result  fixtures/hostile/edits-tool-input-to-a-string.ts (tool_call): ${refusal}: (result): Invalid input: expected record, received string`);
    expect(r.stdout).toContain("\n3 events replayed; 1 tool call blocked, 1 error, 2 edited, 1 refused\n");
    const doc = JSON.parse((await hookbox(["replay", ...hooks, "--events", events, "--json"])).stdout);
    expect(doc.summary).toEqual({ events: 3, malformed: 0, blocked: 1, errors: 1, edited: 2, refused: 1 });
    expect(doc.events.map((e: { edits: unknown }) => e.edits)).toEqual([
      [], [{ path: "content[0].text", before: "key sk-abc", after: "key [REDACTED]" }], [{ path: "input.command", before: "ls", after: "ls --dry-run" }],
    ]);
    expect(doc.events[2].refused).toEqual([{ hookPath: "fixtures/hostile/edits-tool-input-to-a-string.ts", event: "tool_call", code: "invalid_result", error: expect.stringContaining(refusal) }]);
  });

  it("draws no progress bar when stdout is piped, however long the stream", async () => {
    const events = stream(Array.from({ length: 60 }, (_, i) => line({ ...LS, toolCallId: `c${i}` })));
    const r = await hookbox(["replay", "fixtures/valid/blocks-rm-rf.ts", "--events", events]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/[\r\x1b]/);
    expect(r.stdout.split("\n").filter((l) => l.startsWith("line ")).length).toBe(60);
  });

  it("reads the stream from stdin with --events -", async () => {
    const r = await hookbox(["replay", "fixtures/valid/blocks-rm-rf.ts", "--events", "-", "--json"], { stdin: `${line(RM)}\n${line(LS)}\n` });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).summary).toEqual({ events: 2, malformed: 0, blocked: 1, errors: 0, edited: 0, refused: 0 });
  });

  it("requires --events and a readable file, and refuses --watch with --json, with exit 2", async () => {
    const none = await hookbox(["replay", "fixtures/valid/blocks-rm-rf.ts"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^hookbox replay: --events <file.jsonl> is required/);
    const missing = await hookbox(["replay", "fixtures/valid/blocks-rm-rf.ts", "--events", "/nonexistent/e.jsonl"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^hookbox replay: cannot read --events \/nonexistent\/e\.jsonl: ENOENT/);
    const both = await hookbox(["replay", "fixtures/valid/blocks-rm-rf.ts", "--events", "-", "--watch", "--json"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/^hookbox replay: --watch prints text as it goes; it cannot be combined with --json/);
  });

  it("with --watch replays the stream again when a hook file changes, and stops cleanly on Ctrl-C", async () => {
    const dir = tempDir();
    const hook = writeHook(dir, "hook.ts", blocksWith("first version"));
    const events = writeHook(dir, "events.jsonl", `${line(LS)}\n`);
    const run = watching(["replay", "hook.ts", "--events", events, "--watch"], dir);
    let code: number | null;
    try {
      await run.seen("edit one to replay again");
      expect(run.stdout).toContain("line 1  tool_call             blocked: first version");
      writeFileSync(hook, blocksWith("second version"));
      await run.seen("blocked: second version");
      expect(run.stdout).toContain("hook.ts reloaded; replaying 1 line");
      await run.seen("watching (Ctrl-C to stop)");
    } finally {
      code = await run.stop();
    }
    expect(code).toBe(0);
    expect(run.stderr).toBe("");
  });
});
