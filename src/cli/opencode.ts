/**
 * `hookbox opencode [opencode's arguments]`: starts the `opencode` on PATH inside a private mount
 * namespace (bubblewrap: everything bound as it is) in which the folders that hold plugins and
 * custom tools are empty and each config file that names plugins has them removed, so opencode
 * imports none of them (not even their top-level code), and with OPENCODE_CONFIG_DIR naming a
 * generated folder whose one plugin is hookbox's (src/opencode/plugin.ts). That plugin runs what
 * opencode would have loaded, each in its own process on Bun. Everything else opencode loads
 * (AGENTS.md, agents, commands, skills, permissions, providers) it loads as it does alone.
 */
import { viewTarget } from "../agents/view-target.js";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { below } from "../gates/inside.js";
import { findOnPath } from "../policy/runtime.js";
import { ApprovalStore, approvalCommand } from "../approval/store.js";
import { discoverOpencode, worktreeRoot } from "../opencode/discovery.js";
import { approvedAs, approveTail, judgeItems, POWER_ROWS } from "./power-items.js";
import { DEFAULT_DEADLINE_MS, OPENCODE_PROJECT_POLICY, type OpencodePlan } from "../opencode/plan.js";
import type { Output } from "./render.js";
import { EXIT, UsageError } from "./usage.js";

export const OPENCODE_HELP = `Usage: hookbox opencode [opencode's arguments…]

Start opencode (the \`opencode\` on PATH) with its plugins behind hookbox's wall. opencode runs in a
private mount namespace where the project's and your plugin and tool folders
({.opencode,~/.config/opencode,~/.opencode}/{plugin,plugins,tool,tools}) are empty and config files
naming plugins have them removed, so it imports none of them itself; it loads one plugin, hookbox's,
which runs each plugin opencode would have loaded (its order, the same plugin once) in its own
process on Bun (the opencode binary as Bun): yours as you, without secret-looking variables; the
project's only as approved by \`hookbox trust <project>\`, in the bubblewrap sandbox (no network, the
project read-only, none of your files or variables), where it may block a tool call (throw) and
observe, never rewrite one (effect_refused). A plugin that is not approved, fails to load, crashes,
exits, hangs past its deadline or answers what its hook's schema refuses blocks every tool call
(fail closed); opencode goes on answering. Custom tools and npm plugins are not loaded (named).

Every argument goes to opencode unchanged. HOOKBOX_OPENCODE_DEADLINE_MS sets each hook call's
deadline (default ${DEFAULT_DEADLINE_MS}). Needs bubblewrap (bwrap).
Alias: alias opencode='npx hookbox opencode'
`;

/** The trusted plugin and the plugins' runner, beside this file (src/ or the built dist/src/). */
function ownFiles(): { plugin: string; child: string } {
  const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  return {
    plugin: fileURLToPath(new URL(`../opencode/plugin${ext}`, import.meta.url)),
    child: fileURLToPath(new URL("../opencode/child.mjs", import.meta.url)),
  };
}

function deadline(): number {
  const raw = process.env.HOOKBOX_OPENCODE_DEADLINE_MS;
  if (raw === undefined || raw === "") return DEFAULT_DEADLINE_MS;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 100 || ms > 600_000) throw new UsageError(`HOOKBOX_OPENCODE_DEADLINE_MS must be a whole number of ms from 100 to 600000, got "${raw}"`);
  return ms;
}

/** A config folder opencode treats as installed (node_modules there, its lock naming @opencode-ai/plugin): it starts no npm install in it. */
export function seedConfigDir(dir: string): void {
  mkdirSync(join(dir, "node_modules"), { recursive: true });
  writeFileSync(join(dir, "package.json"), "{}\n");
  writeFileSync(join(dir, "package-lock.json"), `${JSON.stringify({ packages: { "": { dependencies: { "@opencode-ai/plugin": "*" } } } })}\n`);
}

/** Run `hookbox opencode`; resolves with opencode's exit code. */
export async function opencode(args: string[], out: Output, _signal?: AbortSignal, err?: Output): Promise<number> {
  if (args[0] === "--help" && args.length === 1) { out.write(OPENCODE_HELP); return EXIT.ok; }
  const program = findOnPath("opencode");
  if (!program) throw new UsageError("no `opencode` on PATH: install opencode (npm install -g opencode-ai)");
  const bwrap = findOnPath("bwrap");
  if (!bwrap) throw new UsageError("no `bwrap` on PATH: hookbox opencode hides the plugins from opencode in a private mount namespace (install bubblewrap)");
  const say = (line: string) => err?.write(`hookbox opencode: ${line}\n`);
  const cwd = process.cwd();
  const project = worktreeRoot(cwd);
  const found = discoverOpencode(cwd, process.env);
  for (const problem of found.problems) say(problem);
  // A project config's power keys (mcp, formatter, lsp, provider, permission) are seen only as approved.
  const store = new ApprovalStore();
  const items = await judgeItems(store, project, POWER_ROWS.opencode.items(cwd, process.env));
  for (const f of found.filtered) {
    const item = items.find((i) => i.file === f.path);
    if (!item || !f.power) continue;
    if (approvedAs(item, f.power)) { f.content = f.withPower!; continue; }
    say(`the project's ${f.path} sets ${Object.keys(f.power).join(", ")}: not loaded (they run a command, install a package, send your keys elsewhere or skip a question); ${approveTail(project, item.changed)}`);
  }
  // A project's config view is bound where its link leads; one leading out of the project could cover yours.
  for (const f of found.filtered) {
    if (f.origin !== "project") continue;
    f.path = viewTarget("opencode", project, f.path);
  }
  for (const v of found.views) v.path = viewTarget("opencode", project, v.path, "project command or agent file");
  for (const tool of found.tools) say(`the custom tool ${tool.path} is not loaded: hookbox opencode does not run custom tools`);
  if (process.env.OPENCODE_CONFIG_DIR) say(`OPENCODE_CONFIG_DIR (${process.env.OPENCODE_CONFIG_DIR}) is replaced by hookbox's: its plugins run through hookbox, its agents and commands are not loaded`);
  // Checked here, where the plugin files are in view (opencode's namespace hides them), as opencode starts.
  for (const p of found.plugins) {
    if (p.origin !== "project" || p.kind !== "file") continue;
    const refusal = store.check(project, { path: p.path, policy: OPENCODE_PROJECT_POLICY, noun: "an opencode plugin" });
    if (refusal) p.refusal = { code: refusal.code, message: refusal.message };
  }
  const pending = found.plugins.filter((p) => p.refusal).length;
  if (pending > 0) say(`${pending} of the project's opencode plugins ${pending === 1 ? "is" : "are"} not approved as ${pending === 1 ? "it is" : "they are"}: every tool call is blocked until you review and approve them with ${approvalCommand(project)}`);
  const own = ownFiles();
  const dir = mkdtempSync(join(tmpdir(), "hookbox-opencode-"));
  try {
    const config = join(dir, "config");
    mkdirSync(join(config, "plugins"), { recursive: true });
    seedConfigDir(config);
    writeFileSync(join(config, "plugins", "hookbox.js"), `export { default } from ${JSON.stringify(own.plugin)};\n`);
    // Each hidden folder keeps a second, read-only view for hookbox's plugin, bound before the folder is emptied.
    const binds: string[] = [];
    found.hide.forEach((folder, i) => {
      const view = join(dir, "views", String(i));
      mkdirSync(view, { recursive: true });
      binds.push("--ro-bind", folder, view);
      for (const p of found.plugins) {
        const rest = p.kind === "file" ? below(folder, p.path) : undefined;
        if (rest) p.load = join(view, rest);
      }
    });
    for (const folder of found.hide) binds.push("--tmpfs", folder);
    const plan: OpencodePlan = { project, bun: realpathSync(program), child: own.child, deadlineMs: deadline(), plugins: found.plugins };
    const planFile = join(dir, "plan.json");
    writeFileSync(planFile, JSON.stringify(plan), { mode: 0o600 });
    found.filtered.forEach((f, i) => {
      const copy = join(dir, `config-${i}.json`);
      writeFileSync(copy, f.content);
      binds.push("--ro-bind", copy, f.path);
    });
    found.views.forEach((v, i) => {
      const copy = join(dir, `view-${i}.md`);
      writeFileSync(copy, v.content);
      binds.push("--ro-bind", copy, v.path);
    });
    const env = { ...process.env, OPENCODE_CONFIG_DIR: config, HOOKBOX_OPENCODE_PLAN: planFile };
    return await new Promise<number>((resolve) => {
      const child = spawn(bwrap, ["--die-with-parent", "--dev-bind", "/", "/", ...binds, "--", program, ...args], { stdio: "inherit", env });
      child.on("error", (e) => { say(`opencode could not be started: ${e.message}`); resolve(EXIT.hookErrors); });
      child.on("close", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}


