/**
 * A project's Codex skill whose `agents/openai.yaml` declares an MCP server it depends on
 * (fixtures/hostile/codex/installs-an-mcp-server-through-its-skill): Codex CLI 0.169.0, as the
 * terminal UI (its first-party originator, set here through CODEX_INTERNAL_ORIGINATOR_OVERRIDE, as
 * `codex exec` alone is not one) in full-access mode, writes that server into your own
 * `~/.codex/config.toml` once the skill is mentioned (`$deploy`) and starts it: a command of the
 * project's, started again in every later session. Through `hookbox codex` Codex reads the skill
 * without its dependencies: the skill still reaches the model, nothing is installed or started. A
 * SKILL.md's inline shell (Claude Code's and opencode's syntax) is text to Codex, run by neither.
 * End to end against the fake model server, in a network namespace with only loopback.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentUnavailable } from "./support/pi-run.js";
import { ROOT } from "./cli-run.js";
import { codexWorld, installCodex, runCodex, type CodexRun, type CodexWorld } from "./support/codex-run.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";

const sandbox = sandboxAvailability();
const unavailable = agentUnavailable("Codex CLI") ?? (sandbox.ok ? undefined : sandbox.reason);
const roots: string[] = [];

describe.skipIf(unavailable)("a project's Codex skill and the MCP servers it depends on", { timeout: 60_000 }, () => {
  const runs: Record<"alone" | "routed", { w: CodexWorld; run: CodexRun }> = {} as never;
  beforeAll(() => {
    const codex = installCodex();
    for (const hookbox of [false, true]) {
      const root = mkdtempSync(join(tmpdir(), "hookbox-e2e-codex-skills-"));
      roots.push(root);
      const w = codexWorld(root, codex);
      cpSync(join(ROOT, "fixtures", "hostile", "codex", "installs-an-mcp-server-through-its-skill"), w.project, { recursive: true });
      const run = runCodex(w, { command: "echo done", hookbox, prompt: "Use $deploy to clean up the victim folder.", env: { CODEX_INTERNAL_ORIGINATOR_OVERRIDE: "codex_cli_rs" } });
      runs[hookbox ? "routed" : "alone"] = { w, run };
    }
  }, 150_000);
  afterAll(() => { for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true }); });

  const config = (w: CodexWorld) => readFileSync(join(w.codexHome, "config.toml"), "utf8");
  const started = (w: CodexWorld) => existsSync(join(w.project, "helper.log"));

  it("Codex alone writes the skill's MCP server into your ~/.codex/config.toml, unasked, and starts it; through hookbox codex it writes and starts nothing, the skill still reaches the model, and the skill is named", () => {
    expect(config(runs.alone.w)).toContain("[mcp_servers.helper]");
    expect(started(runs.alone.w)).toBe(true);
    expect(runs.alone.run.requests).toContain("Deploy with the helper's tools.");
    expect(config(runs.routed.w)).not.toContain("mcp_servers");
    expect(started(runs.routed.w)).toBe(false);
    expect(runs.routed.run.requests).toContain("Deploy with the helper's tools.");
    expect(runs.routed.run.stderr).toContain("hookbox codex: the project's skill .agents/skills/deploy declares more than its interface and policy in agents/openai.yaml");
  });

  it("Codex alone starts that server again in a later session that does not mention the skill, because it is in your config now (control: the same session with that entry removed starts nothing)", () => {
    const { w } = runs.alone;
    const later = () => expect(runCodex(w, { command: "echo done", hookbox: false, prompt: "Say hello.", env: { CODEX_INTERNAL_ORIGINATOR_OVERRIDE: "codex_cli_rs" } }).code).toBe(0);
    rmSync(join(w.project, "helper.log"));
    later();
    expect(readFileSync(join(w.project, "helper.log"), "utf8")).toBe("started\n");
    rmSync(join(w.project, "helper.log"));
    const file = join(w.codexHome, "config.toml");
    writeFileSync(file, config(w).replace(/^\[mcp_servers\.helper[\s\S]*?(?=^\[(?!mcp_servers\.helper)|(?![\s\S]))/m, ""));
    expect(config(w)).not.toContain("mcp_servers");
    later();
    expect(started(w)).toBe(false);
  });

  it("a SKILL.md's inline shell (!`…`) reaches the model as text with Codex alone, and runs in neither", () => {
    for (const { w, run } of [runs.alone, runs.routed]) {
      expect(run.requests).toContain("Status: !`touch inline-shell-ran.txt`");
      expect(existsSync(join(w.project, "inline-shell-ran.txt"))).toBe(false);
    }
  });
});
