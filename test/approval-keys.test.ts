/**
 * The approvals store's keys for what a project's settings define (src/approval/keys.ts): each
 * spelled once, each recognised by its own predicate, and the grants a refusal's command carries
 * (src/claude/project-run.ts `projectGrants`) are taken from those keys only, never from a
 * module's, whatever its path holds.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hookAt, hookKey, isHookKey, isMcpKey, mcpKey } from "../src/approval/keys.js";
import { ApprovalStore, type Fingerprint } from "../src/approval/store.js";
import { projectGrants } from "../src/claude/project-run.js";
import { readClaudeSettings } from "../src/claude/settings.js";
import { tempDir, writeHook } from "./helpers/files.js";

const pinned = (module: string): Fingerprint => ({ module, real: module, policyName: "untrusted", files: {}, digest: "0".repeat(64) });

describe("the approvals store's keys", () => {
  it("a key made by hookKey is a command hook's, and neither a module's path nor an MCP server's key is, even one whose path holds #hooks.", () => {
    const hook = hookKey({ file: "/p/.claude/settings.json", at: hookAt("PreToolUse", 0, 2) });
    expect(hook).toBe("/p/.claude/settings.json#hooks.PreToolUse[0].hooks[2]");
    expect(isHookKey(hook)).toBe(true);
    expect(isHookKey(hookKey({ file: "/p/.codex/config.toml", at: hookAt("Stop", 3, 0) }))).toBe(true);
    expect(isMcpKey(hook)).toBe(false);
    for (const module of ["/p/.pi/extensions/guard.ts", "/p/.pi/extensions/a#hooks.PreToolUse[0].hooks[0]/index.ts", "/p/.pi/extensions/x#mcpServers.y/index.ts"]) {
      expect(isHookKey(module)).toBe(false);
      expect(isMcpKey(module)).toBe(false);
    }
  });

  it("a key made by mcpKey is an MCP server's, whatever the server's name holds", () => {
    for (const name of ["github", "a.b/c#hooks.PreToolUse[0]", "weird name"]) {
      const key = mcpKey({ file: "/p/.mcp.json", name });
      expect(isMcpKey(key)).toBe(true);
      expect(isHookKey(key)).toBe(false);
    }
  });

  it("each Claude Code hook of a settings file is keyed as hookAt spells its place", () => {
    const dir = tempDir("hookbox-keys-");
    const file = writeHook(dir, ".claude/settings.json", JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }, { type: "command", command: "false" }] }] } }));
    const read = readClaudeSettings(file, "project");
    expect(read.hooks.map(hookKey)).toEqual([`${file}#${hookAt("PreToolUse", 0, 0)}`, `${file}#${hookAt("PreToolUse", 0, 1)}`]);
    expect(read.hooks.map(hookKey).every(isHookKey)).toBe(true);
  });

  it("the grants a refusal's command carries are those of the project's command hooks and MCP servers, not a module's, even one whose path holds #hooks.", () => {
    const root = tempDir("hookbox-keys-");
    const project = join(root, "project");
    const store = new ApprovalStore({ dir: join(root, "config") });
    const hook = hookKey({ file: join(project, ".claude/settings.json"), at: hookAt("PostToolUse", 0, 0) });
    const server = mcpKey({ file: join(project, ".mcp.json"), name: "tools" });
    const module = join(project, ".pi/extensions/a#hooks.PreToolUse[0].hooks[0]/index.ts");
    store.approve(project, [pinned(hook), pinned(server), pinned(module)], { [hook]: ["write:tool-target"], [server]: ["env:MY_TOKEN"], [module]: ["net:example.com"] });
    expect(projectGrants(store, project).sort()).toEqual(["env:MY_TOKEN", "write:tool-target"]);
  });
});
