/**
 * What each agent reads from a project's files beyond its hooks that runs a command or widens what it
 * may do, as power items (src/approval/power-item.ts): one table, one row per agent, read by
 * `hookbox trust` (every row) and by each launcher (its own row). An item is one file: its keys
 * with their values, or a file an agent is shown whole (an env file, a rules file, a skill). The
 * launcher shows the agent an approved, unchanged item as it is; anything else without it, named
 * on stderr with the command that approves it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, relative } from "node:path";
import { parse as parseDotenv } from "dotenv";
import { parse as parseToml } from "smol-toml";
import { approvalCommand, type ApprovalStore } from "../approval/store.js";
import { powerItemApproval, showValues, strings, type PowerItem } from "../approval/power-item.js";
import { CLAUDE_CODE } from "../claude/dialect.js";
import { claudePowerItem, powerValues } from "../claude/power.js";
import { readClaudeSettings } from "../claude/settings.js";
import { projectSkillViews } from "../claude/skill-view.js";
import { viewItem } from "../claude/skill-approval.js";
import { GEMINI, GEMINI_POWER_KEYS, readGeminiSettings } from "../agents/gemini.js";
import { projectEnvFiles } from "../agents/gemini-env.js";
import { CODEX, CODEX_POWER_KEYS, codexProjectDirs } from "../agents/codex.js";
import { codexRulesOnlyRestrict } from "../agents/codex-rules.js";
import { discoverOpencode } from "../opencode/discovery.js";
import { SECRET_NAME } from "../policy/policy.js";
import { keyValues } from "../agents/dotted.js";

const quote = (w: string) => (/^[\w./:=@%+-]+$/.test(w) ? w : `'${w.replaceAll("'", `'\\''`)}'`);
const line = (words: unknown[]) => words.filter((w): w is string => typeof w === "string").map(quote).join(" ");
const stringMap = (v: unknown): Record<string, string> | undefined =>
  typeof v === "object" && v !== null ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string")) : undefined;
const entries = (v: unknown): Array<Record<string, unknown>> => (typeof v === "object" && v !== null ? Object.values(v).filter((e): e is Record<string, unknown> => typeof e === "object" && e !== null) : []);
/**
 * An MCP server's (or formatter's, language server's) command line: `command` a string with `args`,
 * or a list; run from its `cwd` when it names one (parsed as a `cd` first, so that its relative
 * paths are pinned where they run, not at the project's root).
 */
const commandOf = (e: Record<string, unknown>, envKey: string) => {
  const words = Array.isArray(e.command) ? e.command : [e.command, ...(Array.isArray(e.args) ? e.args : [])];
  const env = stringMap(e[envKey]);
  const cd = typeof e.cwd === "string" ? `cd ${quote(e.cwd)} && ` : "";
  return typeof words[0] === "string" ? [{ command: cd + line(words), ...(env ? { env } : {}) }] : [];
};

/** An env file's variables as `hookbox trust` lists them: a secret-looking one by its length only (the listing may land in a log; its value is pinned all the same). */
export const showEnv = (vars: Record<string, string>): string[] =>
  Object.entries(vars).map(([k, v]) => (SECRET_NAME.test(k) ? `${k} = (a secret-looking value of ${v.length} characters, not shown)` : `${k} = ${JSON.stringify(v)}`));

/** A file of keys as an item: `values` what it sets, `commands` what they run. */
function keysItem(agent: string, file: string, rel: string, values: Record<string, unknown>, commands: PowerItem["commands"], projectVars: readonly string[]): PowerItem {
  return {
    file, origin: `${agent} (${rel}, settings: ${Object.keys(values).join(", ")})`, noun: `a ${agent} settings file's keys`,
    subject: { agent, settings: values }, commands, mentions: strings(values), projectVars, shows: showValues(values),
  };
}

/** A file shown whole as an item: its content pinned. */
function wholeItem(agent: string, file: string, rel: string, what: string, original: string, rest: Partial<PowerItem>, projectVars: readonly string[]): PowerItem {
  return { file, origin: `${agent} (${rel}, ${what})`, noun: `a ${agent} ${what.split(":")[0]}`, subject: { agent, whole: what.split(":")[0] }, original, projectVars, shows: [], ...rest };
}

export interface PowerRow {
  agent: string;
  /** The project's items of this agent (what cannot be read is said by the agent's settings reader, not here). */
  items(project: string, env?: NodeJS.ProcessEnv): PowerItem[];
}

const rel = (project: string, file: string) => relative(project, file) || file;
const home = (env: NodeJS.ProcessEnv) => env.HOME || homedir();

/** GEMINI_POWER_KEYS but `advanced.ignoreLocalEnv`, which is hookbox gemini's (an env file's approval decides it), never a project's to grant. */
export const GEMINI_ITEM_KEYS = GEMINI_POWER_KEYS.filter((k) => k !== "advanced.ignoreLocalEnv");

/** Gemini CLI 0.61.0: `.gemini/settings.json`'s GEMINI_POWER_KEYS, and each env file on its walk (src/agents/gemini-env.ts). */
const gemini: PowerRow = {
  agent: GEMINI.agent,
  items(project, env = process.env) {
    const items: PowerItem[] = [];
    const settings = readGeminiSettings(join(project, ".gemini", "settings.json"), "project");
    const values = keyValues(settings.settings, GEMINI_ITEM_KEYS);
    if (Object.keys(values).length > 0) {
      const runs = ["tools.discoveryCommand", "tools.callCommand", "tools.shell.pager", "mcp.serverCommand"].flatMap((k) => (typeof values[k] === "string" ? [{ command: values[k] as string }] : []));
      items.push(keysItem(GEMINI.agent, settings.file, ".gemini/settings.json", values, [...runs, ...entries(values.mcpServers).flatMap((e) => commandOf(e, "env"))], GEMINI.projectDirVars));
    }
    for (const f of projectEnvFiles(project, env.GEMINI_CLI_HOME || home(env))) {
      const text = readFileSync(f.file, "utf8");
      const vars = parseDotenv(text);
      items.push(wholeItem(GEMINI.agent, f.file, rel(project, f.file), `env file: ${Object.keys(vars).join(", ") || "no variable"}`, text,
        { commands: [{ command: "true", env: vars }], shows: showEnv(vars) }, GEMINI.projectDirVars));
    }
    return items;
  },
};

/** Codex CLI 0.169.0: each project `.codex/config.toml`'s CODEX_POWER_KEYS, and each rules file that may allow (src/agents/codex-rules.ts). */
const codex: PowerRow = {
  agent: CODEX.agent,
  items(project) {
    const items: PowerItem[] = [];
    for (const dir of codexProjectDirs(project)) {
      const file = join(dir, "config.toml");
      if (existsSync(file)) {
        let config: Record<string, unknown> | undefined;
        try { config = parseToml(readFileSync(file, "utf8")) as Record<string, unknown>; } catch { /* seen empty by hookbox codex */ }
        const values = config ? keyValues(config, CODEX_POWER_KEYS) : {};
        if (Object.keys(values).length > 0) {
          const policy = values.shell_environment_policy as Record<string, unknown> | undefined;
          const setEnv = stringMap(policy?.set);
          const commands = [
            ...entries(values.mcp_servers).flatMap((e) => commandOf(e, "env")),
            ...(typeof values.js_repl_node_path === "string" ? [{ command: quote(values.js_repl_node_path) }] : []),
            ...(setEnv ? [{ command: "true", env: setEnv }] : []),
          ];
          items.push(keysItem(CODEX.agent, file, rel(project, file), values, commands, CODEX.projectDirVars));
        }
      }
      for (const path of rulesFiles(dir)) {
        const text = readFileSync(path, "utf8");
        if (codexRulesOnlyRestrict(text)) continue;
        const literals = [...text.matchAll(/"([^"\\\n]*)"|'([^'\\\n]*)'/g)].map((m) => m[1] ?? m[2]!);
        items.push(wholeItem(CODEX.agent, path, rel(project, path), "rules file: may let commands run without asking", text,
          { mentions: literals, shows: text.split("\n").filter((l) => l.trim() !== "" && !l.trimStart().startsWith("#")).map((l) => JSON.stringify(l)) }, CODEX.projectDirVars));
      }
    }
    return items;
  },
};

/** The top-level `*.rules` files of a `.codex` folder, as Codex loads them. */
export function rulesFiles(dir: string): string[] {
  const folder = join(dir, "rules");
  if (!existsSync(folder)) return [];
  return readdirSync(folder).filter((n) => n.endsWith(".rules")).sort().map((n) => join(folder, n)).filter((p) => statSync(p, { throwIfNoEntry: false })?.isFile());
}

/** opencode 1.18.33: each project config file's PROJECT_POWER_KEYS (src/opencode/discovery.ts). */
const opencode: PowerRow = {
  agent: "opencode",
  items(project, env = process.env) {
    const found = discoverOpencode(project, env);
    const items = found.filtered.filter((f) => f.origin === "project" && f.power).map((f) => {
      const values = f.power!;
      const commands = ["mcp", "formatter", "lsp"].flatMap((k) => entries(values[k]).flatMap((e) => commandOf(e, "environment")));
      return keysItem("opencode", f.path, rel(project, f.path), values, commands, []);
    });
    return items;
  },
};

/** Claude Code 2.1.328: each settings file's power keys (src/claude/power.ts), each skill, command or agent with power parts (src/claude/skill-view.ts). */
const claude: PowerRow = {
  agent: CLAUDE_CODE.agent,
  items(project) {
    const items: PowerItem[] = [];
    for (const name of ["settings.json", "settings.local.json"]) {
      const file = join(project, ".claude", name);
      const settings = readClaudeSettings(file, name === "settings.json" ? "project" : "local");
      const values = powerValues(CLAUDE_CODE, settings.settings);
      if (Object.keys(values).length > 0) items.push(claudePowerItem(file, `.claude/${name}`, values));
    }
    items.push(...projectSkillViews(project).map(viewItem));
    return items;
  },
};

/** Every agent's row, by its launcher. */
export const POWER_ROWS = { claude, gemini, codex, opencode } as const satisfies Record<string, PowerRow>;

/** Each item with whether the store approves it as it is now (`changed`: approved once, not now). */
export function judgeItems(store: ApprovalStore, project: string, items: PowerItem[]): Promise<Array<PowerItem & { approved: boolean; changed: boolean }>> {
  return Promise.all(items.map(async (item) => ({ ...item, ...(await powerItemApproval(store, project, item)) })));
}

/** Whether `item` is approved with exactly `values` (what the view the agent reads was built from, read apart from the item). */
export const approvedAs = (item: { approved: boolean; shows: string[] } | undefined, values: Record<string, unknown>): boolean =>
  item?.approved === true && JSON.stringify(item.shows) === JSON.stringify(showValues(values));

/** How a launcher's refusal of an item ends: the command that approves it. */
export const approveTail = (project: string, changed: boolean): string =>
  changed ? `it changed since you approved it: review it and approve it again with ${approvalCommand(project)}` : `review and approve with ${approvalCommand(project)}`;
