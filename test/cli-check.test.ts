import { describe, expect, it } from "vitest";
import { hookbox } from "./cli-run.js";
import { tempDir, writeHook } from "./helpers/files.js";

describe("hookbox check", () => {
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
    expect(r.stderr).toMatch(/^hookbox check: Unknown option '--frobnicate'/);
  });
});
