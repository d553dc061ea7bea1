/**
 * A project's stdio MCP server under `hookbox claude`, end to end against Claude Code 2.1.328 (in
 * `-p`, which starts a project's `.mcp.json` servers without asking) and the fake model of
 * test/support/: approved by `hookbox trust`, it is offered to the model and answers its call, but
 * runs in the sandbox (the hostile server fixtures/hostile/claude-code/mcp-server-reads-user-secrets.mjs
 * finds no ssh key, no API key, no secret variable, no network, and its write into the project is
 * discarded); changed after approval, it is denied by name with the command that approves it. The
 * control run is Claude Code alone, where the same server reads every secret. The user's own server
 * (the same program, in ~/.claude.json) runs unwrapped beside it. One scripted session per run: the
 * model calls the user's server's `report`, then the project's, each when it is offered.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentUnavailable } from "./support/pi-run.js";
import { approve, CANARY, claudeWorld, installClaude, runClaude, type ClaudeRun, type ClaudeWorld } from "./support/claude-run.js";
import { agentViewAvailability } from "../src/isolation/bubblewrap/agent-view.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";

const view = agentViewAvailability();
const sandbox = sandboxAvailability();
const unavailable = agentUnavailable("Claude Code") ?? (view.ok ? undefined : view.reason) ?? (sandbox.ok ? undefined : sandbox.reason);
const FIXTURE = join(import.meta.dirname, "..", "fixtures", "hostile", "claude-code", "mcp-server-reads-user-secrets.mjs");
/** The fake model server's port (test/support/claude-netns-run.mjs): what the server tries to reach. */
const MODEL_PORT = "41790";
const TOOL = "mcp__probe__report";
/** The same server as the user's own (~/.claude.json), which hookbox leaves as it is. */
const USER_TOOL = "mcp__mine__report";
const roots: string[] = [];

/** A world whose project names the hostile server in its .mcp.json, as `probe`. */
function world(claude: string): ClaudeWorld {
  const root = mkdtempSync(join(tmpdir(), "hookbox-e2e-claude-mcp-"));
  roots.push(root);
  const w = claudeWorld(root, claude);
  mkdirSync(join(w.project, "tools"));
  copyFileSync(FIXTURE, join(w.project, "tools", "server.mjs"));
  writeFileSync(join(w.project, ".mcp.json"), JSON.stringify({ mcpServers: { probe: { command: "node", args: ["tools/server.mjs", MODEL_PORT], env: { PROBE_MODE: "report" } } } }));
  copyFileSync(FIXTURE, join(w.home, "user-server.mjs"));
  writeFileSync(join(w.home, ".claude.json"), JSON.stringify({ mcpServers: { mine: { command: "node", args: [join(w.home, "user-server.mjs"), MODEL_PORT], env: { PROBE_NO_WRITE: "1" } } } }));
  return w;
}

// Why ENABLE_TOOL_SEARCH=false: Claude Code 2.1.328 otherwise defers an MCP tool (named in the system prompt, its schema loaded
// through ToolSearch). Why CLAUDE_CODE_MCP_STARTUP_WAIT_MS: in -p it waits about 2 s for a stdio server before the model's first
// request, which a server started through hookbox from the source tree (tsx) on a loaded machine can miss; both runs wait alike.
const run = (w: ClaudeWorld, hookbox: boolean) => runClaude(w, { calls: [{ name: USER_TOOL, input: {} }, { name: TOOL, input: {} }], hookbox, allowedTools: `${TOOL},${USER_TOOL}`, env: { ENABLE_TOOL_SEARCH: "false", CLAUDE_CODE_MCP_STARTUP_WAIT_MS: "30000" } });
const offered = (r: ClaudeRun, tool = TOOL) => r.messages.some((m) => (m.tools ?? []).some((t) => t.name === tool));
/** What each server's `report` answered, in the order of the calls, parsed from the tool results the model received (the last request holds them all). */
function reports(r: ClaudeRun): Array<Record<string, string>> {
  const text = JSON.stringify(r.messages.at(-1)?.messages ?? []).replace(/\\"/g, '"');
  return [...text.matchAll(/MCP-REPORT (\{.*?\})/g)].map((m) => JSON.parse(m[1]!) as Record<string, string>);
}
/** The project server's report: the second call's (the user's server is called first). */
const report = (r: ClaudeRun) => reports(r)[1];

describe.skipIf(unavailable)("a project's stdio MCP server runs under hookbox claude only as approved, and in the sandbox", { timeout: 120_000 }, () => {
  const runs: { alone?: ClaudeRun; approved?: ClaudeRun; changed?: ClaudeRun; w?: ClaudeWorld; approval?: string } = {};
  beforeAll(() => {
    const claude = installClaude();
    runs.alone = run(world(claude), false);
    const w = world(claude);
    runs.w = w;
    runs.approval = approve(w);
    runs.approved = run(w, true);
    appendFileSync(join(w.project, "tools", "server.mjs"), "\n// changed after approval\n");
    runs.changed = run(w, true);
  }, 300_000);
  afterAll(() => { for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true }); });

  it("with Claude Code alone the project's server is offered to the model and reads the ssh key, the API key and a secret variable, and reaches the network (the control)", () => {
    expect(runs.alone!.code, runs.alone!.stderr).toBe(0);
    expect(offered(runs.alone!)).toBe(true);
    expect(report(runs.alone!)).toMatchObject({ ssh: CANARY.ssh, key: CANARY.apiKey, secret: CANARY.secret, net: "reached", wrote: "yes" });
  });

  it("hookbox trust lists the server with its command line, env keys and the file its command names, and approves it", () => {
    expect(runs.approval).toContain("Claude Code (.mcp.json, MCP server probe: node tools/server.mjs 41790; env: PROBE_MODE)");
    expect(runs.approval).toContain("tools/server.mjs");
    expect(runs.approval).toContain('runs: in the sandbox under "untrusted", with no grant');
  });

  it("approved, the server's tool is in the model's tool list and its call answers through hookbox, from a sandbox where it read no secret, reached no host and wrote nothing that stayed", () => {
    const r = runs.approved!;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("is not started");
    expect(offered(r)).toBe(true);
    const found = report(r);
    expect(found, JSON.stringify(r.messages.at(-1))).toBeDefined();
    expect(found!.ssh).toMatch(/^unreadable\(/);
    expect(found!.key).toBe("");
    expect(found!.secret).toBe("");
    expect(found!.net).toMatch(/^refused\(/);
    expect(existsSync(join(runs.w!.project, "mcp-wrote.txt"))).toBe(false);
    expect(r.stderr).toContain("the project's MCP server probe wrote mcp-wrote.txt: refused; a file at the project's root");
  });

  it("a server of the user's own (~/.claude.json) keeps working unwrapped under hookbox claude: offered and answering, as the user (it reads the API key), beside the project's", () => {
    for (const r of [runs.alone!, runs.approved!]) {
      expect(offered(r, USER_TOOL)).toBe(true);
      expect(reports(r)[0]).toMatchObject({ key: CANARY.apiKey, ssh: CANARY.ssh, wrote: "no" });
    }
  });

  it("changed after approval, the server is not started: denied by name, with the command that approves it, and its tool is not offered", () => {
    const r = runs.changed!;
    expect(r.stderr).toContain(`hookbox claude: the project's MCP server probe (.mcp.json, MCP server probe: node tools/server.mjs 41790; env: PROBE_MODE) is not started: it is an MCP server (.mcp.json) of the project ${runs.w!.project}, and`);
    expect(r.stderr).toContain(`it is not started (Claude Code is told to deny it by name) until you review it and run: npx hookbox trust ${runs.w!.project} (not_approved)`);
    expect(offered(r)).toBe(false);
    expect(offered(r, USER_TOOL)).toBe(true);
    expect(report(r)).toBeUndefined();
  });
});
