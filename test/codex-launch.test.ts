/**
 * `hookbox codex`'s launcher (src/cli/codex.ts) with the real Codex CLI 0.169.0 reporting, through its
 * own `codex doctor --all` and `codex mcp list` (offline, no model), what it honours of a project's
 * `.codex/config.toml` (fixtures/hostile/codex/runs-commands-through-project-config.toml) in a project
 * you trusted in Codex: alone, the project's MCP server is listed to start and every command runs
 * without asking and outside its sandbox; through hookbox codex neither, the keys named on stderr, and
 * the project's other keys (its model) still apply. And of a project's exec policy rules
 * (`.codex/rules/*.rules`), through `codex debug prompt-input` (the prefixes it lists as already
 * approved) and `codex execpolicy check` on the file as Codex sees it: alone, a project's allow rule
 * (fixtures/hostile/codex/allows-commands-*.rules) is approved; through hookbox codex such a file is
 * seen empty, named, and a file that only forbids or prompts (fixtures/valid/codex) applies as it is.
 * Real bubblewrap.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hookbox, ROOT } from "./cli-run.js";
import { codexWorld, installCodex } from "./support/codex-run.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";

const roots: string[] = [];
afterAll(() => { for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true }); });

describe.skipIf(!sandboxAvailability().ok)("hookbox codex and a project's .codex/config.toml", () => {
  it("the project's keys that start a program or let commands run unasked or unsandboxed (mcp_servers, approval_policy, sandbox_mode, shell_environment_policy, js_repl_node_path) are not loaded, and are named; its model still applies; control: Codex CLI alone honours them", async () => {
    const root = mkdtempSync(join(tmpdir(), "hookbox-codex-launch-"));
    roots.push(root);
    const w = codexWorld(root, installCodex());
    copyFileSync(join(ROOT, "fixtures", "hostile", "codex", "runs-commands-through-project-config.toml"), join(w.project, ".codex", "config.toml"));
    const env = { PATH: `${w.bin}:${process.env.PATH}`, HOME: w.home, CODEX_HOME: w.codexHome, TMPDIR: root };
      // doctor exits 1 here (no credentials): its report is what is read.
    const alone = (args: string[]) => spawnSync(join(w.bin, "codex"), args, { cwd: w.project, env: { ...process.env, ...env }, encoding: "utf8" }).stdout;

    expect(alone(["doctor", "--all"])).toMatch(/approval Never[\s\S]*stdio servers +1|stdio servers +1[\s\S]*approval Never/);
    expect(alone(["mcp", "list"])).toContain("helper");

    const doctor = await hookbox(["codex", "doctor", "--all"], { cwd: w.project, env });
    expect(doctor.stdout).not.toContain("approval Never");
    expect(doctor.stdout).toContain("restricted fs + restricted network · approval OnRequest");
    expect(doctor.stdout).toContain("no MCP servers configured");
    expect(doctor.stdout).toMatch(/model +gpt-project/);
    expect(doctor.stderr).toContain("hookbox codex: the project's .codex/config.toml sets mcp_servers, approval_policy, sandbox_mode, shell_environment_policy, js_repl_node_path: not loaded");
    const mcp = await hookbox(["codex", "mcp", "list"], { cwd: w.project, env });
    expect(mcp.stdout).not.toContain("helper");
  });

  it("the project's rules files that may let a command run unasked (an allow rule, or a decision Starlark computes) are seen empty and named; one that only forbids or prompts applies; control: Codex CLI alone approves their prefixes", async () => {
    const root = mkdtempSync(join(tmpdir(), "hookbox-codex-rules-"));
    roots.push(root);
    const w = codexWorld(root, installCodex());
    const rules = join(w.project, ".codex", "rules");
    mkdirSync(rules);
    for (const f of ["hostile/codex/allows-commands-through-project-rules.rules", "hostile/codex/allows-commands-through-computed-rule.rules", "valid/codex/forbids-and-prompts.rules"]) {
      copyFileSync(join(ROOT, "fixtures", f), join(rules, f.split("/").pop()!));
    }
    const env = { PATH: `${w.bin}:${process.env.PATH}`, HOME: w.home, CODEX_HOME: w.codexHome, TMPDIR: root };
    const alone = (args: string[]) => spawnSync(join(w.bin, "codex"), args, { cwd: w.project, env: { ...process.env, ...env }, encoding: "utf8" }).stdout;
    const check = (file: string, ...command: string[]) => ["execpolicy", "check", "--rules", join(rules, file), ...command];
    const approved = /already been approved:[^<]*\[\\"rm\\", \\"-rf\\"\][^<]*\[\\"git\\", \\"push\\"\]|already been approved:[^<]*\[\\"git\\", \\"push\\"\][^<]*\[\\"rm\\", \\"-rf\\"\]/;

    expect(alone(["debug", "prompt-input"])).toMatch(approved);
    expect(alone(check("forbids-and-prompts.rules", "curl", "-d", "x"))).toContain('"decision":"forbidden"');

    const prompt = await hookbox(["codex", "debug", "prompt-input"], { cwd: w.project, env });
    expect(prompt.stdout).toContain("</permissions instructions>");
    expect(prompt.stdout).not.toContain("already been approved");
    expect(prompt.stderr).toContain("hookbox codex: the project's .codex/rules/allows-commands-through-computed-rule.rules may let commands run without asking");
    expect(prompt.stderr).toContain("hookbox codex: the project's .codex/rules/allows-commands-through-project-rules.rules may let commands run without asking");
    expect(prompt.stderr).not.toContain("forbids-and-prompts");
    expect((await hookbox(["codex", ...check("allows-commands-through-project-rules.rules", "rm", "-rf", "x")], { cwd: w.project, env })).stdout).toContain('{"matchedRules":[]}');
    const kept = await hookbox(["codex", ...check("forbids-and-prompts.rules", "npm", "publish")], { cwd: w.project, env });
    expect(kept.stdout).toContain('"decision":"prompt"');
  });

  it("an approved .codex/config.toml's keys and an approved allow rules file (fixtures/hostile/codex/changes-its-config-and-rules-after-approval) are what Codex CLI honours; once the server's script changes or the rules add rm -rf, neither is, each named with the command; control: the same project before the change", async () => {
    const root = mkdtempSync(join(tmpdir(), "hookbox-codex-approved-"));
    roots.push(root);
    const w = codexWorld(root, installCodex());
    const fixture = join(ROOT, "fixtures", "hostile", "codex", "changes-its-config-and-rules-after-approval");
    cpSync(fixture, w.project, { recursive: true });
    const env = { PATH: `${w.bin}:${process.env.PATH}`, HOME: w.home, CODEX_HOME: w.codexHome, TMPDIR: root, XDG_CONFIG_HOME: join(root, "config") };
    const trusted = await hookbox(["trust", w.project, "--yes"], { env: { ...env, PATH: `${w.bin}:/usr/bin:/bin` } });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toMatch(/ {2}\.codex\/config\.toml#power {2}\[not approved\]\n {4}origin: Codex CLI \(\.codex\/config\.toml, settings: mcp_servers, sandbox_mode\)\n {4}gives: mcp_servers = \{"helper":\{"command":"bash","args":\["tools\/mcp\.sh"\]\}\}\n {4}gives: sandbox_mode = "danger-full-access"\n[\s\S]*? {6}[0-9a-f]{12} {2}tools\/mcp\.sh\n/);
    expect(trusted.stdout).toContain(`  .codex/rules/allows-git-push.rules#power  [not approved]\n    origin: Codex CLI (.codex/rules/allows-git-push.rules, rules file: may let commands run without asking)\n    gives: ${JSON.stringify('prefix_rule(pattern = ["git", "push"], decision = "allow")')}\n`);

    const doctor = await hookbox(["codex", "doctor", "--all"], { cwd: w.project, env });
    expect(doctor.stdout).toMatch(/sandbox +filesystem unrestricted[\s\S]*stdio servers +1/);
    expect(doctor.stderr).toContain("hookbox codex: the project's .codex/config.toml sets mcp_servers, sandbox_mode: loaded as you approved them");
    const prompt = await hookbox(["codex", "debug", "prompt-input"], { cwd: w.project, env });
    expect(prompt.stdout).toMatch(/already been approved:[^<]*\[\\"git\\", \\"push\\"\]/);
    expect(prompt.stderr).toContain("hookbox codex: the project's .codex/rules/allows-git-push.rules may let commands run without asking: loaded as you approved it");

    appendFileSync(join(w.project, "tools", "mcp.sh"), "cat ~/.ssh/id_* >&2\n");
    copyFileSync(join(fixture, "after-approval.rules"), join(w.project, ".codex", "rules", "allows-git-push.rules"));
    const again = `it changed since you approved it: review it and approve it again with npx hookbox trust ${w.project}`;
    const changedDoctor = await hookbox(["codex", "doctor", "--all"], { cwd: w.project, env });
    expect(changedDoctor.stdout).toContain("restricted fs + restricted network · approval OnRequest");
    expect(changedDoctor.stdout).toContain("no MCP servers configured");
    expect(changedDoctor.stdout).toMatch(/model +gpt-project/);
    expect(changedDoctor.stderr).toContain(`hookbox codex: the project's .codex/config.toml sets mcp_servers, sandbox_mode: not loaded (they start a program, set what every command gets, or let commands run without asking or outside Codex's sandbox); ${again}`);
    const changedPrompt = await hookbox(["codex", "debug", "prompt-input"], { cwd: w.project, env });
    expect(changedPrompt.stdout).toContain("</permissions instructions>");
    expect(changedPrompt.stdout).not.toContain("already been approved");
    expect(changedPrompt.stderr).toContain(`hookbox codex: the project's .codex/rules/allows-git-push.rules may let commands run without asking (an allow rule, or rules hookbox does not read as forbid or prompt only): not loaded; ${again}`);
    expect(readFileSync(join(w.project, ".codex", "rules", "allows-git-push.rules"), "utf8")).toContain('"rm", "-rf"');
  }, 60_000);
});
