/**
 * `hookbox codex [codex's arguments]`: starts the `codex` on PATH (Codex CLI 0.169.0; another version
 * is refused by name) in a private mount namespace (bubblewrap: the filesystem bound as it is, but
 * /etc rebuilt from the host's entries) where /etc/codex/requirements.toml is a generated one: the
 * admin's, if any, plus `allow_managed_hooks_only = true` (Codex then runs no hook of the user's,
 * the project's, a plugin's or a `-c` flag's) and, as managed hooks, for every event any of the
 * user's or the project's hooks handles, one routing hook: `hookbox codex-hook <plan>`, which runs
 * them by Codex's matching (src/agents/router.ts, the Codex row of src/agents/codex.ts).
 */
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, relative } from "node:path";
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { sandboxAvailability } from "../isolation/bubblewrap/bwrap.js";
import { CODEX, CODEX_POWER_KEYS, codexProjectDirs, readCodexLayer } from "../agents/codex.js";
import { codexRulesOnlyRestrict } from "../agents/codex-rules.js";
import { codexSkillMetadata, skillMetadataView, skillOf } from "../agents/codex-skills.js";
import { viewTarget } from "../agents/view-target.js";
import { routerTimeoutMs } from "../agents/routing-hook.js";
import { otlpEnv } from "../observe/otlp.js";
import type { AgentPlan } from "../agents/dialect.js";
import { routingHook } from "./agent-hook.js";
import { approvedAs, approveTail, judgeItems, POWER_ROWS, rulesFiles } from "./power-items.js";
import { keyValues } from "../agents/dotted.js";
import { ApprovalStore } from "../approval/store.js";
import type { PowerItem } from "../approval/power-item.js";
import { agentProgram, announcePlan, runBehindRouter } from "./command-launch.js";
import type { Output } from "./output.js";
import { EXIT, UsageError } from "./usage-error.js";
import { DEFAULTS } from "../../worker/wire.mjs";

export const CODEX_HELP = `Usage: hookbox codex [codex's arguments…]

Start Codex CLI (the \`codex\` on PATH, version ${CODEX.versions.join(", ")}) with its hooks behind hookbox's
wall: in a private mount namespace it reads a generated /etc/codex/requirements.toml that allows
managed hooks only (so it runs none of yours or the project's) and adds one managed hook per event
that runs \`hookbox codex-hook\`. That runs the hooks of $CODEX_HOME (hooks.json, config.toml) and of
the project's .codex/ folders with Codex's matching: yours as you, without secret-looking variables;
the project's only as approved by \`hookbox trust <project>\`, in the bubblewrap sandbox (no network,
the project read-only, none of your files or variables), and they may block or deny, never rewrite a
tool call or add context (effect_refused). On PreToolUse a hook that fails, times out, prints
malformed output or is refused blocks the call (fail closed).

Every argument goes to codex unchanged. Alias: alias codex='npx hookbox codex'
`;

const REQUIREMENTS = "/etc/codex/requirements.toml";

/** Run `hookbox codex`; resolves with codex's exit code. */
export async function codex(args: string[], out: Output, _signal?: AbortSignal, err?: Output): Promise<number> {
  if (args[0] === "--help" && args.length === 1) { out.write(CODEX_HELP); return EXIT.ok; }
  const say = (line: string) => err?.write(`hookbox codex: ${line}\n`);
  const program = agentProgram(CODEX, say);
  const sandbox = sandboxAvailability();
  if (!sandbox.ok) throw new UsageError(`hookbox codex gives Codex CLI its requirements in a private mount namespace, which cannot be built here: ${sandbox.reason}`);
  const project = process.cwd();
  const layers = [readCodexLayer(process.env.CODEX_HOME || join(process.env.HOME || homedir(), ".codex"), "user"), ...codexProjectDirs(project).map((d) => readCodexLayer(d, "project"))];
  for (const l of layers) for (const problem of l.problems) say(problem);
  const plan: AgentPlan = { project, hooks: layers.flatMap((l) => l.hooks), refused: layers.flatMap((l) => l.refused), maxOutputBytes: DEFAULTS.shellOutputBytes, otel: otlpEnv() };
  await announcePlan(CODEX, plan, say);
  const items = await judgeItems(new ApprovalStore(), project, POWER_ROWS.codex.items(project));
  const configs = [...projectConfigViews(project, say, items), ...projectRulesViews(project, say, items), ...projectSkillViews(project, say)];
  return runBehindRouter(CODEX, plan, (dir, command) => {
    const requirements = join(dir, "requirements.toml");
    const admin = existsSync(REQUIREMENTS) ? (parseToml(readFileSync(REQUIREMENTS, "utf8")) as Record<string, unknown>) : {};
    writeFileSync(requirements, stringifyToml(generatedRequirements(admin, plan, command)), { mode: 0o644 });
    const views = configs.map((c, i) => {
      const path = join(dir, `project-view-${i}`);
      writeFileSync(path, c.content, { mode: 0o644 });
      return [path, c.target] as const;
    });
    return { requirements, views };
  }, ({ requirements, views }) => [...etcWithRequirements(requirements), ...views.flatMap(([from, to]) => ["--ro-bind", from, to])], program, args, say);
}

/** Power items as judged (src/cli/power-items.ts). */
type Judged = Array<PowerItem & { approved: boolean; changed: boolean }>;

/**
 * The project's `.codex/config.toml` files (each `.codex` folder Codex reads, src/agents/codex.ts)
 * that set a power key (CODEX_POWER_KEYS), each with its view without them, named on stderr, unless
 * approved as they are (`items`: then the view is the file as read); one that does not parse is
 * seen empty (Codex's parser and hookbox's could read it differently). One that links out of its
 * folder is refused at start, as hookbox claude and gemini refuse theirs.
 */
export function projectConfigViews(project: string, say: (line: string) => void, items: Judged = []): Array<{ target: string; content: string }> {
  const out: Array<{ target: string; content: string }> = [];
  for (const dir of codexProjectDirs(project)) {
    const file = join(dir, "config.toml");
    if (!existsSync(file)) continue;
    const target = projectFile(dir, file, "project config file");
    const name = relative(project, file) || file;
    let config: Record<string, unknown>;
    const text = readFileSync(target, "utf8");
    try {
      config = parseToml(text) as Record<string, unknown>;
    } catch (e) {
      say(`the project's ${name} is not TOML hookbox reads (${(e as Error).message.split("\n")[0]}): Codex CLI sees it empty`);
      out.push({ target, content: "" });
      continue;
    }
    const power = CODEX_POWER_KEYS.filter((k) => Object.hasOwn(config, k));
    if (power.length === 0) continue;
    const item = items.find((i) => i.file === file);
    if (approvedAs(item, keyValues(config, CODEX_POWER_KEYS))) {
      say(`the project's ${name} sets ${power.join(", ")}: loaded as you approved them`);
      out.push({ target, content: text });
      continue;
    }
    say(`the project's ${name} sets ${power.join(", ")}: not loaded (they start a program, set what every command gets, or let commands run without asking or outside Codex's sandbox); ${approveTail(project, item?.changed ?? false)}`);
    out.push({ target, content: stringifyToml(Object.fromEntries(Object.entries(config).filter(([k]) => !(CODEX_POWER_KEYS as readonly string[]).includes(k)))) });
  }
  return out;
}

/**
 * The project's exec policy rules files (`rules/*.rules` of each `.codex` folder Codex reads) that
 * may let a command run without asking (src/agents/codex-rules.ts), each seen empty, named on
 * stderr, unless approved as it is (`items`: then seen as the content approved); those that only
 * forbid or prompt are left as they are.
 */
export function projectRulesViews(project: string, say: (line: string) => void, items: Judged = []): Array<{ target: string; content: string }> {
  const out: Array<{ target: string; content: string }> = [];
  for (const dir of codexProjectDirs(project)) {
    for (const file of rulesFiles(dir)) {
      const target = projectFile(dir, file, "project rules file");
      if (codexRulesOnlyRestrict(readFileSync(target, "utf8"))) continue;
      const item = items.find((i) => i.file === file);
      if (item?.approved) {
        say(`the project's ${relative(project, file)} may let commands run without asking: loaded as you approved it`);
        out.push({ target, content: item.original! });
        continue;
      }
      say(`the project's ${relative(project, file)} may let commands run without asking (an allow rule, or rules hookbox does not read as forbid or prompt only): not loaded; ${approveTail(project, item?.changed ?? false)}`);
      out.push({ target, content: "" });
    }
  }
  return out;
}

/**
 * The project's skills' metadata files (`agents/openai.yaml`, src/agents/codex-skills.ts) that hold
 * more than how the skill looks (its `dependencies`: MCP servers Codex installs into your config),
 * each seen with only that, named on stderr.
 */
export function projectSkillViews(project: string, say: (line: string) => void): Array<{ target: string; content: string }> {
  const out: Array<{ target: string; content: string }> = [];
  const dirs = codexProjectDirs(project).map(dirname);
  for (const file of codexSkillMetadata(dirs)) {
    // Within the repository's root (the first folder Codex reads), as a rules file is within its folder's.
    const target = viewTarget(CODEX.launcher, dirs[0]!, file, "project skill file");
    const view = skillMetadataView(readFileSync(target, "utf8"));
    if (!view.changed) continue;
    say(`the project's skill ${relative(project, skillOf(file)) || "."} declares more than its interface and policy in agents/openai.yaml (its dependencies: MCP servers Codex would write into your ~/.codex/config.toml and start when the skill is mentioned): seen without them, and hookbox codex does not approve them`);
    out.push({ target, content: view.content });
  }
  return out;
}

/** The real path of a file of the project's `.codex` folder `dir`; one linking out of the project is refused at start. */
function projectFile(dir: string, file: string, what: string): string {
  return viewTarget(CODEX.launcher, dirname(dir), file, what);
}

/** The requirements Codex reads: the admin's, managed hooks only, and the routing hooks (running `command`) after the admin's own. */
export function generatedRequirements(admin: Record<string, unknown>, plan: AgentPlan, command: string): Record<string, unknown> {
  const events = CODEX.events.filter((e) => plan.hooks.some((h) => h.event === e) || plan.refused.some((r) => r.event === e));
  const router = { type: "command", command, timeout: Math.ceil(routerTimeoutMs(plan.hooks.map((h) => h.timeoutMs)) / 1000) };
  const hooks: Record<string, unknown> = { ...(admin.hooks as Record<string, unknown> | undefined) };
  for (const e of events) hooks[e] = [...(Array.isArray(hooks[e]) ? (hooks[e] as unknown[]) : []), { hooks: [router] }];
  return { ...admin, allow_managed_hooks_only: true, hooks };
}

/**
 * bubblewrap's arguments for the host's filesystem as it is, but /etc a tmpfs holding every host
 * entry bound back (bubblewrap binds from the host's tree, not the new one), /etc/codex's entries
 * but requirements.toml, and the generated requirements: no file of the host is written.
 */
function etcWithRequirements(requirements: string): string[] {
  const args = ["--dev-bind", "/", "/", "--tmpfs", "/etc"];
  const bindAll = (folder: string, skip: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name === skip) continue;
      const path = join(folder, entry.name);
      args.push(...(entry.isSymbolicLink() ? ["--symlink", readlinkSync(path), path] : ["--dev-bind", path, path]));
    }
  };
  bindAll("/etc", "codex");
  args.push("--dir", "/etc/codex");
  if (existsSync("/etc/codex")) bindAll("/etc/codex", "requirements.toml");
  args.push("--ro-bind", requirements, REQUIREMENTS);
  return args;
}

/** `hookbox codex-hook <plan> <sha256>`: the routing hook's entry (src/cli/agent-hook.ts). */
export const codexHook = routingHook(CODEX);
