/** What a hook author sees from the CLI: logs, stacks, payload checks, typos, and plain usage errors. */
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { hookbox, watching } from "./cli-run.js";
import { blocksWith, tempDir, writeHook } from "./helpers/files.js";

const TURN = ["--event", "turn_start", "--payload", '{"turnIndex":0,"timestamp":1}'];
const LS = JSON.stringify({ toolName: "bash", toolCallId: "2", input: { command: "ls" } });

describe("hookbox output for hook authors", () => {
  it("prints pi.logger lines on stderr, and into logs with --json", async () => {
    const text = await hookbox(["emit", "fixtures/valid/logs-with-pi-logger.ts", ...TURN]);
    expect(text.code).toBe(0);
    expect(text.stderr).toContain("log       fixtures/valid/logs-with-pi-logger.ts info: loading logs-with-pi-logger\n");
    expect(text.stderr).toContain("log       fixtures/valid/logs-with-pi-logger.ts warn: careful\n");
    const json = await hookbox(["emit", "fixtures/valid/logs-with-pi-logger.ts", ...TURN, "--json"]);
    const logs = JSON.parse(json.stdout).logs as Array<{ hookPath: string; level: string; line: string }>;
    expect(logs.map((l) => l.level)).toEqual(["info", "debug", "info", "warn", "error"]);
    expect(logs[4]!.line).toContain("shown with its stack");
  });

  it("shows the hook's stack under a handler_threw, in text and in --json", async () => {
    const text = await hookbox(["emit", "fixtures/valid/throws-from-handlers.ts", ...TURN]);
    expect(text.stdout).toMatch(/! handler_threw {2}fixtures\/valid\/throws-from-handlers\.ts \(turn_start\): turn_start handler failed\n {8}at .*throws-from-handlers\.ts:\d+/);
    const json = await hookbox(["emit", "fixtures/valid/throws-from-handlers.ts", ...TURN, "--json"]);
    expect(JSON.parse(json.stdout).errors[0].stack).toMatch(/throws-from-handlers\.ts:\d+/);
  });

  it("--fail-on-error exits 1 when any HookError occurred, and 0 when none did", async () => {
    const plain = await hookbox(["emit", "fixtures/valid/throws-from-handlers.ts", ...TURN]);
    expect(plain.code).toBe(0);
    const failing = await hookbox(["emit", "fixtures/valid/throws-from-handlers.ts", ...TURN, "--fail-on-error"]);
    expect(failing.code).toBe(1);
    const clean = await hookbox(["emit", "fixtures/valid/blocks-rm-rf.ts", "--event", "tool_call", "--payload", LS, "--fail-on-error"]);
    expect(clean.code).toBe(0);
    const replayed = await hookbox(["replay", "fixtures/valid/throws-from-handlers.ts", "--events", "examples/session.jsonl", "--fail-on-error"]);
    expect(replayed.code).toBe(1);
  });
});

describe("hookbox checks what it is given", () => {
  it("rejects a payload that is not the event's shape with exit 2, naming each wrong field", async () => {
    const r = await hookbox(["emit", "fixtures/valid/blocks-rm-rf.ts", "--event", "tool_call", "--payload", '{"toolName":"bash","input":"rm -rf /"}']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^hookbox emit: bad payload: not a tool_call event: toolCallId: [^;]*expected string, received undefined; input: [^;]*expected record, received string\n/);
  });

  it("reports a replay line that is not its event's shape as malformed, with its line number and the field", async () => {
    const events = writeHook(tempDir(), "e.jsonl", `{"type":"turn_start","turnIndex":"zero","timestamp":1}\n{"type":"agent_start"}\n`);
    const r = await hookbox(["replay", "fixtures/valid/blocks-rm-rf.ts", "--events", events, "--json"]);
    const doc = JSON.parse(r.stdout);
    expect(doc.summary).toMatchObject({ events: 1, malformed: 1 });
    expect(doc.malformed[0]).toEqual({ line: 1, error: expect.stringMatching(/^not a turn_start event: turnIndex: .*expected number, received string$/) });
  });

  it("warns about an event name outside the contract, with the closest known name", async () => {
    const hook = writeHook(tempDir(), "typo.ts", `export default (pi: any) => { pi.on("tool_cal", () => {}); pi.on("my_own_event", () => {}); };\n`);
    const r = await hookbox(["check", hook]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('    warning:   "tool_cal" is not an event of the hook contract, so its handler never runs: did you mean tool_call?\n');
    expect(r.stdout).toContain('    warning:   "my_own_event" is not an event of the hook contract, so its handler never runs\n');
    const json = await hookbox(["check", hook, "--json", "--fail-on-error"]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).hooks[0].warnings).toHaveLength(2);
  });

  it("without a command is a usage error: the overview on stderr and exit 2", async () => {
    const r = await hookbox([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^hookbox: no command given\n\nhookbox: try coding-agent hooks/);
  });

  it.each([
    ["a folder", () => tempDir(), /is a folder: pass the hook's file \(for example .*\/index\.ts\)/],
    ["an empty path", () => "", /a hook path is empty \(""\): pass the hook's file/],
  ])("rejects %s as a hook with exit 2 and says what to pass", async (_what, path, message) => {
    const r = await hookbox(["check", path()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it("rejects a --cwd that is not a folder with exit 2", async () => {
    const r = await hookbox(["check", "--cwd", "/nonexistent/folder", "hook.ts"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("hookbox check: --cwd /nonexistent/folder is not a folder\n(see hookbox check --help)\n");
  });

  it("says what to do when an ESM .js hook sits in a \"type\": \"commonjs\" folder and fails to load", async () => {
    const dir = tempDir();
    writeHook(dir, "package.json", '{"type":"commonjs"}');
    const hook = writeHook(dir, "hook.js", 'export default function (pi) { pi.on("turn_start", () => {}); }\n');
    const r = await hookbox(["check", hook]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('the nearest package.json says "type": "commonjs": rename it to .mjs or .ts, or set "type": "module"');
  });

  it("after a load failure, emit says the tool call is blocked as the agent blocks it (fail closed), in text and JSON, and counts the error", async () => {
    const r = await hookbox(["emit", "missing.ts", "fixtures/valid/blocks-rm-rf.ts", "--event", "tool_call", "--payload", LS]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^event {5}tool_call\nblocked {3}yes: missing\.ts did not load; in the agent every tool call is then blocked \(fail closed\)\nerrors {4}1\n {4}! load_failed {2}missing\.ts \(load\): /);
    const json = await hookbox(["emit", "missing.ts", "fixtures/valid/blocks-rm-rf.ts", "--event", "tool_call", "--payload", LS, "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ blocked: true, reason: "missing.ts did not load; in the agent every tool call is then blocked (fail closed)" });
  });

  it("names only files the package ships in its help texts", async () => {
    for (const args of [["--help"], ["check", "--help"], ["emit", "--help"], ["replay", "--help"]]) {
      const r = await hookbox(args);
      expect(r.stdout).not.toMatch(/fixtures\/|demo\//);
      expect(r.stdout).toContain("examples/");
    }
  });
});

describe("hookbox replay --watch", () => {
  it("replays again when the events file changes, reading it anew", async () => {
    const dir = tempDir();
    writeHook(dir, "hook.ts", blocksWith("blocked by hook"));
    const events = writeHook(dir, "events.jsonl", `${JSON.stringify({ type: "agent_start" })}\n`);
    const run = watching(["replay", "hook.ts", "--events", events, "--watch"], dir);
    let code: number | null;
    try {
      await run.seen("edit one to replay again");
      writeFileSync(events, `${JSON.stringify({ type: "agent_start" })}\n${JSON.stringify({ type: "tool_call", toolName: "bash", toolCallId: "1", input: {} })}\n`);
      await run.seen("blocked: blocked by hook");
      expect(run.stdout).toContain(`${events} changed; replaying 2 lines`);
    } finally {
      code = await run.stop();
    }
    expect(code).toBe(0);
    expect(run.stderr).toBe("");
  });
});
