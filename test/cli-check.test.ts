import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { hookbox, ROOT } from "./cli-run.js";
import { tempDir, writeHook } from "./helpers/files.js";
import { examplesDir } from "../scripts/pi-examples.js";
import { installPiDir } from "./support/pi-agent.js";

describe("hookbox check", () => {
  it("prints docs/cli.md's sample run line for line, the checkout's path aside, and exits 1 as it says", async () => {
    const docs = readFileSync(join(ROOT, "docs", "cli.md"), "utf8");
    const [, command, shown, code] = /^## A sample run\n\n```\n\$ npx hookbox (.*)\n([\s\S]*?)\(exit code (\d)\)\n```/m.exec(docs)!;
    const r = await hookbox(command!.split(" "));
    const checkout = (text: string) => text.replace(/file not found: \/\S*\/missing\.ts/g, "file not found: <checkout>/missing.ts");
    expect(r.stderr).toBe("");
    expect(checkout(r.stdout)).toBe(checkout(shown!));
    expect(r.code).toBe(Number(code));
  });

  it("prints each hook's events, commands with their descriptions and renderers, and exits 0", async () => {
    const r = await hookbox(["check", "fixtures/valid/blocks-rm-rf.ts", "fixtures/valid/handoff-command.ts", "fixtures/valid/registers-note-renderer.ts"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe([
      "✓ fixtures/valid/blocks-rm-rf.ts",
      "    events:    tool_call",
      "    commands:  -",
      "    renderers: -",
      "✓ fixtures/valid/handoff-command.ts",
      "    events:    -",
      "    commands:  /handoff  Start a new session that continues from this one",
      "    renderers: -",
      "✓ fixtures/valid/registers-note-renderer.ts",
      "    events:    -",
      "    commands:  -",
      "    renderers: note",
      "",
      "3 hooks: 3 loaded, 0 failed",
      "",
    ].join("\n"));
  });

  it("lists every load error with its code and exits 1, still reporting the hooks that loaded", async () => {
    const dir = tempDir();
    const syntax = writeHook(dir, "syntax-error.ts", "export default (pi: any) => { pi.on(\"tool_call\", () => {}\n");
    const noDefault = writeHook(dir, "no-default.ts", "export const x = 1;\n");
    const r = await hookbox(["check", "fixtures/valid/blocks-rm-rf.ts", "missing.ts", syntax, noDefault, "fixtures/faulty/fails-at-load-with-exit.ts"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("✓ fixtures/valid/blocks-rm-rf.ts");
    expect(r.stdout).toContain("✗ missing.ts\n    ! load_failed  missing.ts (load): Failed to load hook: file not found:");
    expect(r.stdout).toContain(`✗ ${syntax}\n    ! load_failed`);
    expect(r.stdout).toContain(`✗ ${noDefault}\n    ! load_failed`);
    expect(r.stdout).toContain("✗ fixtures/faulty/fails-at-load-with-exit.ts\n    ! crashed");
    expect(r.stdout).toContain("5 hooks: 1 loaded, 4 failed");
  });

  it("with --json prints one document: each hook in the order given, registered names or code and error", async () => {
    const r = await hookbox(["check", "--json", "fixtures/valid/registers-two-handlers.ts", "missing.ts", "fixtures/valid/handoff-command.ts"]);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.ok).toBe(false);
    expect(doc.hooks.map((h: { path: string }) => h.path)).toEqual(["fixtures/valid/registers-two-handlers.ts", "missing.ts", "fixtures/valid/handoff-command.ts"]);
    expect(doc.hooks[0]).toMatchObject({ ok: true, commands: [], renderers: [] });
    expect(doc.hooks[0].events.tool_call).toBe(2);
    expect(doc.hooks[1]).toEqual({ path: "missing.ts", ok: false, code: "load_failed", error: expect.stringMatching(/^Failed to load hook: file not found: /) });
    expect(doc.hooks[2]).toEqual({
      path: "fixtures/valid/handoff-command.ts", ok: true, warnings: [], events: {}, renderers: [],
      commands: [{ name: "handoff", description: "Start a new session that continues from this one" }],
    });
  });

  it("resolves relative hook paths against --cwd", async () => {
    const dir = tempDir();
    writeHook(dir, "hooks/here.ts", "export default (pi: any) => { pi.on(\"turn_start\", () => {}); };\n");
    const r = await hookbox(["check", "--json", "--cwd", dir, "hooks/here.ts"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).hooks[0]).toMatchObject({ path: "hooks/here.ts", ok: true, events: { turn_start: 1 } });
  });

  it("without a hook is a usage error: exit 2 and a message naming the problem", async () => {
    const r = await hookbox(["check"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("hookbox check: no hook given: pass one or more hook files\n(see hookbox check --help)\n");
  });

  it("rejects an unknown option with exit 2, naming it", async () => {
    const r = await hookbox(["check", "--frobnicate", "fixtures/valid/blocks-rm-rf.ts"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("hookbox check: unknown option --frobnicate\n(see hookbox check --help)\n");
  });
});

/** pi 0.73.1's own example extensions (examples/extensions/ of its package). */
const piExample = (name: string) => join(examplesDir(installPiDir()), name);

describe("hookbox check --agent pi: pi's extensions, as pi (through hookbox/extension) runs them", () => {
  it("loads pi's own examples: their tools, commands, flags and shortcuts are listed, model_select is an event (no warning)", async () => {
    const [status, hello, preset] = ["model-status.ts", "hello.ts", "preset.ts"].map(piExample);
    const r = await hookbox(["check", "--agent", "pi", "--json", status!, hello!, preset!]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ ok: true, agent: "pi" });
    expect(doc.inferred).toBeUndefined();
    expect(doc.hooks[0]).toMatchObject({ ok: true, events: { model_select: 1 }, warnings: [], tools: [], flags: [], shortcuts: [] });
    expect(doc.hooks[1]).toMatchObject({ ok: true, tools: [{ name: "hello", description: "A simple greeting tool" }] });
    expect(doc.hooks[2]).toMatchObject({
      ok: true, warnings: [],
      commands: [{ name: "preset", description: "Switch preset configuration" }],
      flags: [{ name: "preset", description: "Preset configuration to use" }],
      shortcuts: [{ key: "ctrl+shift+u", description: "Cycle presets" }],
    });
  });

  it("without --agent infers pi from a module that registers a tool, and says so", async () => {
    const hello = piExample("hello.ts");
    const r = await hookbox(["check", hello]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n").slice(0, 8)).toEqual([
      `agent: pi (inferred: ${hello} registers the tool "hello"; --agent chooses)`,
      `✓ ${hello}`,
      "    events:    -",
      "    commands:  -",
      "    renderers: -",
      "    tools:     hello  A simple greeting tool",
      "    flags:     -",
      "    shortcuts: -",
    ]);
  });

  it("infers pi from a module subscribing to one of pi's events the hook contract lacks (tool_execution_start)", async () => {
    const dir = tempDir();
    const mod = writeHook(dir, "watch.ts", "export default (pi: any) => { pi.on(\"tool_execution_start\", () => {}); };\n");
    const r = await hookbox(["check", "--json", mod]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ agent: "pi", inferred: `${mod} subscribes to pi's event "tool_execution_start"` });
    expect(doc.hooks[0]).toMatchObject({ ok: true, events: { tool_execution_start: 1 }, warnings: [] });
  });

  it("fails what pi's isolate() refuses, with its words (a tool replacing a built-in one under a policy that may not substitute); an event pi has not is a warning (pi loads the module, never calls that handler)", async () => {
    const dir = tempDir();
    const oldEvent = writeHook(dir, "old-event.ts", "export default (pi: any) => { pi.on(\"session_switch\", () => {}); };\n");
    const bash = writeHook(dir, "bash.ts", "export default (pi: any) => { pi.registerTool({ name: \"bash\", label: \"b\", description: \"d\", parameters: { type: \"object\" }, execute: async () => ({ content: [] }) }); };\n");
    const r = await hookbox(["check", "--agent", "pi", "--policy", "untrusted", "--json", oldEvent, bash, piExample("hello.ts")]);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.hooks[0]).toMatchObject({ path: oldEvent, ok: true, events: { session_switch: 1 }, warnings: [expect.stringContaining(`"session_switch" is not an event`)] });
    expect(doc.hooks[1]).toEqual({ path: bash, ok: false, code: "effect_refused", error: `Hook "${bash}" called pi.registerTool("bash"), replacing the agent's built-in tool, a substitute effect on the agent, which its policy.effects "restrict" does not grant; it was refused. policy.effects: "substitute" grants it, for a hook you trust to change what the agent does.` });
    expect(doc.hooks[2]).toMatchObject({ ok: true, tools: [{ name: "hello" }] });
  });

  it("--agent hooks keeps the hook contract: pi's events are warned about, pi's agent-only members fail the load", async () => {
    const r = await hookbox(["check", "--agent", "hooks", "--json", piExample("model-status.ts"), piExample("hello.ts")]);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.agent).toBe("hooks");
    expect(doc.hooks[0].warnings).toEqual([`"model_select" is not an event of the hook contract, so its handler never runs (it is pi's: --agent pi)`]);
    expect(doc.hooks[1]).toMatchObject({ ok: false, code: "load_failed", error: expect.stringContaining("pi.registerTool is a member of the agent's extension API") });
  });

  it("--agent omp: oh-my-pi's events (pi's model_select is not one: warned, as its handler never runs there)", async () => {
    const r = await hookbox(["check", "--agent", "omp", "--json", piExample("model-status.ts")]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).hooks[0]).toMatchObject({ ok: true, warnings: [expect.stringContaining(`"model_select" is not an event`)] });
  });
});
