/**
 * What opencode 1.18.33 would load as plugins and custom tools for a project, found by its own
 * rules: the config directories (`~/.config/opencode`, the project's `.opencode` folders from the
 * working folder up to the worktree's root, `~/.opencode`, `$OPENCODE_CONFIG_DIR`), each one's
 * `{plugin,plugins}/*.{ts,js}` and `{tool,tools}/*.{ts,js}`, and the `plugin` specs of the config
 * files (global, `$OPENCODE_CONFIG`, the project's `opencode.json(c)`, each directory's
 * `opencode.json(c)`): in that order, a file path resolved against its config file, and the same
 * plugin kept once, at its last place (opencode's `deduplicatePluginOrigins`). Also what the launcher
 * hides from opencode so that it imports none of them itself: the folders, and each config file that
 * names plugins (given a copy without its `plugin` key), a project's without its power keys too.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";
import { applyEdits, modify, parse, type ParseError } from "jsonc-parser";
import { below } from "../gates/inside.js";
import { gitRoot } from "../policy/paths.js";
import { configPowerEdits, markdownViews } from "./views.js";

export type Origin = "user" | "project";

/** One plugin opencode would import. */
export interface PluginUnit {
  /** The plugin file (absolute), or the npm spec as written. */
  path: string;
  kind: "file" | "npm";
  origin: Origin;
  /** Where it was found, as the person reads it (`.opencode/plugins`, `opencode.json`). */
  from: string;
  /** The options of a `[spec, options]` entry. */
  options?: unknown;
  /** Where hookbox imports it from inside opencode's namespace (a hidden folder's second view), when not `path`. */
  load?: string;
  /** Why it does not run (the launcher's approval check), with its code. */
  refusal?: { code: string; message: string };
}

/**
 * A config file that names plugins (or a project's that sets power keys), its content without them,
 * and whose it is; a project's with power keys also with them (`power`, their values) and its content
 * without its plugins only (`withPower`), shown once they are approved.
 */
export interface FilteredConfig { path: string; content: string; origin: Origin; power?: Record<string, unknown>; withPower?: string }

export interface Discovered {
  plugins: PluginUnit[];
  /** Custom tool files, which opencode would import; hookbox opencode does not load them. */
  tools: Array<{ path: string; origin: Origin }>;
  /** Folders opencode must not see (they hold plugins or tools). */
  hide: string[];
  filtered: FilteredConfig[];
  /** The project's command and agent files with power parts, each with the content opencode is shown (./views.ts). */
  views: Array<{ path: string; content: string }>;
  problems: string[];
}

const CODE = /\.(ts|js)$/;
/**
 * Keys of a project's config file that run a command (a local MCP server, a formatter, a language
 * server), install and import a package or send your credentials elsewhere (a provider's `npm`,
 * `baseURL`), or let a tool run without asking (`permission`): kept from opencode, as plugins are.
 */
export const PROJECT_POWER_KEYS = ["mcp", "formatter", "lsp", "provider", "permission"] as const;

function files(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => CODE.test(e.name) && (e.isFile() || e.isSymbolicLink()))
      .map((e) => join(dir, e.name))
      .sort();
  } catch {
    return [];
  }
}

const isDir = (p: string) => statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;

/** The worktree's root: the nearest folder up from `cwd` holding `.git`, else `cwd`. */
export const worktreeRoot = (cwd: string): string => gitRoot(cwd) ?? cwd;

/** Folders from `cwd` up to `root`, nearest first. */
function upTo(cwd: string, root: string): string[] {
  const out: string[] = [];
  for (let dir = cwd; ; dir = dirname(dir)) {
    out.push(dir);
    if (dir === root || dirname(dir) === dir) return out;
  }
}

export interface DiscoverEnv { HOME?: string; XDG_CONFIG_HOME?: string; OPENCODE_CONFIG?: string; OPENCODE_CONFIG_DIR?: string }

/** opencode's config directories, in its order. */
export function configDirs(cwd: string, env: DiscoverEnv): Array<{ dir: string; origin: Origin }> {
  const home = env.HOME || homedir();
  const root = worktreeRoot(cwd);
  return [
    { dir: join(env.XDG_CONFIG_HOME || join(home, ".config"), "opencode"), origin: "user" as const },
    ...upTo(cwd, root).map((d) => ({ dir: join(d, ".opencode"), origin: "project" as const })),
    { dir: join(home, ".opencode"), origin: "user" as const },
    ...(env.OPENCODE_CONFIG_DIR ? [{ dir: resolve(env.OPENCODE_CONFIG_DIR), origin: "user" as const }] : []),
  ].filter((d) => isDir(d.dir));
}

/** Find what opencode would load for the project at `cwd`. */
export function discoverOpencode(cwd: string, env: DiscoverEnv): Discovered {
  const found: PluginUnit[] = [];
  const out: Discovered = { plugins: [], tools: [], hide: [], filtered: [], views: [], problems: [] };
  const home = env.HOME || homedir();
  const readConfig = (path: string, origin: Origin, base: string) => {
    if (!existsSync(path)) return;
    const text = readFileSync(path, "utf8");
    const errors: ParseError[] = [];
    const config = parse(text, errors, { allowTrailingComma: true }) as Record<string, unknown> | undefined;
    if (errors.length > 0 || !config || typeof config !== "object") {
      out.problems.push(`${path} is not valid JSON(C): hidden from opencode, its plugins not run`);
      out.filtered.push({ path, content: "{}", origin });
      return;
    }
    const power = origin === "project" ? PROJECT_POWER_KEYS.filter((k) => config[k] !== undefined) : [];
    // An agent's permission and a command's inline shell are not approvable: taken out of every view of the file.
    const inner = origin === "project" ? configPowerEdits(config) : { edits: [], named: [] };
    if (inner.named.length > 0) out.problems.push(`the project's ${path} sets ${inner.named.join(", ")}: not loaded (an agent's permission would replace yours for it, a command's shell commands would run as you whenever it is run; hookbox opencode does not approve them)`);
    if (config.plugin === undefined && power.length === 0 && inner.edits.length === 0) return;
    const entries = Array.isArray(config.plugin) ? config.plugin : [];
    for (const entry of entries) {
      const [spec, options] = Array.isArray(entry) ? entry : [entry, undefined];
      if (typeof spec !== "string") continue;
      const local = spec.startsWith("file://") || spec.startsWith(".") || isAbsolute(spec);
      const file = spec.startsWith("file://") ? fileURLToPath(spec) : resolve(base, spec);
      found.push({ path: local ? file : spec, kind: local ? "file" : "npm", origin, from: path, ...(options !== undefined ? { options } : {}) });
    }
    const drop = (keys: string[]) => [...keys.map((key): [string[], unknown] => [[key], undefined]), ...inner.edits].reduce((t, [at, value]) => applyEdits(t, modify(t, at, value, {})), text);
    const plugins = config.plugin === undefined ? [] : ["plugin"];
    out.filtered.push({ path, content: drop([...plugins, ...power]), origin,
      ...(power.length > 0 ? { power: Object.fromEntries(power.map((k) => [k, config[k]])), withPower: drop(plugins) } : {}) });
  };
  const globalDir = join(env.XDG_CONFIG_HOME || join(home, ".config"), "opencode");
  for (const name of ["config.json", "opencode.json", "opencode.jsonc"]) readConfig(join(globalDir, name), "user", globalDir);
  if (env.OPENCODE_CONFIG) readConfig(resolve(env.OPENCODE_CONFIG), "user", dirname(resolve(env.OPENCODE_CONFIG)));
  const root = worktreeRoot(cwd);
  for (const dir of upTo(cwd, root).reverse()) for (const name of ["opencode.jsonc", "opencode.json"]) readConfig(join(dir, name), "project", dir);
  for (const { dir, origin } of configDirs(cwd, env)) {
    if (origin === "project") {
      for (const view of markdownViews(dir)) {
        out.views.push({ path: view.path, content: view.content });
        out.problems.push(`the project's ${view.label} ${view.path} has ${view.power.join(" and ")}: shown to opencode without ${view.power.length > 1 ? "them" : "it"} (${view.why}; hookbox opencode does not approve them)`);
      }
    }
    if (dir !== globalDir) for (const name of ["opencode.jsonc", "opencode.json"]) readConfig(join(dir, name), origin, dir.endsWith(`${sep}.opencode`) ? dirname(dir) : dir);
    for (const sub of ["plugin", "plugins"]) {
      const folder = join(dir, sub);
      if (!isDir(folder)) continue;
      out.hide.push(folder);
      for (const path of files(folder)) found.push({ path, kind: "file", origin, from: folder });
    }
    for (const sub of ["tool", "tools"]) {
      const folder = join(dir, sub);
      if (!isDir(folder)) continue;
      out.hide.push(folder);
      for (const path of files(folder)) out.tools.push({ path, origin });
    }
  }
  // opencode keeps the last occurrence of each plugin (a file by its URL, a package by its name).
  const identity = (u: PluginUnit) => (u.kind === "file" ? pathToFileURL(u.path).href : npmName(u.path));
  const last = new Map<string, number>();
  found.forEach((u, i) => last.set(identity(u), i));
  out.plugins = found.filter((u, i) => last.get(identity(u)) === i);
  return out;
}

/** An npm spec's package name (`@scope/name@1.2` → `@scope/name`). */
export function npmName(spec: string): string {
  const at = spec.indexOf("@", spec.startsWith("@") ? 1 : 0);
  return at > 0 ? spec.slice(0, at) : spec;
}

/** The project's plugin files opencode would load (for `hookbox trust`), with where each was found relative to the project. */
export function opencodeProjectPlugins(project: string): Array<{ path: string; from: string }> {
  const root = worktreeRoot(project);
  return discoverOpencode(project, process.env).plugins
    .filter((p) => p.origin === "project" && p.kind === "file")
    .map((p) => ({ path: p.path, from: below(root, p.from) || p.from }));
}
