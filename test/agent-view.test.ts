/**
 * The private mount namespace `hookbox claude` starts the agent in (src/isolation/bubblewrap/
 * agent-view.ts), with real bubblewrap: the machine as it is, but for read-only generated files;
 * and the documents the managed route puts there (src/claude/launch.ts).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { agentViewAvailability, agentViewLaunch } from "../src/isolation/bubblewrap/agent-view.js";
import { CLAUDE_CODE } from "../src/claude/dialect.js";
import { projectView, routingHooks } from "../src/claude/launch.js";
import { parseClaudeSettings } from "../src/claude/settings.js";
import type { ClaudePlan } from "../src/claude/plan.js";

const available = agentViewAvailability();
const dir = mkdtempSync(join(tmpdir(), "hookbox-agent-view-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `script` with sh in a namespace showing `files`; its stdout and stderr together. */
function inView(files: Array<{ path: string; content: string }>, script: string): string {
  if (!available.ok) throw new Error(available.reason);
  const launch = agentViewLaunch(available.bwrap, files, "/bin/sh", ["-c", script]);
  try {
    const r = spawnSync(launch.command, launch.args, { stdio: ["ignore", "pipe", "pipe", ...launch.stdio.slice(3)], encoding: "utf8" });
    return `${r.stdout}${r.stderr}`;
  } finally {
    launch.close();
  }
}

describe.skipIf(!available.ok)("the agent's private mount namespace", () => {
  it("shows a generated file under /etc read-only, beside the host's entries of its folder, and /etc as it is otherwise", () => {
    const out = inView([{ path: "/etc/apt/hookbox-view-test.json", content: "{\"generated\":true}" }],
      "cat /etc/apt/hookbox-view-test.json; echo; ls /etc/apt; cat /etc/hostname; echo x > /etc/apt/hookbox-view-test.json; echo write=$?; touch /etc/apt/another.json; echo add=$?; touch /etc/new-file; echo etc=$?");
    expect(out).toContain("{\"generated\":true}");
    for (const entry of readdirSync("/etc/apt")) expect(out).toContain(entry);
    expect(out).toContain(readFileSync("/etc/hostname", "utf8").trim());
    expect(out).toMatch(/write=[1-9]/);
    expect(out).toMatch(/add=[1-9]/);
    expect(out).toMatch(/etc=[1-9]/);
    expect(readdirSync("/etc/apt")).not.toContain("hookbox-view-test.json");
  });

  it("shows a filtered view over an existing file, which no write or rename replaces, and leaves the file on the host as it was", () => {
    const file = join(dir, "settings.json");
    writeFileSync(file, "{\"hooks\":\"original\"}");
    const out = inView([{ path: file, content: "{}" }], `cat ${file}; echo; echo '{"env":1}' > ${file}; echo write=$?; echo '{}' > ${dir}/other; mv ${dir}/other ${file}; echo mv=$?; echo final=$(cat ${file})`);
    expect(out.split("\n")[0]).toBe("{}");
    expect(out).toMatch(/write=[1-9]/);
    expect(out).toMatch(/mv=[1-9]/);
    expect(out).toContain("final={}");
    expect(readFileSync(file, "utf8")).toBe("{\"hooks\":\"original\"}");
  });

  it("refuses a view of a missing file outside /etc, which bwrap would create on the host", () => {
    if (!available.ok) return;
    expect(() => agentViewLaunch(available.bwrap, [{ path: join(dir, "missing.json"), content: "{}" }], "/bin/true", [])).toThrow(`a view at ${join(dir, "missing.json")} needs the file to exist`);
  });
});

describe("the managed route's documents", () => {
  it("a project's settings file reads without hooks and without power keys, its deny rules and other keys kept; approved, the power keys stay", () => {
    const parsed = parseClaudeSettings(JSON.stringify({
      hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "x" }] }] }, env: { BASH_ENV: "x" }, apiKeyHelper: "k", model: "opus",
      permissions: { allow: ["Bash(*)"], deny: ["Read(./.env)"], defaultMode: "bypassPermissions" },
    }), "/p/.claude/settings.json", "project");
    expect(projectView(CLAUDE_CODE, parsed, false)).toEqual({ model: "opus", permissions: { deny: ["Read(./.env)"] } });
    expect(projectView(CLAUDE_CODE, parsed, true)).toEqual({ env: { BASH_ENV: "x" }, apiKeyHelper: "k", model: "opus", permissions: { allow: ["Bash(*)"], deny: ["Read(./.env)"], defaultMode: "bypassPermissions" } });
    expect(projectView(CLAUDE_CODE, parseClaudeSettings("{not json", "/p/.claude/settings.json", "project"), true)).toEqual({});
  });

  it("one routing hook per event that has a hook, naming the plan and its sha256, with a timeout above the slowest hook's", () => {
    const plan: ClaudePlan = {
      project: "/p", maxOutputBytes: 1,
      hooks: [{ source: "project", file: "/p/.claude/settings.json", event: "Stop", at: "a", command: "x", timeoutS: 70 }],
      refused: [{ source: "user", file: "/u", event: "PreToolUse", at: "b", reason: "r" }],
    };
    const hooks = routingHooks(CLAUDE_CODE, plan, { node: "/n", script: "/s.mjs" }, "/etc/claude-code/hookbox-plan.json", "ab12");
    expect(hooks).toEqual({
      PreToolUse: [{ hooks: [{ type: "command", command: "'/n' '/s.mjs' claude-hook '/etc/claude-code/hookbox-plan.json' ab12", timeout: 100 }] }],
      Stop: [{ hooks: [{ type: "command", command: "'/n' '/s.mjs' claude-hook '/etc/claude-code/hookbox-plan.json' ab12", timeout: 100 }] }],
    });
  });
});
