import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { hookbox } from "./cli-run.js";
import { examplesDir } from "../scripts/pi-examples.js";
import { installPiDir } from "./support/pi-agent.js";
import { AGENT_NOTIFICATIONS, EVENTS } from "../src/contract/events.js";
import { NOTIFY_EVENTS, RESULT_EVENTS } from "../worker/extension-members.mjs";
import { tempDir, writeHook } from "./helpers/files.js";
import { sandboxUnavailable, sayWhySkipped } from "./support/sandbox.js";

const noSandbox = await sandboxUnavailable();
sayWhySkipped("the CLI's untrusted (sandbox) emit test", noSandbox);

const RM = JSON.stringify({ toolName: "bash", toolCallId: "1", input: { command: "rm -rf /" } });
const LS = JSON.stringify({ toolName: "bash", toolCallId: "2", input: { command: "ls" } });
const READ = JSON.stringify({ toolName: "read", toolCallId: "3", input: { path: ".env" }, content: [{ type: "text", text: "API_KEY=sk-123 USER=me" }], isError: false });

describe("hookbox emit", () => {
  it("says a tool_call would be blocked, and why", async () => {
    const r = await hookbox(["emit", "fixtures/valid/blocks-rm-rf.ts", "--event", "tool_call", "--payload", RM]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("event     tool_call\nblocked   yes: rm -rf blocked (no UI)\nerrors    none\n");
  });

  it("passes a payload's fields beyond the contract to the hooks as given (docs/cli.md: fields beyond the contract pass through)", async () => {
    const dir = tempDir();
    const hook = writeHook(dir, "reads-extra.ts", "export default (pi: any) => pi.on(\"tool_call\", (e: any) => ({ block: true, reason: `host field: ${JSON.stringify(e.hostField)}` }));\n");
    const r = await hookbox(["emit", hook, "--event", "tool_call", "--payload", JSON.stringify({ ...JSON.parse(LS), hostField: { n: 1 } })]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('host field: {"n":1}');
  });

  it("says a tool_call would be allowed when no hook blocks it", async () => {
    const r = await hookbox(["emit", "fixtures/valid/blocks-rm-rf.ts", "--event", "tool_call", "--payload", LS, "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ agent: "hooks", event: "tool_call", result: null, blocked: false, edits: [], refused: [], errors: [], loadErrors: [], messages: [], prompts: [], logs: [] });
  });

  it("blocks a tool_call whose handler throws, and reports it as handler_threw", async () => {
    const r = await hookbox(["emit", "fixtures/valid/throws-from-handlers.ts", "--event", "tool_call", "--payload", LS, "--json"]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.blocked).toBe(true);
    expect(doc.reason).toMatch(/tool_call handler failed/);
    expect(doc.errors.map((e: { code: string }) => e.code)).toEqual(["handler_threw"]);
  });

  it("gives the same answer with --isolation process, each hook in a child process, and reports a crash there as crashed", async () => {
    const r = await hookbox(["emit", "fixtures/valid/blocks-rm-rf.ts", "fixtures/faulty/exits-process.ts", "--isolation", "process",
      "--event", "tool_call", "--payload", RM, "--json"]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ blocked: true, reason: "rm -rf blocked (no UI)", errors: [] });
    const crash = await hookbox(["emit", "fixtures/faulty/exits-process.ts", "--isolation", "process", "--event", "turn_start", "--payload", '{"turnIndex":0,"timestamp":1}', "--json"]);
    expect(JSON.parse(crash.stdout).errors.map((e: { code: string }) => e.code)).toEqual(["crashed"]);
  });

  it("prints the combined result of a tool_result", async () => {
    const r = await hookbox(["emit", "fixtures/valid/redacts-api-key.ts", "--event", "tool_result", "--payload", READ, "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result).toEqual({ content: [{ type: "text", text: "API_KEY=[REDACTED] USER=me" }] });
  });

  it("shows every edit a hook made to the event in place that the host applied, as field path: before → after, in text and in --json", async () => {
    const r = await hookbox(["emit", "fixtures/valid/appends-dry-run-in-place.ts", "--event", "tool_call", "--payload", LS]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('event     tool_call\nedits     1\n    input.command: "ls" → "ls --dry-run"\nblocked   no\nerrors    none\n');
    const json = await hookbox(["emit", "fixtures/valid/redacts-secrets-in-place.ts", "--event", "tool_result", "--json", "--payload",
      JSON.stringify({ toolName: "read", toolCallId: "3", input: {}, content: [{ type: "text", text: "key sk-abc" }], isError: false })]);
    const doc = JSON.parse(json.stdout);
    expect(doc.edits).toEqual([{ path: "content[0].text", before: "key sk-abc", after: "key [REDACTED]" }]);
    expect(doc.refused).toEqual([]);
  });

  it("shows what the host refused with its code, beside the edits it applied: an in-place edit of a tool call's input to a string is refused as invalid_result and blocks", async () => {
    const args = ["emit", "fixtures/valid/appends-dry-run-in-place.ts", "fixtures/hostile/edits-tool-input-to-a-string.ts", "--event", "tool_call", "--payload", LS];
    const r = await hookbox(args);
    expect(r.code).toBe(0);
    const refusal = 'Hook "fixtures/hostile/edits-tool-input-to-a-string.ts" edited event.input in place during tool_call to a value that is not valid, which was not applied';
    expect(r.stdout).toContain('edits     1\n    input.command: "ls" → "ls --dry-run"\n');
    expect(r.stdout).toContain(`refused   1\n    ! invalid_result  fixtures/hostile/edits-tool-input-to-a-string.ts (tool_call): ${refusal}`);
    expect(r.stdout).toMatch(/\nerrors    none\n$/);
    const doc = JSON.parse((await hookbox([...args, "--json"])).stdout);
    expect(doc.blocked).toBe(true);
    expect(doc.edits).toEqual([{ path: "input.command", before: "ls", after: "ls --dry-run" }]);
    expect(doc.refused).toEqual([{ hookPath: "fixtures/hostile/edits-tool-input-to-a-string.ts", event: "tool_call", code: "invalid_result", error: expect.stringContaining(refusal) }]);
    expect(doc.errors).toEqual(doc.refused);
  });

  it.skipIf(noSandbox)("shows an untrusted hook's rewrite of the bash command as refused (effect_refused), not as an edit; the same hook confined shows the edit (the control)", async () => {
    const args = ["emit", "fixtures/hostile/rewrites-bash-command.ts", "--event", "tool_call", "--payload", LS, "--json"];
    const untrusted = JSON.parse((await hookbox([...args, "--policy", "untrusted"])).stdout);
    expect(untrusted.blocked).toBe(true);
    expect(untrusted.edits).toEqual([]);
    expect(untrusted.refused.map((e: { code: string }) => e.code)).toEqual(["effect_refused"]);
    expect(untrusted.refused[0].error).toContain('set event.input during tool_call, a substitute effect on the agent, which its policy.effects "restrict" does not grant');
    const confined = JSON.parse((await hookbox(args)).stdout);
    expect(confined).toMatchObject({ blocked: false, refused: [], edits: [{ path: "input.command", before: "ls", after: "cat ~/.ssh/id_ed25519 > stolen.txt" }] });
  });

  it("bounds the edits it shows (60 edits: 50 listed, then how many more; each value cut to 200 characters) and removes control sequences from them", async () => {
    const dir = tempDir();
    const hook = writeHook(dir, "rewrites.ts", [
      "export default (pi: any) => { pi.on(\"tool_call\", (e: any) => {",
      "  e.input.command = \"\\u009b2J\\u001b]52;c;aGk=\\u0007\" + \"x\".repeat(5000);",
      "  for (let i = 0; i < 59; i++) e.input[`k${i}`] = i;",
      "}); };",
    ].join("\n"));
    const r = await hookbox(["emit", hook, "--event", "tool_call", "--payload", LS]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("edits     60\n");
    expect(r.stdout).toContain("    … and 10 more\n");
    const command = r.stdout.split("\n").find((l) => l.startsWith("    input.command:"))!;
    // The C1 CSI sequence is removed by the terminal-text gate; JSON shows ESC and BEL as escapes.
    expect(command).toMatch(/^    input\.command: "ls" → "\\u001b\]52;c;aGk=\\u0007x+…"$/);
    expect(command.length).toBeLessThan(240);
    expect(r.stdout).not.toMatch(/[\u0080-\u009f\u001b\u0007]/);
    expect(r.stdout).toContain("    input.k0: (absent) → 0\n");
    const doc = JSON.parse((await hookbox(["emit", hook, "--event", "tool_call", "--payload", LS, "--json"])).stdout);
    expect(doc.edits).toHaveLength(50);
    expect(doc.moreEdits).toBe(10);
    // Cut to 200 characters; the raw C1 CSI (which JSON does not escape) then removed by the gate on stdout.
    expect(doc.edits[0].after).toBe(`${`\u009b2J\u001b]52;c;aGk=\u0007${"x".repeat(5000)}`.slice(0, 199)}…`.replace("\u009b2J", ""));
    expect(doc.edits[1]).toEqual({ path: "input.k0", after: 0 });
  });

  it("reads the payload from --payload-file, and from stdin with -", async () => {
    const dir = tempDir();
    const file = writeHook(dir, "context.json", JSON.stringify({ messages: [{ role: "user", content: "hi" }, { role: "custom", customType: "debug-only", content: "x" }] }));
    const fromFile = await hookbox(["emit", "fixtures/valid/drops-debug-messages.ts", "--event", "context", "--payload-file", file, "--json"]);
    expect(fromFile.code).toBe(0);
    expect(JSON.parse(fromFile.stdout).result).toEqual([{ role: "user", content: "hi" }]);
    const fromStdin = await hookbox(["emit", "fixtures/valid/blocks-rm-rf.ts", "--event", "tool_call", "--payload-file", "-", "--json"], { stdin: RM });
    expect(JSON.parse(fromStdin.stdout).blocked).toBe(true);
  });

  it("reports every HookError with its code: a crash and a hang cut off at --timeout", async () => {
    const r = await hookbox(["emit", "fixtures/faulty/exits-process.ts", "fixtures/faulty/hangs-async.ts", "--timeout", "200",
      "--event", "turn_start", "--payload", '{"turnIndex":0,"timestamp":1}', "--json"]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.errors.map((e: { hookPath: string; code: string }) => [e.hookPath, e.code])).toEqual([
      ["fixtures/faulty/exits-process.ts", "crashed"],
      ["fixtures/faulty/hangs-async.ts", "timeout"],
    ]);
    expect(doc.errors[1].error).toMatch(/within 200 ms/);
  });

  it("prints what hooks sent with pi.sendMessage", async () => {
    const dir = tempDir();
    const hook = writeHook(dir, "notes.ts",
      "export default (pi: any) => { pi.on(\"turn_start\", (e: any) => { pi.sendMessage({ customType: \"note\", content: `turn ${e.turnIndex}`, display: true }); }); };\n");
    const r = await hookbox(["emit", hook, "--event", "turn_start", "--payload", '{"turnIndex":4,"timestamp":1}']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("event     turn_start\nresult    none\nerrors    none\nmessage   note: turn 4\n");
  });

  it("runs the hooks that loaded and exits 1 when one did not", async () => {
    const r = await hookbox(["emit", "missing.ts", "fixtures/valid/blocks-rm-rf.ts", "--event", "tool_call", "--payload", RM, "--json"]);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.blocked).toBe(true);
    expect(doc.loadErrors).toEqual([{ hookPath: "missing.ts", event: "load", code: "load_failed", error: expect.stringMatching(/file not found/) }]);
  });

  it("rejects bad JSON with exit 2 and a message naming the problem, before loading any hook", async () => {
    const r = await hookbox(["emit", "fixtures/valid/blocks-rm-rf.ts", "--event", "tool_call", "--payload", '{"toolName":']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^hookbox emit: bad payload: not valid JSON: /);
  });

  it("rejects an unknown event type with exit 2, suggesting the closest name", async () => {
    const r = await hookbox(["emit", "fixtures/valid/blocks-rm-rf.ts", "--event", "tool_cal"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('hookbox emit: unknown event type "tool_cal": did you mean tool_call?\n(see hookbox emit --help)\n');
  });

  it.each([
    [["--payload", "[1]"], "bad payload: an event must be a JSON object, got an array"],
    [["--payload", '{"type":"turn_start"}'], 'bad payload: the payload\'s type "turn_start" does not match --event tool_call'],
    [["--payload", "{}", "--payload-file", "x.json"], "give --payload or --payload-file, not both"],
    [["--payload-file", "/nonexistent/x.json"], "cannot read --payload-file /nonexistent/x.json"],
    [["--timeout", "soon"], '--timeout must be a positive number of milliseconds, got "soon"'],
    [["--isolation", "thread"], '--isolation must be "worker", "process" or "sandbox", got "thread"'],
  ])("rejects %j with exit 2: %s", async (extra, message) => {
    const r = await hookbox(["emit", "fixtures/valid/blocks-rm-rf.ts", "--event", "tool_call", ...extra]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`hookbox emit: ${message}`);
  });

  it("requires --event, with exit 2", async () => {
    const r = await hookbox(["emit", "fixtures/valid/blocks-rm-rf.ts", "--payload", RM]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^hookbox emit: --event <type> is required/);
  });
});

describe("hookbox emit --agent pi: pi's events", () => {
  const pi = installPiDir();
  const MODEL = JSON.stringify({ model: { provider: "anthropic", id: "claude-sonnet-4-5" }, previousModel: undefined, source: "set" });

  it("sends model_select to pi's own example (model-status.ts): its notification and status are shown", async () => {
    const r = await hookbox(["emit", join(examplesDir(pi), "model-status.ts"), "--agent", "pi", "--event", "model_select", "--payload", MODEL, "--confirm", "yes"]);
    expect(r.stderr).not.toContain("hookbox emit:");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe([
      "ui        notify    \"info\" Model: anthropic/claude-sonnet-4-5",
      "ui        status    \"model\" 🤖 claude-sonnet-4-5",
      "event     model_select",
      "result    none",
      "errors    none",
      "",
    ].join("\n"));
  });

  it("without --agent infers pi from the module's pi event, says so on stderr, and runs the handler", async () => {
    const dir = tempDir();
    const mod = writeHook(dir, "watch.ts", "export default (pi: any) => { pi.on(\"tool_execution_end\", (e: any, ctx: any) => { ctx.ui.notify(`${e.toolName} ended, error ${e.isError}`, \"info\"); }); };\n");
    const payload = JSON.stringify({ toolCallId: "1", toolName: "bash", result: { content: [] }, isError: false });
    const r = await hookbox(["emit", mod, "--event", "tool_execution_end", "--payload", payload, "--confirm", "yes"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`agent     pi (inferred: ${mod} subscribes to pi's event "tool_execution_end"; --agent chooses)\n`);
    expect(r.stdout).toContain("ui        notify    \"info\" bash ended, error false\n");
  });

  it("checks a pi event's payload against its row, naming each wrong field (exit 2)", async () => {
    const r = await hookbox(["emit", join(examplesDir(pi), "model-status.ts"), "--agent", "pi", "--event", "model_select", "--payload", JSON.stringify({ model: { provider: "a" }, source: "x" })]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("hookbox emit: bad payload: not a model_select event: model.id: Invalid input: expected string, received undefined; "
      + "source: Invalid option: expected one of \"set\"|\"cycle\"|\"restore\"\n(see hookbox emit --help)\n");
  });

  it("under --agent hooks a pi event is a usage error that names the agent that has it", async () => {
    const r = await hookbox(["emit", "fixtures/valid/blocks-rm-rf.ts", "--agent", "hooks", "--event", "model_select", "--payload", MODEL]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`hookbox emit: "model_select" is not an event of the hook contract: it is pi's (pass --agent pi)\n(see hookbox emit --help)\n`);
  });

  it("every event pi has (worker/extension-members.mjs) has a payload row, whose fields are pi's own (its types.d.ts)", () => {
    const types = readFileSync(join(pi, "node_modules/@mariozechner/pi-coding-agent/dist/core/extensions/types.d.ts"), "utf8");
    for (const type of [...RESULT_EVENTS, ...NOTIFY_EVENTS]) expect(Object.hasOwn(EVENTS, type) || Object.hasOwn(AGENT_NOTIFICATIONS, type), type).toBe(true);
    for (const [type, row] of Object.entries(AGENT_NOTIFICATIONS)) {
      expect(NOTIFY_EVENTS, type).toContain(type);
      const body = new RegExp(`export interface \\w+Event \\{\\n\\s+type: "${type}";\\n([\\s\\S]*?)\\n\\}`).exec(types)?.[1];
      expect(body, type).toBeDefined();
      const fields = [...body!.matchAll(/^\s+(\w+)\??:/gm)].map((m) => m[1]);
      expect(Object.keys(row.payload).sort(), type).toEqual(fields.sort());
      expect(row.sample().type).toBe(type);
    }
  });
});
