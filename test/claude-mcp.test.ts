/**
 * A project's MCP servers (`.mcp.json`) under hookbox claude, below Claude Code: how they are read
 * (stdio, remote, neither; the files above the project), pinned like a hook's command (the files
 * its command line names; a package found by name cannot be), the read-only view Claude Code reads
 * on the managed route, and `hookbox claude-mcp`'s checks before a server starts (the plan's sha256,
 * the approval as the files are now, only the granted variables). The server in the sandbox, end to
 * end: test/e2e-claude-mcp.test.ts.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalStore, FingerprintError } from "../src/approval/store.js";
import { mcpKey } from "../src/approval/keys.js";
import { checkMcpServers, expandGranted, mcpFingerprint, mcpProposedGrants, mcpView, readProjectMcp, type McpServer } from "../src/claude/mcp.js";
import { McpRefused, prepareMcpServer } from "../src/claude/mcp-run.js";
import { planText } from "../src/agents/plan.js";
import type { ClaudePlan } from "../src/claude/plan.js";
import { hookbox } from "./cli-run.js";

const roots: string[] = [];
afterEach(() => { for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true }); });

/** A parent folder with its own .mcp.json, the project below it with a server script and a .mcp.json of three servers. */
function world() {
  const root = mkdtempSync(join(tmpdir(), "hookbox-claude-mcp-"));
  roots.push(root);
  const project = join(root, "project");
  mkdirSync(join(project, "tools"), { recursive: true });
  writeFileSync(join(project, "tools", "server.mjs"), "// a server\n");
  writeFileSync(join(root, ".mcp.json"), JSON.stringify({ mcpServers: { parent: { command: "node", args: ["x.mjs"] } } }));
  const servers = {
    local: { command: "node", args: ["tools/server.mjs", "--port", "1"], env: { TOKEN: "${MY_TOKEN}", MODE: "${MODE:-plain}" } },
    remote: { type: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ${API_TOKEN}" } },
    odd: { type: "carrier-pigeon" },
  };
  writeFileSync(join(project, ".mcp.json"), JSON.stringify({ mcpServers: servers, note: "kept" }));
  const approvals = join(root, "approvals");
  return { root, project, approvals, store: new ApprovalStore({ dir: approvals }) };
}

const byName = (servers: McpServer[], name: string) => servers.find((s) => s.name === name)!;

describe("a project's .mcp.json as hookbox claude reads it", () => {
  it("each server is stdio (a command), remote (an http, sse or ws url) or unknown; the servers of a .mcp.json above the project are listed apart", () => {
    const w = world();
    const found = readProjectMcp(w.project, ".mcp.json");
    expect(found.servers.map((s) => [s.name, s.kind])).toEqual([["local", "stdio"], ["remote", "remote"], ["odd", "unknown"]]);
    expect(found.above.map((s) => [s.name, s.file])).toEqual([["parent", join(w.root, ".mcp.json")]]);
    expect(found.file).toBe(join(w.project, ".mcp.json"));
  });

  it("the view keeps the file's other keys and only the approved servers: a stdio one as the hookbox command given, without its env; a remote one as written", () => {
    const w = world();
    const found = readProjectMcp(w.project, ".mcp.json");
    const approved = [byName(found.servers, "local"), byName(found.servers, "remote")];
    const view = mcpView(found.document!, approved, (name) => ({ command: "/usr/bin/node", args: ["hookbox.mjs", "claude-mcp", "/etc/claude-code/hookbox-plan.json", "abc", name] }));
    expect(view).toEqual({
      note: "kept",
      mcpServers: {
        local: { type: "stdio", command: "/usr/bin/node", args: ["hookbox.mjs", "claude-mcp", "/etc/claude-code/hookbox-plan.json", "abc", "local"] },
        remote: { type: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ${API_TOKEN}" } },
      },
    });
  });
});

describe("a project's MCP server is approved by content, like a hook", () => {
  it("a stdio server's approval pins the script its command line names: a change to the script, or to its args, refuses it as not_approved", async () => {
    const w = world();
    const local = byName(readProjectMcp(w.project, ".mcp.json").servers, "local");
    const fp = await mcpFingerprint(w.project, local);
    expect(Object.keys(fp.files).some((f) => f.endsWith("tools/server.mjs"))).toBe(true);
    expect(fp.module).toBe(mcpKey(local));
    w.store.approve(w.project, [fp]);
    expect(await checkMcpServers(w.store, w.project, [local])).toEqual([undefined]);
    appendFileSync(join(w.project, "tools", "server.mjs"), "// changed\n");
    const [changed] = await checkMcpServers(w.store, w.project, [local]);
    expect(changed?.code).toBe("not_approved");
    expect(changed?.message).toContain("it is not started (Claude Code is told to deny it by name) until you review it and run: npx hookbox trust");
    w.store.approve(w.project, [await mcpFingerprint(w.project, local)]);
    const [otherArgs] = await checkMcpServers(w.store, w.project, [{ ...local, entry: { ...local.entry, args: ["tools/server.mjs", "--port", "2"] } }]);
    expect(otherArgs?.code).toBe("not_approved");
  });

  it("a server whose command finds what it runs by name (npx) cannot be pinned, and one of unknown kind neither", async () => {
    const w = world();
    const npx: McpServer = { name: "pkg", file: join(w.project, ".mcp.json"), entry: { command: "npx", args: ["-y", "some-mcp-server"] }, kind: "stdio" };
    await expect(mcpFingerprint(w.project, npx)).rejects.toThrow(FingerprintError);
    await expect(mcpFingerprint(w.project, npx)).rejects.toThrow(/npx runs a package it finds by name.*not a package found by name/);
    await expect(mcpFingerprint(w.project, byName(readProjectMcp(w.project, ".mcp.json").servers, "odd"))).rejects.toThrow(/neither a stdio server/);
  });

  it("the variables a server's entry names are proposed as env grants, but a secret-looking one never is", () => {
    const w = world();
    const local = byName(readProjectMcp(w.project, ".mcp.json").servers, "local");
    expect(mcpProposedGrants(local, { MY_TOKEN: "t", MODE: "m" })).toEqual(["env:MODE"]);
  });

  it("${NAME} and ${NAME:-default} expand from the granted variables only: any other is its default, else empty", () => {
    expect(expandGranted("a=${A} b=${B:-dflt} c=${C}", { A: "1" })).toBe("a=1 b=dflt c=");
  });
});

describe("hookbox claude-mcp checks before it starts a server", () => {
  function plannedWorld() {
    const w = world();
    const local = byName(readProjectMcp(w.project, ".mcp.json").servers, "local");
    const plan: ClaudePlan = { project: w.project, hooks: [], refused: [], maxOutputBytes: 1000, approvals: w.approvals, mcp: { local: { file: local.file, entry: local.entry } } };
    return { ...w, local, plan };
  }

  it("an approved server gets its own env with only the granted variables expanded, and its command line as written", async () => {
    const w = plannedWorld();
    w.store.approve(w.project, [await mcpFingerprint(w.project, w.local)], { [mcpKey(w.local)]: ["env:MY_TOKEN"] });
    process.env.MY_TOKEN = "granted-token";
    process.env.MODE = "not-granted";
    try {
      const ready = await prepareMcpServer(w.plan, "local");
      expect(ready.env).toEqual({ TOKEN: "granted-token", MODE: "plain" });
      expect(ready.argv).toEqual(["node", "tools/server.mjs", "--port", "1"]);
      expect(ready.granted).toEqual(["env:MY_TOKEN"]);
    } finally {
      delete process.env.MY_TOKEN;
      delete process.env.MODE;
    }
  });

  it("a server changed since the launch, or not in the plan, is refused before anything starts", async () => {
    const w = plannedWorld();
    w.store.approve(w.project, [await mcpFingerprint(w.project, w.local)]);
    await expect(prepareMcpServer(w.plan, "other")).rejects.toThrow(new McpRefused("the plan holds no approved MCP server named other"));
    appendFileSync(join(w.project, "tools", "server.mjs"), "// changed after the launch\n");
    await expect(prepareMcpServer(w.plan, "local")).rejects.toThrow(/\(not_approved\)$/);
  });

  it("a plan that is not the one hookbox claude wrote (its sha256 differs) starts no server, and says why", async () => {
    const w = plannedWorld();
    const { text, sha256 } = planText(w.plan);
    const file = join(w.root, "plan.json");
    writeFileSync(file, text.replace("tools/server.mjs", "tools/other.mjs"));
    const ran = await hookbox(["claude-mcp", file, sha256, "local"], { cwd: w.project });
    expect(ran.code).toBe(1);
    expect(ran.stdout).toBe("");
    expect(ran.stderr).toContain("hookbox claude-mcp: the MCP server local is not started: the plan");
    expect(ran.stderr).toContain("is not the one hookbox claude wrote");
  });
});
