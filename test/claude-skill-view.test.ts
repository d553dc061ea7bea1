/**
 * src/claude/skill-view.ts: what of a project's skill, command or agent file Claude Code 2.1.328 would
 * run or grant (inline shell by its own patterns, `allowed-tools`, an agent's `permissionMode` and
 * `mcpServers` however spelled) is taken out; the rest
 * is kept byte for byte. The launcher's views: test/claude-launch.test.ts, the model's reading:
 * test/e2e-claude-managed.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KINDS, projectSkillViews, SHELL_PLACEHOLDER as P, withoutPower } from "../src/claude/skill-view.js";

describe("a project skill's power parts", () => {
  it("every spelling of allowed-tools Claude Code normalizes is removed with its value's lines; a spelling not removable line by line takes the whole frontmatter", () => {
    for (const key of ["allowed-tools", "allowed_tools", "allowedTools", "Allowed-Tools", "\"allowed-tools\""]) {
      expect(withoutPower(`---\nname: x\n${key}:\n  - Bash(*)\n- Write\ndescription: d\n---\nbody\n`)).toEqual({ text: "---\nname: x\ndescription: d\n---\nbody\n", power: ["allowed-tools"], removed: expect.anything() });
    }
    expect(withoutPower("---\n{ name: x, allowed-tools: [Bash] }\n---\nbody\n")).toEqual({ text: "body\n", power: ["allowed-tools"], removed: expect.anything() });
  });

  it("the frontmatter is read as YAML keys: a description that mentions allowed-tools keeps the whole frontmatter; the file beside it that sets the key loses that key only", () => {
    const mentions = "---\nname: reviewer\ndescription: \"Reviews diffs; never sets allowed-tools: or allowed_tools, asks before Bash\"\nwhen_to_use: |\n  allowed-tools: Bash(*) is what a hostile skill would say\n---\nbody\n";
    expect(withoutPower(mentions)).toEqual({ text: mentions, power: [], removed: { keys: [], shell: [] } });
    const sets = "---\nname: deployer\ndescription: mentions allowed tools too\nallowed-tools: Bash(*)\n---\nbody\n";
    expect(withoutPower(sets)).toEqual({ text: "---\nname: deployer\ndescription: mentions allowed tools too\n---\nbody\n", power: ["allowed-tools"], removed: { keys: ["allowed-tools: Bash(*)"], shell: [] } });
  });

  it("a frontmatter not readable as YAML that names a power key, or whose view would still set one (a merge key), is left out whole and says so", () => {
    const unreadable = "---\nname: x\ndescription: [allowed-tools: Bash\n---\nbody\n";
    expect(withoutPower(unreadable)).toEqual({ text: "body\n", power: ["allowed-tools", "frontmatter not readable as YAML"], removed: { keys: ["name: x\ndescription: [allowed-tools: Bash"], shell: [] } });
    const merged = "---\nbase: &b { allowed-tools: Bash }\nname: x\n<<: *b\n---\nbody\n";
    expect(withoutPower(merged)).toEqual({ text: "body\n", power: ["allowed-tools"], removed: expect.anything() });
  });

  it("inline shell is replaced by Claude Code's own patterns (a ```! fence; !`…` after a space or at a line's start); a code span or a ! inside a word is kept", () => {
    expect(withoutPower("a !`id`\n!`whoami` b\n```!\nls\n```\nend")).toEqual({ text: `a ${P}\n${P} b\n${P}\nend`, power: ["inline shell"], removed: { keys: [], shell: ["ls", "id", "whoami"] } });
    const plain = "run `npm test`; Hello!`not a command` and ```sh\nls\n```\n";
    expect(withoutPower(plain)).toEqual({ text: plain, power: [], removed: { keys: [], shell: [] } });
  });
});

describe("a project agent's power parts", () => {
  const agent = KINDS.find((k) => k.folder === "agents")!;

  it("every spelling of permissionMode and mcpServers is removed with its value's lines; its body, which Claude Code uses as the agent's prompt without expanding it, is kept as written", () => {
    for (const [mode, servers] of [["permissionMode", "mcpServers"], ["permission_mode", "mcp_servers"], ["PermissionMode", "\"mcp-servers\""]]) {
      expect(withoutPower(`---\nname: x\n${mode}: bypassPermissions\n${servers}:\n  - s:\n      command: sh\ndescription: d\n---\nrun !\`id\`\n`, agent)).toEqual({ text: "---\nname: x\ndescription: d\n---\nrun !`id`\n", power: ["permissionMode", "mcpServers"], removed: { keys: [`${mode}: bypassPermissions`, `${servers}:`, "  - s:", "      command: sh"], shell: [] } });
    }
    const plain = "---\nname: x\ndescription: d\ntools: Read\nallowed-tools: Bash\n---\nbody\n";
    expect(withoutPower(plain, agent)).toEqual({ text: plain, power: [], removed: { keys: [], shell: [] } });
  });

  it("an agents folder that links to the skills folder is read as agents too (each kind walks its own folders)", () => {
    const project = mkdtempSync(join(tmpdir(), "hookbox-agent-view-"));
    try {
      mkdirSync(join(project, ".claude", "skills", "s"), { recursive: true });
      writeFileSync(join(project, ".claude", "skills", "s", "a.md"), "---\nname: a\ndescription: d\npermissionMode: acceptEdits\n---\nbody\n");
      symlinkSync(join(project, ".claude", "skills"), join(project, ".claude", "agents"));
      expect(projectSkillViews(project).map((v) => [v.rel, v.power])).toEqual([[".claude/agents/s/a.md", ["permissionMode"]]]);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
