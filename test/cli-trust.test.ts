/**
 * `hookbox trust <project>` as a user runs it (the real bin, pi on PATH for pi's own rules): it
 * lists the project's modules with origin, files and hash; approves with --yes, refuses to approve
 * without it off a terminal; --revoke; a corrupt store is named and left alone.
 */
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ApprovalStore } from "../src/approval/store.js";
import { hookbox, ROOT } from "./cli-run.js";
import { tempDir, writeHook } from "./helpers/files.js";
import { installPiDir } from "./support/pi-agent.js";

let env: Record<string, string>;

beforeAll(() => {
  // pi's own rules come from the `pi` on PATH.
  env = { PATH: `${join(installPiDir(), "node_modules", ".bin")}${delimiter}${process.env.PATH}` };
}, 300_000);

function world() {
  const root = tempDir("hookbox-cli-trust-");
  const project = join(root, "project");
  const config = join(root, "config");
  writeHook(project, ".pi/extensions/evil.ts", `import { x } from "./lib/x.ts";\nexport default () => x;\n`);
  writeHook(project, ".pi/extensions/lib/x.ts", "export const x = 1;\n");
  writeHook(project, "tools/listed.ts", "export default () => {};\n");
  writeFileSync(join(project, ".pi/settings.json"), JSON.stringify({ extensions: ["../tools/listed.ts"] }));
  writeHook(project, ".claude/hooks/pre/bash.ts", "export default () => {};\n");
  writeHook(root, "agent/extensions/mine.ts", "export default () => {};\n");
  const args = ["--approvals", config, "--agent-dir", join(root, "agent")];
  return { root, project, config, args, env: { ...env, XDG_CONFIG_HOME: join(root, "xdg") } };
}

describe("hookbox trust", { timeout: 120_000 }, () => {
  it("lists the project's modules (pi's folder, pi's settings, the hook folders; not the user's own) with origin, files and hash; off a terminal it does not approve without --yes", async () => {
    const w = world();
    const r = await hookbox(["trust", w.project, ...w.args], { env: w.env });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toBe("hookbox trust: not approved (not a terminal: pass --yes to approve)\n");
    expect(r.stdout).toContain(`${w.project}: 3 modules of the project would run, under "untrusted":`);
    expect(r.stdout).toMatch(/ {2}tools\/listed\.ts {2}\[not approved\]\n {4}origin: pi \(\.pi\/settings\.json\)\n {4}sha256: [0-9a-f]{64}\n {4}files:/);
    expect(r.stdout).toContain("  .pi/extensions/evil.ts  [not approved]\n    origin: pi (.pi/extensions)");
    expect(r.stdout).toMatch(/ {6}[0-9a-f]{12} {2}\.pi\/extensions\/lib\/x\.ts\n/);
    expect(r.stdout).toContain("  .claude/hooks/pre/bash.ts  [not approved]\n    origin: hooks (Claude Code)");
    expect(r.stdout).not.toContain("mine.ts");
    expect(r.stdout).toContain("3 not approved as they are now");
    expect(new ApprovalStore({ dir: w.config }).read().projects).toEqual({});
  });

  it("--yes approves exactly what was listed, in the store outside the project; a second run says so; --revoke removes it", async () => {
    const w = world();
    const approved = await hookbox(["trust", w.project, "--yes", ...w.args], { env: w.env });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain(`approved 3 modules of ${w.project} (kept in ${join(w.config, "approvals.json")})`);
    const store = new ApprovalStore({ dir: w.config });
    expect(Object.keys(store.read().projects[w.project]!.modules).sort()).toEqual([
      join(w.project, ".claude/hooks/pre/bash.ts"), join(w.project, ".pi/extensions/evil.ts"), join(w.project, "tools/listed.ts"),
    ]);
    expect(store.check(w.project, { path: join(w.project, ".pi/extensions/evil.ts"), policy: "untrusted" })).toBeUndefined();
    const again = await hookbox(["trust", w.project, ...w.args], { env: w.env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("every module is approved as it is");
    const json = await hookbox(["trust", w.project, "--json", ...w.args], { env: w.env });
    expect(JSON.parse(json.stdout)).toMatchObject({ project: w.project, policy: "untrusted", pending: 0 });

    writeFileSync(join(w.project, ".pi/extensions/lib/x.ts"), "export const x = 2;\n");
    const changed = await hookbox(["trust", w.project, ...w.args], { env: w.env });
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain("  .pi/extensions/evil.ts  [not approved]");
    expect(changed.stdout).toContain("  tools/listed.ts  [approved]");

    const revoked = await hookbox(["trust", w.project, "--revoke", ...w.args], { env: w.env });
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toBe(`revoked every approval of ${w.project}\n`);
    expect(store.read().projects).toEqual({});
  });

  it("uses $XDG_CONFIG_HOME/hookbox by default", async () => {
    const w = world();
    const r = await hookbox(["trust", w.project, "--yes", "--agent-dir", join(w.root, "agent")], { env: w.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`(kept in ${join(w.root, "xdg", "hookbox", "approvals.json")})`);
  });

  it("a corrupt store is named, exit 1, and not overwritten", async () => {
    const w = world();
    writeHook(w.config, "approvals.json", "{ nope");
    const r = await hookbox(["trust", w.project, "--yes", ...w.args], { env: w.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`hookbox trust: the approvals store ${join(w.config, "approvals.json")} is corrupt`);
    expect(readFileSync(join(w.config, "approvals.json"), "utf8")).toBe("{ nope");
  });

  it("without pi on PATH: pi's two folders by its folder rule, and a settings file that lists extensions is named (those stay unlisted)", async () => {
    const w = world();
    const r = await hookbox(["trust", w.project, ...w.args], { env: { ...w.env, PATH: "/usr/bin:/bin" } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`hookbox trust: ${join(w.project, ".pi", "settings.json")} lists extensions or packages, which only pi's own code resolves: pi was not found`);
    expect(r.stdout).toContain("  .pi/extensions/evil.ts  [not approved]\n    origin: pi (.pi/extensions)");
    expect(r.stdout).not.toContain("tools/listed.ts");
  });

  it("a project's skill or command with power parts (fixtures/hostile/claude-code/runs-shell-through-its-skills) is one item per file saying what it does, pinned with its content and the script its shell runs; --yes approves it; once it changed it is listed unapproved again; one that links out of the project cannot be approved", async () => {
    const w = world();
    // pi is not needed here (its settings file is named and left): three runs without starting it.
    const env = { ...w.env, PATH: "/usr/bin:/bin" };
    cpSync(join(ROOT, "fixtures", "hostile", "claude-code", "runs-shell-through-its-skills"), w.project, { recursive: true });
    writeHook(w.root, "outside/evil.md", "---\nallowed-tools: Bash(*)\n---\nx\n");
    mkdirSync(join(w.project, ".claude", "commands"), { recursive: true });
    symlinkSync(join(w.root, "outside", "evil.md"), join(w.project, ".claude", "commands", "evil.md"));
    const listed = await hookbox(["trust", w.project, ...w.args], { env });
    expect(listed.code).toBe(1);
    expect(listed.stdout).toMatch(/ {2}\.claude\/skills\/deploy\/SKILL\.md#power {2}\[not approved\]\n {4}origin: Claude Code \(\.claude\/skills\/deploy\/SKILL\.md, skill: runs shell, allowed-tools\)\n {4}gives: runs: "git branch --show-current; bash tools\/steal\.sh"\n {4}gives: frontmatter: "allowed-tools:\\n  - Bash\(\*\)\\n  - Write"\n {4}pins: the file's content; the project files below; a link by its text and by the content it leads to\n {4}sha256: [0-9a-f]{64}\n {4}files:\n {6}[0-9a-f]{12} {2}\.claude\/skills\/deploy\/SKILL\.md\n {6}[0-9a-f]{12} {2}tools\/steal\.sh\n/);
    expect(listed.stdout).toContain("  .claude/commands/ops/release.md#power  [not approved]\n    origin: Claude Code (.claude/commands/ops/release.md, command: runs shell, allowed-tools)");
    expect(listed.stdout).toContain(`  .claude/commands/evil.md#power  [cannot be approved]\n    origin: Claude Code (.claude/commands/evil.md, command: allowed-tools)\n    why: ${join(w.project, ".claude/commands/evil.md")} leads outside the project`);
    expect(listed.stdout).not.toContain("style/SKILL.md");
    const approved = await hookbox(["trust", w.project, "--yes", ...w.args], { env });
    const keys = Object.keys(new ApprovalStore({ dir: w.config }).read().projects[w.project]!.modules);
    expect(keys).toContain(join(w.project, ".claude/skills/deploy/SKILL.md#power"));
    expect(keys).toContain(join(w.project, ".claude/commands/ops/release.md#power"));
    expect(keys).not.toContain(join(w.project, ".claude/commands/evil.md#power"));
    expect(approved.stderr).toContain("1 of the project's modules cannot be approved as it stands");
    writeFileSync(join(w.project, ".claude/commands/ops/release.md"), readFileSync(join(w.project, ".claude/commands/ops/release.md"), "utf8").replace("Bash(curl:*)", "Bash(*)"));
    const changed = await hookbox(["trust", w.project, ...w.args], { env });
    expect(changed.stdout).toContain("  .claude/commands/ops/release.md#power  [not approved]");
    expect(changed.stdout).toContain("  .claude/skills/deploy/SKILL.md#power  [approved]");
  });

  it("usage errors: no project, a file, an unknown policy (exit 2)", async () => {
    const w = world();
    expect((await hookbox(["trust"], { env: w.env })).code).toBe(2);
    const file = await hookbox(["trust", join(w.project, "tools/listed.ts")], { env: w.env });
    expect(file.code).toBe(2);
    expect(file.stderr).toContain("is not a folder");
    const policy = await hookbox(["trust", w.project, "--policy", "loose"], { env: w.env });
    expect(policy.code).toBe(2);
    expect(policy.stderr).toContain('--policy must be one of "trusted", "confined", "untrusted", got "loose"');
  });
});
