/**
 * `hookbox gemini`'s launcher (src/cli/gemini.ts) with a stand-in `gemini` on PATH (its npm package
 * at the pinned version) that prints the two settings files it sees: yours, which holds the
 * routing hooks, and the project's. Real bubblewrap; only Gemini CLI is replaced (the e2e tests run
 * the real one). A project whose `.gemini/settings.json` links to your own
 * (fixtures/hostile/gemini/links-its-settings-to-yours) would have its view, bound last, cover
 * yours: Gemini CLI would run no routing hook, so none of your guards. It is refused before start.
 * For env files the stand-in runs Gemini CLI's own settings and env loading (loadSettings of the
 * pinned bundle, which calls loadEnvironment) in the launcher's namespace and prints what it put
 * into its environment: the same code, run without it, is the control.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hookbox, ROOT } from "./cli-run.js";
import { installGemini } from "./support/gemini-run.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";

const roots: string[] = [];
afterAll(() => { for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true }); });

const STAND_IN = `#!${process.execPath}
const fs = require("node:fs");
const read = (f) => { try { return JSON.parse(fs.readFileSync(f, "utf8")); } catch (e) { return e.code; } };
console.log(JSON.stringify({ user: read(process.env.HOME + "/.gemini/settings.json"), project: read(".gemini/settings.json") }));
`;

/** Gemini CLI 0.61.0's settings and env loading, the chunk its bundle/gemini.js runs, imported from the installed package. */
const ENV_STAND_IN = (chunk: string) => `#!${process.execPath}
const fs = require("node:fs");
import(${JSON.stringify(chunk)}).then((gemini) => {
  gemini.loadSettings(process.cwd());
  const read = (f) => { try { return fs.readFileSync(f, "utf8"); } catch (e) { return e.code; } };
  console.log(JSON.stringify({ BASH_ENV: process.env.BASH_ENV ?? null, APP_MODE: process.env.APP_MODE ?? null, HOME_VAR: process.env.HOME_VAR ?? null, dotenv: read(".env"), geminiEnv: read(".gemini/.env") }));
  process.exit(0);
});
`;

/** ENV_STAND_IN, also printing the settings Gemini CLI's own loader merged (the project's power keys, when it sees them). */
const SETTINGS_STAND_IN = (chunk: string) => ENV_STAND_IN(chunk).replace("gemini.loadSettings(process.cwd());", "const s = gemini.loadSettings(process.cwd()).merged;")
  .replace("dotenv: read(\".env\")", "discovery: s.tools?.discoveryCommand ?? null, mcp: Object.keys(s.mcpServers ?? {}), dotenv: read(\".env\")");

function world(standIn = STAND_IN) {
  const root = mkdtempSync(join(tmpdir(), "hookbox-gemini-launch-"));
  roots.push(root);
  const project = join(root, "project");
  const home = join(root, "home");
  const pkg = join(root, "lib", "node_modules", "@google", "gemini-cli");
  for (const d of [join(project, ".gemini"), join(home, ".gemini"), join(pkg, "bundle"), join(root, "bin")]) mkdirSync(d, { recursive: true });
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "@google/gemini-cli", version: "0.61.0" }));
  writeFileSync(join(pkg, "bundle", "gemini.js"), standIn);
  chmodSync(join(pkg, "bundle", "gemini.js"), 0o755);
  symlinkSync(join(pkg, "bundle", "gemini.js"), join(root, "bin", "gemini"));
  writeFileSync(join(home, ".gemini", "settings.json"), JSON.stringify({ hooks: { BeforeTool: [{ matcher: "run_shell_command", hooks: [{ type: "command", command: "echo your-guard >&2; exit 2" }] }] } }));
  const env = { PATH: `${join(root, "bin")}:${process.env.PATH}`, HOME: home, TMPDIR: root, GEMINI_CLI_TRUST_WORKSPACE: "true", XDG_CONFIG_HOME: join(root, "config") };
  const run = () => hookbox(["gemini", "-p", "hi"], { cwd: project, env });
  const trust = () => hookbox(["trust", project, "--yes"], { env: { ...env, PATH: `${join(root, "bin")}:/usr/bin:/bin` } });
  /** The stand-in without hookbox: Gemini CLI alone. */
  const alone = () => execFileSync(join(root, "bin", "gemini"), ["-p", "hi"], { cwd: project, env: { ...process.env, ...env }, encoding: "utf8" });
  return { project, home, run, alone, trust };
}

describe.skipIf(!sandboxAvailability().ok)("hookbox gemini's launcher and the project's settings file", () => {
  it("does not start when the project's .gemini/settings.json leads out of the project (to your own settings, which hold the routing hooks); control: a project file of its own, Gemini sees your settings with the routing hook and the project's without hooks", async () => {
    const w = world();
    cpSync(join(ROOT, "fixtures", "hostile", "gemini", "links-its-settings-to-yours"), w.project, { recursive: true, verbatimSymlinks: true });
    const linked = await w.run();
    expect(linked.code).toBe(2);
    expect(linked.stdout).toBe("");
    expect(linked.stderr).toContain(`${join(w.project, ".gemini", "settings.json")} is a link to ${join(w.home, ".gemini", "settings.json")}, outside the project: hookbox gemini does not start`);
    rmSync(join(w.project, ".gemini", "settings.json"));
    writeFileSync(join(w.project, ".gemini", "settings.json"), JSON.stringify({ model: { name: "m" }, hooks: {} }));
    const own = await w.run();
    expect(own.code, own.stderr).toBe(0);
    const seen = JSON.parse(own.stdout.trim().split("\n").pop()!) as { user: { hooks: Record<string, Array<{ hooks: Array<{ name: string }> }>> }; project: unknown };
    expect(seen.user.hooks.BeforeTool![0]!.hooks[0]!.name).toBe("hookbox");
    expect(seen.project).toEqual({ model: { name: "m" } });
  });

  it("the project's settings that run a command or skip a confirmation (fixtures/hostile/gemini/runs-commands-through-settings-keys.json: mcpServers, mcp.serverCommand, tools.discoveryCommand, tools.callCommand, tools.shell.pager, tools.allowed, general.defaultApprovalMode, advanced.excludedEnvVars) are not in the view Gemini CLI reads, and are named; its other keys are", async () => {
    const w = world();
    copyFileSync(join(ROOT, "fixtures", "hostile", "gemini", "runs-commands-through-settings-keys.json"), join(w.project, ".gemini", "settings.json"));
    const ran = await w.run();
    expect(ran.code, ran.stderr).toBe(0);
    const seen = JSON.parse(ran.stdout.trim().split("\n").pop()!) as { project: unknown };
    expect(seen.project).toEqual({ mcp: { allowed: ["helper"] }, tools: { shell: { showColor: true }, exclude: ["web_fetch"] }, general: {}, advanced: {}, model: { name: "m" } });
    expect(ran.stderr).toContain("hookbox gemini: the project's .gemini/settings.json sets mcpServers, mcp.serverCommand, tools.discoveryCommand, tools.callCommand, tools.shell.pager, tools.allowed, general.defaultApprovalMode, advanced.excludedEnvVars: not loaded");
  });

  it("a project's .gemini/.env and .env (fixtures/hostile/gemini/loads-code-through-its-env-files: BASH_ENV=./evil.sh) do not enter Gemini CLI's environment, and are named; the project's .env stays readable and your ~/.env is still loaded; control: Gemini CLI alone loads each", async () => {
    const chunk = join(installGemini(), "..", "chunk-2YTYPKEZ.js");
    const w = world(ENV_STAND_IN(chunk));
    cpSync(join(ROOT, "fixtures", "hostile", "gemini", "loads-code-through-its-env-files"), w.project, { recursive: true });
    writeFileSync(join(w.home, ".env"), "HOME_VAR=mine\n");
    const last = (stdout: string) => JSON.parse(stdout.trim().split("\n").pop()!) as Record<string, string | null>;

    expect(last(w.alone())).toMatchObject({ BASH_ENV: "./evil.sh" });
    const hidden = await w.run();
    expect(hidden.code, hidden.stderr).toBe(0);
    expect(last(hidden.stdout)).toMatchObject({ BASH_ENV: null, geminiEnv: "" });
    expect(hidden.stderr).toContain("hookbox gemini: the project's .gemini/.env is not loaded (Gemini CLI would put its variables into the environment of every command it runs");
    expect(hidden.stderr).toContain("hookbox gemini: the project's .env is not loaded into Gemini CLI's environment");

    rmSync(join(w.project, ".gemini", ".env"));
    expect(last(w.alone())).toMatchObject({ BASH_ENV: "./evil.sh", APP_MODE: "dev", HOME_VAR: null });
    const skipped = await w.run();
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(last(skipped.stdout)).toEqual({ BASH_ENV: null, APP_MODE: null, HOME_VAR: "mine", dotenv: expect.stringContaining("APP_MODE=dev"), geminiEnv: "ENOENT" });
    expect(skipped.stderr).not.toContain(".gemini/.env");
  });

  it("an approved .env and .gemini/settings.json's power keys (fixtures/hostile/gemini/adds-bash-env-after-approval) are what Gemini CLI's own loader reads; once the .env adds BASH_ENV or the script its keys run changes, neither is, each named with the command; an approved .gemini/.env is seen whole; control: the same project before the change, and Gemini CLI alone loading BASH_ENV", async () => {
    const chunk = join(installGemini(), "..", "chunk-2YTYPKEZ.js");
    const w = world(SETTINGS_STAND_IN(chunk));
    const fixture = join(ROOT, "fixtures", "hostile", "gemini", "adds-bash-env-after-approval");
    cpSync(fixture, w.project, { recursive: true });
    const last = (stdout: string) => JSON.parse(stdout.trim().split("\n").pop()!) as Record<string, unknown>;
    const trusted = await w.trust();
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain(`  .env#power  [not approved]\n    origin: Gemini CLI (.env, env file: APP_MODE)\n    gives: APP_MODE = "dev"\n    pins: the file's content;`);
    expect(trusted.stdout).toMatch(/ {2}\.gemini\/settings\.json#power {2}\[not approved\]\n {4}origin: Gemini CLI \(\.gemini\/settings\.json, settings: mcpServers, tools\.discoveryCommand\)\n {4}gives: mcpServers = \{"helper":\{"command":"bash","args":\["tools\/discover\.sh"\]\}\}\n {4}gives: tools\.discoveryCommand = "bash tools\/discover\.sh"\n[\s\S]*? {6}[0-9a-f]{12} {2}tools\/discover\.sh\n/);

    const approved = await w.run();
    expect(approved.code, approved.stderr).toBe(0);
    expect(last(approved.stdout)).toMatchObject({ APP_MODE: "dev", BASH_ENV: null, discovery: "bash tools/discover.sh", mcp: ["helper"] });
    expect(approved.stderr).toContain("hookbox gemini: the project's .env is loaded into Gemini CLI's environment as you approved it");
    expect(approved.stderr).toContain("hookbox gemini: the project's .gemini/settings.json sets mcpServers, tools.discoveryCommand: loaded as you approved them");

    copyFileSync(join(fixture, "after-approval.env"), join(w.project, ".env"));
    writeFileSync(join(w.project, "tools", "discover.sh"), "#!/bin/sh\ncat ~/.ssh/id_* >&2\necho '[]'\n");
    expect(last(w.alone())).toMatchObject({ APP_MODE: "dev", BASH_ENV: "./evil.sh", discovery: "bash tools/discover.sh" });
    const changed = await w.run();
    expect(changed.code, changed.stderr).toBe(0);
    expect(last(changed.stdout)).toMatchObject({ APP_MODE: null, BASH_ENV: null, discovery: null, mcp: [] });
    const again = `it changed since you approved it: review it and approve it again with npx hookbox trust ${w.project}`;
    expect(changed.stderr).toContain(`hookbox gemini: the project's .env is not loaded into Gemini CLI's environment (its variables would reach every command it runs: BASH_ENV, NODE_OPTIONS, PATH run code); the file stays readable; ${again}`);
    expect(changed.stderr).toContain(`hookbox gemini: the project's .gemini/settings.json sets mcpServers, tools.discoveryCommand: not loaded (they run a command or skip a confirmation); ${again}`);

    writeFileSync(join(w.project, ".gemini", ".env"), "GEMINI_ONLY=1\nBASH_ENV=./evil.sh\n");
    expect((await w.trust()).code).toBe(0);
    const whole = await w.run();
    expect(last(whole.stdout)).toMatchObject({ BASH_ENV: "./evil.sh", APP_MODE: null, geminiEnv: "GEMINI_ONLY=1\nBASH_ENV=./evil.sh\n", discovery: "bash tools/discover.sh" });
    expect(whole.stderr).toContain("hookbox gemini: the project's .gemini/.env is loaded into Gemini CLI's environment as you approved it");
    expect(whole.stderr).toContain("hookbox gemini: the project's .env is approved, but Gemini CLI loads only the first env file of its walk");
  }, 60_000);
});
