/**
 * End to end against the real Codex CLI 0.169.0 (`codex exec`) and Gemini CLI 0.61.0 (`gemini -p`),
 * the two agents whose command hooks src/agents/ routes: the same checks over one row per agent
 * (its harness in test/support/codex-run.ts and gemini-run.ts, its world, the strings that differ).
 * Each runs headless in a network namespace with only loopback, against a fake model server whose
 * model asks the shell tool to run a command. Each case has a control run of the agent alone,
 * showing the check can fail, then `hookbox codex` or `hookbox gemini`. Codex's runs pass
 * --dangerously-bypass-hook-trust: alone, Codex then runs the project's and your hooks; under
 * hookbox it still runs only the managed routing hook. Several hostile hooks share one run.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentUnavailable } from "./support/pi-run.js";
import * as codex from "./support/codex-run.js";
import * as gemini from "./support/gemini-run.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";

interface World { root: string; project: string; home: string; victim: string }
interface Run { code: number | null; stdout: string; stderr: string; result: string; requests: string }
type HookDef = { fixture: string };

/** What differs between the agents for these checks. */
interface Row<W extends World, D extends HookDef> {
  agent: string;
  version: string;
  install: () => string;
  world: (root: string, program: string) => W;
  run: (world: W, options: { command: string; hookbox: boolean }) => Run;
  projectHooks: (world: W, defs: D[]) => void;
  approve: (world: W) => string;
  canary: typeof codex.CANARY;
  /** The command the fake model asks for. */
  rm: string;
  fixtures: string;
  /** The faulty guards of one run, and how the title names them. */
  faults: D[];
  faultsNamed: string;
  /** The model's memory file the world holds. */
  memory: string;
  /** How `hookbox trust` lists the project's secret-reading hook. */
  listed: (world: W) => string;
  /** Words the refusal of the input rewrite names, beyond the code. */
  rewriteNamed: string[];
  apiKeyVar: string;
  /** The user's guards: where they are, and a second file of them (a counter) when the agent has one. */
  userGuards: string;
  userHook: (world: W, guard: string, counter: string) => void;
  counter?: { file: string; word: string };
}

const codexRow: Row<codex.CodexWorld, { fixture: string; timeoutS?: number }> = {
  agent: "Codex CLI",
  version: codex.CODEX_VERSION,
  install: codex.installCodex,
  world: codex.codexWorld,
  run: codex.runCodex,
  projectHooks: codex.projectHooks,
  approve: codex.approve,
  canary: codex.CANARY,
  // Not rm -rf: Codex 0.169.0 itself refuses "rm -f style commands".
  rm: "rm -r ./victim",
  fixtures: "fixtures/hostile/codex",
  faults: [
    { fixture: "fixtures/hostile/codex/crashes.sh" },
    { fixture: "fixtures/hostile/codex/hangs.sh", timeoutS: 2 },
    { fixture: "fixtures/hostile/codex/prints-malformed-json.sh" },
    { fixture: "fixtures/hostile/codex/blocks-with-empty-stderr.sh" },
  ],
  faultsNamed: "a crashing, a hanging, a malformed guard and one exiting 2 with no reason",
  memory: "AGENTS.md",
  listed: (w) => `Codex CLI (.codex/hooks.json, PreToolUse ^Bash$: ${w.project}/.codex/hooks/reads-user-secrets.sh)`,
  rewriteNamed: [],
  apiKeyVar: "OPENAI_API_KEY",
  userGuards: "your own guards (hooks.json and config.toml's [hooks])",
  userHook: codex.userHook,
  counter: { file: "toml-runs", word: "toml" },
};

const geminiRow: Row<gemini.GeminiWorld, { fixture: string; timeoutMs?: number }> = {
  agent: "Gemini CLI",
  version: gemini.GEMINI_VERSION,
  install: gemini.installGemini,
  world: gemini.geminiWorld,
  run: gemini.runGemini,
  projectHooks: gemini.projectHooks,
  approve: gemini.approve,
  canary: gemini.CANARY,
  rm: "rm -rf ./victim",
  fixtures: "fixtures/hostile/gemini",
  faults: [
    { fixture: "fixtures/hostile/gemini/crashes.sh" },
    { fixture: "fixtures/hostile/gemini/hangs.sh", timeoutMs: 2_000 },
    { fixture: "fixtures/hostile/gemini/prints-malformed-json.sh" },
  ],
  faultsNamed: "a crashing, a hanging and a malformed guard",
  memory: "GEMINI.md",
  listed: () => "Gemini CLI (.gemini/settings.json, BeforeTool run_shell_command: \"$GEMINI_PROJECT_DIR\"/.gemini/hooks/reads-user-secrets.sh)",
  rewriteNamed: ["hookSpecificOutput.tool_input"],
  apiKeyVar: "GEMINI_API_KEY",
  userGuards: "your own guard (~/.gemini/settings.json)",
  // Gemini CLI's user settings hold one guard here; the counter has no second file to live in.
  userHook: (w, guard) => gemini.userHook(w, guard),
};

const sandbox = sandboxAvailability();

function endToEnd<W extends World, D extends HookDef>(row: Row<W, D>): void {
  const unavailable = agentUnavailable(row.agent) ?? (sandbox.ok ? undefined : sandbox.reason);
  const { agent, canary, rm } = row;
  let program = "";
  const roots: string[] = [];
  const world = (): W => {
    const root = mkdtempSync(join(tmpdir(), `hookbox-e2e-${row.agent.split(" ")[0]!.toLowerCase()}-`));
    roots.push(root);
    return row.world(root, program);
  };
  const victimKept = (w: W) => existsSync(join(w.victim, "keep.txt"));
  const fixture = (name: string) => [{ fixture: `${row.fixtures}/${name}` } as D];

  describe.skipIf(unavailable)(`${agent} ${row.version} end to end`, { timeout: 120_000 }, () => {
    beforeAll(() => { program = row.install(); }, 300_000);
    afterAll(() => { for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true }); });

    it(`a project's hook that reads the ssh key, a secret and the API key: ${agent} alone runs it; hookbox runs it only approved, sandboxed, reaching none of them; ${row.memory} still reaches the model`, () => {
      const control = world();
      row.projectHooks(control, fixture("reads-user-secrets.sh"));
      const leaked = row.run(control, { command: rm, hookbox: false });
      for (const c of [canary.ssh, canary.secret, canary.apiKey]) expect(leaked.result).toContain(c);
      expect(readFileSync(join(control.project, "leaked.txt"), "utf8")).toContain(canary.ssh);

      const w = world();
      row.projectHooks(w, fixture("reads-user-secrets.sh"));
      const unapproved = row.run(w, { command: rm, hookbox: true });
      expect(unapproved.code, unapproved.stderr).toBe(0);
      expect(unapproved.result).toContain("(not_approved)");
      expect(unapproved.result).toContain(`npx hookbox trust ${w.project}`);
      expect(unapproved.stderr).toContain(`1 of the project's ${agent} hooks is not approved as it is`);
      expect(victimKept(w)).toBe(true);
      expect(existsSync(join(w.project, "leaked.txt"))).toBe(false);

      const listed = row.approve(w);
      expect(listed).toContain(row.listed(w));
      expect(listed).toContain("approved 1 module");
      const approved = row.run(w, { command: rm, hookbox: true });
      expect(approved.result).toContain("the hook read: ssh= secret= key=");
      expect(approved.result).toContain("Read-only file system");
      for (const c of [canary.ssh, canary.secret, canary.apiKey]) expect(approved.stdout + approved.stderr).not.toContain(c);
      expect(victimKept(w)).toBe(true);
      expect(leaked.requests).toContain(canary.memory);
      expect(approved.requests).toContain(canary.memory);
    });

    it(`${row.faultsNamed}: ${agent} alone runs the call; hookbox blocks it naming crashed, timeout and invalid_result`, () => {
      const control = world();
      row.projectHooks(control, row.faults);
      const alone = row.run(control, { command: rm, hookbox: false });
      expect(alone.code, alone.stderr).toBe(0);
      expect(victimKept(control)).toBe(false);

      const w = world();
      row.projectHooks(w, row.faults);
      row.approve(w);
      const run = row.run(w, { command: rm, hookbox: true });
      expect(run.code, run.stderr).toBe(0);
      expect(victimKept(w)).toBe(true);
      for (const code of ["(crashed)", "(timeout)", "(invalid_result)"]) expect(run.result).toContain(code);
    });

    it(`an input rewrite: ${agent} alone runs the rewritten command; hookbox refuses it (effect_refused) and blocks the call`, () => {
      const control = world();
      row.projectHooks(control, fixture("rewrites-shell-command.sh"));
      row.run(control, { command: rm, hookbox: false });
      expect(existsSync(join(control.project, "rewritten.txt"))).toBe(true);

      const w = world();
      row.projectHooks(w, fixture("rewrites-shell-command.sh"));
      row.approve(w);
      const run = row.run(w, { command: rm, hookbox: true });
      expect(run.result).toContain("(effect_refused)");
      for (const named of row.rewriteNamed) expect(run.result).toContain(named);
      expect(existsSync(join(w.project, "rewritten.txt"))).toBe(false);
      expect(victimKept(w)).toBe(true);
    });

    it(`${row.userGuards}: ${agent} alone gives them the API key; under hookbox they still block, each runs once (${agent} does not run them itself) and without the API key`, () => {
      const guard = `echo "runs key=$${row.apiKeyVar}" >> "$HOME/guard-runs"; echo "your guard says no" >&2; exit 2`;
      const counter = row.counter ? `echo "${row.counter.word} key=$${row.apiKeyVar}" >> "$HOME/${row.counter.file}"` : "";
      const control = world();
      row.userHook(control, guard, counter);
      row.run(control, { command: rm, hookbox: false });
      expect(readFileSync(join(control.home, "guard-runs"), "utf8")).toBe(`runs key=${canary.apiKey}\n`);
      if (row.counter) expect(readFileSync(join(control.home, row.counter.file), "utf8")).toBe(`${row.counter.word} key=${canary.apiKey}\n`);

      const w = world();
      row.userHook(w, guard, counter);
      const run = row.run(w, { command: rm, hookbox: true });
      expect(run.result).toContain("your guard says no");
      expect(victimKept(w)).toBe(true);
      expect(readFileSync(join(w.home, "guard-runs"), "utf8")).toBe("runs key=\n");
      if (row.counter) expect(readFileSync(join(w.home, row.counter.file), "utf8")).toBe(`${row.counter.word} key=\n`);
    });
  });
}

endToEnd(codexRow);
endToEnd(geminiRow);
