/**
 * docs/claude-code.md: in `-p` Claude Code waits a bounded time for its stdio servers before the
 * model's first request, and `CLAUDE_CODE_MCP_STARTUP_WAIT_MS` makes it wait longer. Measured against
 * Claude Code 2.1.328 alone (the wait is Claude Code's, whoever starts the server) with a project
 * server that starts and never answers (test/support/mcp-server-silent.mjs): from the server's start
 * to the fake model's first request offering tools. The control sets the variable to
 * CLAUDE_MCP_LONGER_WAIT_MS: the same measure grows past it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentUnavailable } from "./support/pi-run.js";
import { CLAUDE_MCP_WAIT_MS, claudeWorld, installClaude, runClaude, type ClaudeRun } from "./support/claude-run.js";

const unavailable = agentUnavailable("Claude Code");
const SERVER = join(import.meta.dirname, "support", "mcp-server-silent.mjs");
const CLAUDE_MCP_LONGER_WAIT_MS = 6_000;
const roots: string[] = [];

/** Claude Code alone with the silent server in its project's .mcp.json; how long it waited for it (ms). */
function waited(claude: string, env: Record<string, string> = {}): { run: ClaudeRun; ms: number } {
  const root = mkdtempSync(join(tmpdir(), "hookbox-e2e-claude-mcp-wait-"));
  roots.push(root);
  const w = claudeWorld(root, claude);
  const started = join(root, "server-started");
  writeFileSync(join(w.project, ".mcp.json"), JSON.stringify({ mcpServers: { slow: { command: process.execPath, args: [SERVER, started] } } }));
  const run = runClaude(w, { command: "true", hookbox: false, env });
  const first = run.messages.findIndex((m) => (m.tools ?? []).length > 0);
  expect(first, run.stderr).toBeGreaterThan(-1);
  return { run, ms: run.messageTimes[first]! - Number(readFileSync(started, "utf8")) };
}

describe.skipIf(unavailable)("Claude Code's wait for its stdio MCP servers in -p", { timeout: 120_000 }, () => {
  let claude: string;
  beforeAll(() => { claude = installClaude(); }, 300_000);
  afterAll(() => { for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true }); });

  it(`waits for a server that never answers about ${CLAUDE_MCP_WAIT_MS / 1000} s (docs/claude-code.md), then asks the model; CLAUDE_CODE_MCP_STARTUP_WAIT_MS=${CLAUDE_MCP_LONGER_WAIT_MS} makes it wait past that (the control)`, () => {
    const plain = waited(claude);
    console.log(`Claude Code waited ${plain.ms} ms for a silent stdio server`);
    expect(plain.run.code, plain.run.stderr).toBe(0);
    // Lower bounds only hold on a loaded machine (load only lengthens a wait); the default's upper
    // bound is taken against the control's run, which a loaded machine lengthens as much.
    expect(plain.ms).toBeGreaterThanOrEqual(CLAUDE_MCP_WAIT_MS * 0.75);
    const longer = waited(claude, { CLAUDE_CODE_MCP_STARTUP_WAIT_MS: String(CLAUDE_MCP_LONGER_WAIT_MS) });
    console.log(`with CLAUDE_CODE_MCP_STARTUP_WAIT_MS=${CLAUDE_MCP_LONGER_WAIT_MS}: ${longer.ms} ms`);
    expect(longer.ms).toBeGreaterThanOrEqual(CLAUDE_MCP_LONGER_WAIT_MS * 0.9);
    expect(longer.ms - plain.ms).toBeGreaterThan((CLAUDE_MCP_LONGER_WAIT_MS - CLAUDE_MCP_WAIT_MS) / 2);
  });
});
