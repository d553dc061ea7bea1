/**
 * End to end against the real opencode 1.18.33 (scripts/install-opencode.sh), headless, in a
 * network namespace with only loopback, against a fake OpenAI-compatible server whose model asks
 * bash to run a command. Each check has a control run of opencode alone, showing it can fail, then
 * `hookbox opencode` (src/cli/opencode.ts, src/opencode/). The sessions run once, a few at a time,
 * in beforeAll; each test reads the ones it needs.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentUnavailable } from "./support/pi-run.js";
import { ROOT } from "./cli-run.js";
import { approve, CANARY, firstAgentRequest, installOpencode, opencodeWorld, runOpencode, type OpencodeRun, type OpencodeWorld } from "./support/opencode-run.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";

const sandbox = sandboxAvailability();
const unavailable = agentUnavailable("opencode") ?? (sandbox.ok ? undefined : sandbox.reason);
const RM = "rm -rf ./victim";
const H = "fixtures/hostile/opencode";
const roots: string[] = [];
const worlds: Record<string, OpencodeWorld> = {};
const runs: Record<string, OpencodeRun> = {};
let listed = "";

const victimKept = (w: OpencodeWorld) => existsSync(join(w.victim, "keep.txt"));
const toolError = (run: OpencodeRun) => run.tools.map((t) => t.state.error ?? "").join("\n");
const answered = (run: OpencodeRun) => run.texts.some((t) => t.startsWith("TOOL RESULT:"));

describe.skipIf(unavailable)("opencode 1.18.33 end to end", { timeout: 60_000 }, () => {
  beforeAll(async () => {
    const opencode = installOpencode();
    const world = (name: string, plugins: string[] = [], userPlugins: string[] = []) => {
      const root = mkdtempSync(join(tmpdir(), `hookbox-e2e-opencode-${name}-`));
      roots.push(root);
      return (worlds[name] = opencodeWorld(root, opencode, plugins, userPlugins));
    };
    const alone = async (name: string, plugins: string[], options: { command?: string; timeoutMs?: number } = {}) => {
      runs[name] = await runOpencode(world(name, plugins), { command: options.command ?? RM, hookbox: false, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) });
    };
    const approved = async (name: string, plugins: string[], options: { command?: string; env?: Record<string, string> } = {}) => {
      const w = world(name, plugins);
      approve(w);
      runs[name] = await runOpencode(w, { command: options.command ?? RM, hookbox: true, ...(options.env ? { env: options.env } : {}) });
    };
    const chains: Array<() => Promise<void>> = [
      async () => {
        const w = world("secrets", [`${H}/reads-user-secrets.ts`]);
        runs.unapproved = await runOpencode(w, { command: RM, hookbox: true });
        runs.unapprovedLeak = { ...runs.unapproved, stdout: existsSync(join(w.project, "leaked.txt")) ? "leaked" : "" };
        listed = approve(w);
        runs.secrets = await runOpencode(w, { command: RM, hookbox: true });
      },
      () => alone("secretsAlone", [`${H}/reads-user-secrets.ts`]),
      async () => {
        runs.flag = await runOpencode(world("flag", [`${H}/reads-user-secrets.ts`]), { command: RM, hookbox: false, env: { OPENCODE_DISABLE_PROJECT_CONFIG: "1" } });
      },
      async () => {
        runs.plainHookbox = await runOpencode(world("plainHookbox"), { command: RM, hookbox: true });
      },
      () => alone("guardAlone", ["fixtures/opencode/blocks-rm-rf.ts"]),
      () => approved("guard", ["fixtures/opencode/blocks-rm-rf.ts"]),
      () => alone("rewriteAlone", [`${H}/rewrites-bash-command.ts`], { command: "echo the model's own command" }),
      () => approved("rewrite", [`${H}/rewrites-bash-command.ts`], { command: "echo the model's own command" }),
      () => alone("hangAlone", [`${H}/hangs-in-tool-execute.ts`], { timeoutMs: 20_000 }),
      () => approved("hang", [`${H}/hangs-in-tool-execute.ts`], { env: { HOOKBOX_OPENCODE_DEADLINE_MS: "1500" } }),
      () => alone("exitAlone", [`${H}/exits-in-tool-execute.ts`]),
      () => approved("exit", [`${H}/exits-in-tool-execute.ts`]),
      () => approved("timer", [`${H}/throws-from-a-timer.ts`]),
      () => alone("timerAlone", [`${H}/throws-from-a-timer.ts`]),
      ...[false, true].map((hookbox) => async () => {
        const w = world(hookbox ? "command" : "commandAlone");
        cpSync(join(ROOT, H, "runs-shell-through-its-commands-and-agents"), w.project, { recursive: true });
        runs[hookbox ? "command" : "commandAlone"] = await runOpencode(w, { command: RM, hookbox, args: ["--command", "ops/ship"] });
      }),
      async () => {
        runs.user = await runOpencode(world("user", [], [`${H}/rewrites-bash-command.ts`]), { command: "echo the model's own command", hookbox: true });
      },
    ];
    // Two sessions at a time: the machine is shared.
    const queue = [...chains];
    await Promise.all([0, 1].map(async () => { for (let c = queue.shift(); c; c = queue.shift()) await c(); }));
  }, 600_000);
  afterAll(() => { for (const root of roots) rmSync(root, { recursive: true, force: true }); });

  it("control: hookbox opencode with no plugin blocks nothing: the model's rm -rf runs, and its first request carries the project's AGENTS.md", () => {
    expect(runs.plainHookbox!.code, runs.plainHookbox!.stderr).toBe(0);
    expect(victimKept(worlds.plainHookbox!)).toBe(false);
    expect(firstAgentRequest(runs.plainHookbox!)).toContain(CANARY.agents);
  });

  it("a project's plugin reading ~/.ssh, auth.json and a secret variable: opencode alone imports it and leaks all three (its first request carries AGENTS.md)", () => {
    const run = runs.secretsAlone!;
    expect(firstAgentRequest(run)).toContain(CANARY.agents);
    const leaked = readFileSync(join(worlds.secretsAlone!.project, "leaked.txt"), "utf8");
    for (const canary of [CANARY.ssh, CANARY.auth, CANARY.secret]) {
      expect(leaked).toContain(canary);
      expect(toolError(run)).toContain(canary);
    }
  });

  it("OPENCODE_DISABLE_PROJECT_CONFIG=1 is no wall: opencode alone still imports the project's plugin (its top-level code leaks all three) while dropping its hooks and the project's AGENTS.md", () => {
    const leaked = readFileSync(join(worlds.flag!.project, "leaked.txt"), "utf8");
    for (const canary of [CANARY.ssh, CANARY.auth, CANARY.secret]) expect(leaked).toContain(canary);
    expect(runs.flag!.tools.map((t) => t.state.status)).toEqual(["completed"]);
    expect(firstAgentRequest(runs.flag!)).not.toContain(CANARY.agents);
  });

  it("through hookbox opencode the project's plugin does not run until approved (not_approved): not even its top-level code, every tool call blocked, AGENTS.md still read", () => {
    const run = runs.unapproved!;
    expect(run.code, run.stderr).toBe(0);
    expect(runs.unapprovedLeak!.stdout).toBe("");
    expect(toolError(run)).toContain("(not_approved)");
    expect(toolError(run)).toContain(`npx hookbox trust ${worlds.secrets!.project}`);
    expect(run.stderr).toContain("1 of the project's opencode plugins is not approved as it is");
    expect(victimKept(worlds.secrets!)).toBe(true);
    expect(firstAgentRequest(run)).toContain(CANARY.agents);
  });

  it("hookbox trust lists the project's opencode plugin and its file; approved, it runs sandboxed and reads none of the secrets", () => {
    expect(listed).toContain(".opencode/plugins/reads-user-secrets.ts");
    expect(listed).toContain("origin: opencode (.opencode/plugins)");
    expect(listed).toContain("approved 1 module");
    const run = runs.secrets!;
    // It ran (its block reaches the model), in the sandbox: an empty home, none of the variables, a read-only project.
    expect(toolError(run)).toContain("the plugin read: ssh= auth= secret=");
    expect(existsSync(join(worlds.secrets!.project, "leaked.txt"))).toBe(false);
    const everything = JSON.stringify(run);
    for (const canary of [CANARY.ssh, CANARY.auth, CANARY.secret]) expect(everything).not.toContain(canary);
    expect(victimKept(worlds.secrets!)).toBe(true);
    expect(answered(run)).toBe(true);
  });

  it("a project's guard that throws on rm -rf blocks it in opencode alone and through hookbox opencode, and the model reads its message", () => {
    expect(toolError(runs.guardAlone!)).toContain("guard: rm -rf is not allowed in this project");
    expect(victimKept(worlds.guardAlone!)).toBe(true);
    expect(toolError(runs.guard!)).toBe("guard: rm -rf is not allowed in this project");
    expect(runs.guard!.texts.join("\n")).toContain("TOOL RESULT: guard: rm -rf is not allowed in this project");
    expect(victimKept(worlds.guard!)).toBe(true);
  });

  it("a project's plugin that rewrites the bash command in place: opencode alone runs the rewrite; hookbox opencode refuses it (effect_refused) and blocks the call", () => {
    expect(readFileSync(join(worlds.rewriteAlone!.project, "rewritten.txt"), "utf8")).toContain("REWRITTEN-BY-PLUGIN");
    const error = toolError(runs.rewrite!);
    expect(error).toContain("(effect_refused)");
    expect(error).toContain("output.args");
    expect(existsSync(join(worlds.rewrite!.project, "rewritten.txt"))).toBe(false);
    expect(answered(runs.rewrite!)).toBe(true);
  });

  it("a plugin whose tool.execute.before never settles stalls opencode alone; through hookbox opencode the call is blocked at its deadline (timeout) and opencode answers", () => {
    expect(runs.hangAlone!.signal).toBe("SIGKILL");
    expect(answered(runs.hangAlone!)).toBe(false);
    expect(toolError(runs.hang!)).toContain("(timeout)");
    expect(victimKept(worlds.hang!)).toBe(true);
    expect(answered(runs.hang!)).toBe(true);
    expect(runs.hang!.code).toBe(0);
  });

  it("a plugin that calls process.exit in tool.execute.before ends opencode alone; through hookbox opencode its call is blocked (crashed) and opencode answers", () => {
    expect(answered(runs.exitAlone!)).toBe(false);
    expect(runs.exitAlone!.code).toBe(7);
    expect(toolError(runs.exit!)).toContain("(crashed)");
    expect(victimKept(worlds.exit!)).toBe(true);
    expect(answered(runs.exit!)).toBe(true);
    expect(runs.exit!.code).toBe(0);
  });

  it("a plugin that throws from a timer after loading: opencode alone prints it and runs the call unguarded; through hookbox opencode its process ends, its tool calls are blocked (crashed), opencode answers", () => {
    expect(runs.timerAlone!.stderr).toContain("thrown from a timer");
    expect(victimKept(worlds.timerAlone!)).toBe(false);
    expect(toolError(runs.timer!)).toContain("(crashed)");
    expect(victimKept(worlds.timer!)).toBe(true);
    expect(answered(runs.timer!)).toBe(true);
  });

  it("a project's command whose template runs shell (fixtures/hostile/opencode/runs-shell-through-its-commands-and-agents, run as --command ops/ship): opencode alone runs it as you, past every plugin and permission (your key copied, the model reads its output); hookbox opencode shows it with a placeholder and nothing runs", () => {
    const stolen = (name: string) => existsSync(join(worlds[name]!.project, "stolen.txt"));
    expect(JSON.stringify(runs.commandAlone!.requests)).toContain("COMMAND-SHELL-RAN");
    expect(stolen("commandAlone")).toBe(true);
    const routed = JSON.stringify(runs.command!.requests);
    expect(routed).toContain("Status: [shell command not run: hookbox opencode does not run a project command's shell commands]");
    expect(routed).not.toContain("COMMAND-SHELL-RAN");
    expect(stolen("command")).toBe(false);
    expect(runs.command!.stderr).toContain("the project's command");
  });

  it("your own plugin (~/.config/opencode/plugins) runs through hookbox opencode as you, needing no approval, with substitute effects: its args rewrite runs, as in opencode alone", () => {
    const run = runs.user!;
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(worlds.user!.project, "rewritten.txt"), "utf8")).toContain("REWRITTEN-BY-PLUGIN");
    expect(answered(run)).toBe(true);
  });
});
