/**
 * `hookbox gemini [gemini's arguments]`: starts the `gemini` on PATH (Gemini CLI 0.61.0; another
 * version is refused by name) in a private mount namespace (bubblewrap: the whole filesystem bound
 * as it is) where the user's ~/.gemini/settings.json and the project's .gemini/settings.json are
 * seen filtered: no hooks (and no hooksConfig from the project), and in the user's view, for every
 * event any of their hooks handles, one routing hook: `hookbox gemini-hook <plan>`, which runs
 * them by Gemini's matching (src/agents/router.ts, the Gemini row of src/agents/gemini.ts).
 * Why not GEMINI_CLI_SYSTEM_SETTINGS_PATH: Gemini CLI 0.61.0 skips (with a warning, and runs on) a
 * system settings file that is not owned by root or sits in a folder others may write, and hook
 * lists concatenate across layers, so a layer above cannot take the project's hooks out.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { sandboxAvailability } from "../isolation/bubblewrap/bwrap.js";
import { homedir } from "node:os";
import { dirname, join, relative } from "node:path";
import { GEMINI, GEMINI_POWER_KEYS, readGeminiSettings, type GeminiSettings } from "../agents/gemini.js";
import { projectEnvFiles } from "../agents/gemini-env.js";
import { viewTarget } from "../agents/view-target.js";
import { routerTimeoutMs } from "../agents/routing-hook.js";
import { otlpEnv } from "../observe/otlp.js";
import type { AgentPlan } from "../agents/dialect.js";
import { routingHook } from "./agent-hook.js";
import { approvedAs, approveTail, GEMINI_ITEM_KEYS, judgeItems, POWER_ROWS } from "./power-items.js";
import { keyValues, valueAt, withoutKeys } from "../agents/dotted.js";
import { ApprovalStore } from "../approval/store.js";
import { agentProgram, announcePlan, runBehindRouter } from "./command-launch.js";
import type { Output } from "./output.js";
import { EXIT, UsageError } from "./usage-error.js";
import { DEFAULTS } from "../../worker/wire.mjs";

export const GEMINI_HELP = `Usage: hookbox gemini [gemini's arguments…]

Start Gemini CLI (the \`gemini\` on PATH, version ${GEMINI.versions.join(", ")}) with its hooks behind
hookbox's wall: in a private mount namespace it sees your ~/.gemini/settings.json and the project's
.gemini/settings.json without their hooks, and yours with one hook per event that runs
\`hookbox gemini-hook\`. That runs those hooks with Gemini CLI's matching: yours
as you, without secret-looking variables; the project's only as approved by \`hookbox trust <project>\`,
in the bubblewrap sandbox (no network, the project read-only, none of your files or variables), and
they may block, deny or stop, never rewrite a tool call, the model's request or answer, or add context
(effect_refused). On BeforeTool a hook that fails, times out, prints malformed output or is refused
blocks the call (fail closed).

Every argument goes to gemini unchanged. Alias: alias gemini='npx hookbox gemini'
`;


/** Run `hookbox gemini`; resolves with gemini's exit code. */
export async function gemini(args: string[], out: Output, _signal?: AbortSignal, err?: Output): Promise<number> {
  if (args[0] === "--help" && args.length === 1) { out.write(GEMINI_HELP); return EXIT.ok; }
  const say = (line: string) => err?.write(`hookbox gemini: ${line}\n`);
  const program = agentProgram(GEMINI, say);
  const sandbox = sandboxAvailability();
  if (!sandbox.ok) throw new UsageError(`hookbox gemini shows Gemini CLI its settings without their hooks in a private mount namespace, which cannot be built here: ${sandbox.reason}`);
  const project = process.cwd();
  const home = process.env.GEMINI_CLI_HOME || process.env.HOME || homedir();
  const userFile = join(home, ".gemini", "settings.json");
  if (!existsSync(userFile)) {
    // The routing hooks live in the user's view, which needs a file to be seen over.
    mkdirSync(dirname(userFile), { recursive: true, mode: 0o700 });
    writeFileSync(userFile, "{}\n", { mode: 0o600, flag: "wx" });
  }
  const user = readGeminiSettings(userFile, "user");
  const workspace = readGeminiSettings(join(project, ".gemini", "settings.json"), "project");
  // Where the project's view is bound; a link out of the project is refused (its view would cover yours, which holds the routing hooks).
  const target = existsSync(workspace.file) ? viewTarget(GEMINI.launcher, project, workspace.file) : undefined;
  const envFiles = projectEnvFiles(project, home);
  for (const p of [user, workspace]) for (const problem of p.problems) say(problem);
  // The project's power keys and env files, each seen only as approved (src/cli/power-items.ts).
  const items = await judgeItems(new ApprovalStore(), project, POWER_ROWS.gemini.items(project, { ...process.env, GEMINI_CLI_HOME: home }));
  const itemOf = (file: string) => items.find((i) => i.file === file);
  const settingsItem = itemOf(workspace.file);
  const power = powerKeysOf(workspace.settings).filter((k) => k !== IGNORE_LOCAL_ENV);
  const powerApproved = power.length > 0 && approvedAs(settingsItem, keyValues(workspace.settings, GEMINI_ITEM_KEYS));
  if (powerApproved) say(`the project's .gemini/settings.json sets ${power.join(", ")}: loaded as you approved them`);
  if (power.length > 0 && !powerApproved) say(`the project's .gemini/settings.json sets ${power.join(", ")}: not loaded (they run a command or skip a confirmation); ${approveTail(project, settingsItem?.changed ?? false)}`);
  if (valueAt(workspace.settings, IGNORE_LOCAL_ENV) !== undefined) say(`the project's .gemini/settings.json sets ${IGNORE_LOCAL_ENV}: not loaded (whether a project env file is loaded is that file's approval)`);
  // Gemini CLI loads the first env file of its walk only: that one, approved as it is, is loaded whole.
  const first = envFiles[0] && itemOf(envFiles[0].file)?.approved ? envFiles[0] : undefined;
  // A .gemini/.env is seen through a view: empty, or the content approved (the bytes hashed, not the file as it may be by then).
  const envViews = envFiles.filter((f) => f.kind === "gemini").map((f) => ({ path: viewTarget(GEMINI.launcher, f.folder, f.file, "project env file"), content: f === first ? itemOf(f.file)!.original! : "" }));
  for (const f of envFiles) {
    const name = f.folder === project ? relative(project, f.file) : f.file;
    const item = itemOf(f.file);
    if (f === first) { say(`the project's ${name} is loaded into Gemini CLI's environment as you approved it`); continue; }
    if (item?.approved) { say(`the project's ${name} is approved, but Gemini CLI loads only the first env file of its walk (${envFiles[0]!.file}), which is not: it is not loaded`); continue; }
    say(f.kind === "gemini"
      ? `the project's ${name} is not loaded (Gemini CLI would put its variables into the environment of every command it runs: BASH_ENV, NODE_OPTIONS, PATH run code), and is seen empty; ${approveTail(project, item?.changed ?? false)} (or set a variable you have read and want in your own environment: Gemini CLI keeps a variable already set)`
      : `the project's ${name} is not loaded into Gemini CLI's environment (its variables would reach every command it runs: BASH_ENV, NODE_OPTIONS, PATH run code); the file stays readable; ${approveTail(project, item?.changed ?? false)} (or set a variable you have read and want in your own environment)`);
  }
  const userConfig = hooksConfig(user);
  // The project's own list may only take hooks out (its `enabled` is not read: it could switch off yours).
  const disabled = new Set([...(userConfig.disabled ?? []), ...(hooksConfig(workspace).disabled ?? [])]);
  const ours = [user, workspace];
  const plan: AgentPlan = {
    project,
    // Hooks on or off, and which are off, is the user's choice: a project that switched them off would switch off your guards.
    hooks: userConfig.enabled === false ? [] : ours.flatMap((p) => p.hooks).filter((h) => !disabled.has(h.name)),
    refused: ours.flatMap((p) => p.refused),
    maxOutputBytes: DEFAULTS.shellOutputBytes, otel: otlpEnv(),
  };
  await announcePlan(GEMINI, plan, say);
  return runBehindRouter(GEMINI, plan, (dir, command) => {
    const views: Array<[string, string]> = [];
    const view = (file: string, settings: Record<string, unknown> | string, name: string) => {
      const path = join(dir, name);
      writeFileSync(path, typeof settings === "string" ? settings : JSON.stringify(settings, null, 2), { mode: 0o600 });
      views.push([path, file]);
    };
    // First, so that the settings views are bound last and win.
    envViews.forEach((f, i) => view(f.path, f.content, `env-${i}`));
    view(userFile, userView(user, plan, command, first?.kind !== "dotenv"), "user-settings.json");
    if (target) view(target, projectView(workspace, powerApproved), "project-settings.json");
    return views;
  }, (views) => ["--dev-bind", "/", "/", ...views.flatMap(([from, to]) => ["--ro-bind", from, to])], program, args, say);
}

const hooksConfig = (p: GeminiSettings) => (p.settings.hooksConfig ?? {}) as { enabled?: boolean; disabled?: string[] };

const IGNORE_LOCAL_ENV = "advanced.ignoreLocalEnv";

/**
 * The user's settings as Gemini CLI sees them: without their hooks, with one routing hook (running
 * `command`) per event the user's and the project's hooks handle, and, unless the `.env` Gemini
 * would load is approved (`ignoreLocalEnv` false), `advanced.ignoreLocalEnv`, so that no `.env` but
 * your home folder's enters Gemini's environment (src/agents/gemini-env.ts).
 */
export function userView(user: GeminiSettings, plan: AgentPlan, command: string, ignoreLocalEnv = true): Record<string, unknown> {
  const { hooks: _hooks, ...rest } = user.settings;
  const events = GEMINI.events.filter((e) => plan.hooks.some((h) => h.event === e) || plan.refused.some((r) => r.event === e));
  const router = { type: "command", name: "hookbox", command, timeout: routerTimeoutMs(plan.hooks.map((h) => h.timeoutMs)) };
  const advanced = typeof rest.advanced === "object" && rest.advanced !== null ? rest.advanced : {};
  return { ...rest, ...(ignoreLocalEnv ? { advanced: { ...advanced, ignoreLocalEnv: true } } : {}), hooks: Object.fromEntries(events.map((e) => [e, [{ hooks: [router] }]])) };
}

/**
 * The project's settings as Gemini CLI sees them: without hooks and hooksConfig (a project could
 * switch off or disable the routing hook), without `advanced.ignoreLocalEnv` (an env file's own
 * approval decides), and unless `approved` (`hookbox trust`), without its power keys
 * (GEMINI_POWER_KEYS: what runs a command or skips a confirmation).
 */
export function projectView(workspace: GeminiSettings, approved = false): Record<string, unknown> {
  const { hooks: _hooks, hooksConfig: _config, ...rest } = workspace.settings;
  return withoutKeys(rest, powerKeysOf(rest).filter((k) => !approved || k === IGNORE_LOCAL_ENV));
}

/** The power keys `settings` sets (dotted). */
export function powerKeysOf(settings: Record<string, unknown>): string[] {
  return GEMINI_POWER_KEYS.filter((key) => valueAt(settings, key) !== undefined);
}

/** `hookbox gemini-hook <plan> <sha256>`: the routing hook's entry (src/cli/agent-hook.ts). */
export const geminiHook = routingHook(GEMINI);
