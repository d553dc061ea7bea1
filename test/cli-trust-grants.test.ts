/**
 * `hookbox trust` and grants (src/cli/trust.ts, src/claude/propose.ts): it reads each Claude Code
 * hook of the project and proposes the grants it will need; `--grant proposed` gives each hook its
 * own; the grants are kept in the approval; widening asks again, narrowing does not; `--policy`
 * is refused by name for Claude Code hooks. The hooks are the corpus of fixtures/grants/.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { hookbox } from "./cli-run.js";
import { writeCorpus } from "./support/grants-corpus.js";
import { tempDir } from "./helpers/files.js";
import { installPiDir } from "./support/pi-agent.js";

function world() {
  const root = tempDir("hookbox-trust-grants-");
  const project = join(root, "project");
  const bin = join(root, "bin");
  writeCorpus(project, bin);
  const approvals = join(root, "approvals");
  const env = { PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`, HOME: join(root, "home"), XDG_CONFIG_HOME: join(root, "xdg") };
  const trust = (...args: string[]) => hookbox(["trust", project, "--approvals", approvals, "--agent-dir", join(root, "agent"), ...args], { env });
  const stored = () => {
    const data = JSON.parse(readFileSync(join(approvals, "approvals.json"), "utf8")) as { projects: Record<string, { modules: Record<string, { grants?: string[] }> }> };
    const modules = Object.values(data.projects)[0]!.modules;
    return Object.fromEntries(Object.entries(modules).map(([k, m]) => [k.replace(/^.*#/, ""), m.grants ?? []]));
  };
  return { project, trust, stored };
}

describe("hookbox trust proposes and pins grants", { timeout: 60_000 }, () => {
  it("proposes each hook's grants by reading it: write:logs for the logger, exec:prettier and write:tool-target for the formatter, effects:annotate for the context, effects:continue for the Stop gate, none for the guard", async () => {
    const w = world();
    const r = await w.trust("--json");
    const modules = (JSON.parse(r.stdout) as { modules: Array<{ path: string; proposed?: string[] }> }).modules;
    const proposed = Object.fromEntries(modules.filter((m) => m.proposed).map((m) => [m.path.replace(/^.*#/, ""), m.proposed]));
    expect(proposed).toEqual({
      "hooks.PreToolUse[0].hooks[0]": [],
      "hooks.PreToolUse[1].hooks[0]": ["write:logs"],
      "hooks.PostToolUse[0].hooks[0]": ["exec:prettier", "write:tool-target"],
      "hooks.UserPromptSubmit[0].hooks[0]": ["effects:annotate"],
      "hooks.Stop[0].hooks[0]": ["effects:continue"],
    });
    const text = await w.trust();
    expect(text.stdout).toContain(`proposed: write:logs (npx hookbox trust ${w.project} --grant write:logs, or --grant proposed)`);
  });

  it("--grant proposed gives each hook its own grants, kept in the approval; narrowing needs no new approval, widening does", async () => {
    const w = world();
    expect((await w.trust("--grant", "proposed", "--yes")).code).toBe(0);
    expect(w.stored()).toEqual({
      "hooks.PreToolUse[0].hooks[0]": [],
      "hooks.PreToolUse[1].hooks[0]": ["write:logs"],
      "hooks.PostToolUse[0].hooks[0]": ["exec:prettier", "write:tool-target"],
      "hooks.UserPromptSubmit[0].hooks[0]": ["effects:annotate"],
      "hooks.Stop[0].hooks[0]": ["effects:continue"],
    });
    // Narrowing: no --yes, not a terminal, and still written.
    const narrowed = await w.trust("--grant", "write:logs");
    expect(narrowed.code, narrowed.stderr).toBe(0);
    expect(narrowed.stdout).toContain("narrowed the grants of 3 hooks (no new approval needed)");
    expect(w.stored()["hooks.PreToolUse[1].hooks[0]"]).toEqual(["write:logs"]);
    expect(w.stored()["hooks.Stop[0].hooks[0]"]).toEqual([]);
    // Widening: asks again, and off a terminal without --yes it is not approved.
    const widened = await w.trust("--grant", "proposed");
    expect(widened.code).toBe(1);
    expect(widened.stdout).toContain("[not approved]");
    expect(w.stored()["hooks.Stop[0].hooks[0]"]).toEqual([]);
  });

  it("refuses a grant no hook can be given, and --policy for Claude Code hooks, by name", async () => {
    const w = world();
    const bad = await w.trust("--grant", "write:.git/hooks", "--yes");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(".git is where git or an agent runs code or reads instructions from");
    const policy = await w.trust("--policy", "confined", "--yes");
    expect(policy.stderr).toContain('--policy "confined" is refused for Claude Code hooks: they run in the sandbox under "untrusted", with the grants listed');
    expect(policy.stdout).toContain('runs: in the sandbox under "untrusted", with no grant');
  });
});

describe("hookbox trust proposes a pi module's grants by reading it", { timeout: 60_000 }, () => {
  it("write:logs for a logger, effects:annotate for a context extension, nothing for a guard (a module it imports is no folder to write)", async () => {
    const root = tempDir("hookbox-trust-module-grants-");
    const project = join(root, "project");
    const extensions = join(project, ".pi", "extensions");
    const fixtures = join(import.meta.dirname, "..", "fixtures", "extensions");
    mkdirSync(join(extensions, "guard", "lib"), { recursive: true });
    cpSync(join(fixtures, "logs-tool-calls.ts"), join(extensions, "tool-log.ts"));
    cpSync(join(fixtures, "project-notes"), join(extensions, "project-notes"), { recursive: true });
    writeFileSync(join(extensions, "guard", "lib", "rules.ts"), "export const DENY = /rm -rf/;\n");
    writeFileSync(join(extensions, "guard", "index.ts"), `import { DENY } from "./lib/rules.ts";
export default (pi: any) => pi.on("tool_call", (e: any) => (DENY.test(e.input.command ?? "") ? { block: true, reason: "no" } : undefined));
`);
    const env = { PATH: `${join(installPiDir(), "node_modules", ".bin")}${delimiter}/usr/local/bin:/usr/bin:/bin`, HOME: join(root, "home"), XDG_CONFIG_HOME: join(root, "xdg") };
    const r = await hookbox(["trust", project, "--approvals", join(root, "approvals"), "--agent-dir", join(root, "agent"), "--json"], { env });
    const modules = (JSON.parse(r.stdout) as { modules: Array<{ path: string; proposed?: string[] }> }).modules;
    expect(Object.fromEntries(modules.map((m) => [m.path.slice(extensions.length + 1), m.proposed]))).toEqual({
      "guard/index.ts": [], "project-notes/index.ts": ["effects:annotate"], "tool-log.ts": ["write:logs"],
    });
  });
});

