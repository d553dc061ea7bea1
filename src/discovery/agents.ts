/**
 * What a coding agent would load by itself, found with the agent's own rules: for pi, its own
 * package manager (`DefaultPackageManager.resolve()`, the code pi runs at start-up: the global and
 * project `extensions/` folders, `settings.json` `extensions` and `packages` with their
 * include/exclude patterns), imported from the pi that runs (or the `pi` on PATH), so the list
 * cannot drift from pi's. Nothing is loaded here, and nothing is installed (a package pi would
 * install is skipped: pi installed it before loading extensions, or it is not there to run).
 *
 * Each module keeps pi's scope: `user` (the agent folder's and the global settings') or `project`
 * (the project's `.pi/`, whatever path its settings name: the project chose it).
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ancestors, insideResolved } from "../policy/paths.js";

export const PI_PACKAGE = "@mariozechner/pi-coding-agent";
export const OMP_PACKAGE = "@oh-my-pi/pi-coding-agent";

/** One module the agent would load. */
export interface AgentModule {
  /** Its absolute path, as the agent would load it. */
  path: string;
  /** Whose it is: the user's (`user`) or the project's (`project`). */
  scope: "user" | "project";
  /** Where the agent found it: `auto` (a folder), `local` (a settings path) or the package source. */
  source: string;
}

export interface AgentDiscovery {
  modules: AgentModule[];
  /** The agent's global folder (pi: `~/.pi/agent`, or `PI_CODING_AGENT_DIR`). */
  agentDir: string;
  /** The pi package whose rules were used, or undefined when none was found (folders only, see `warnings`). */
  piRoot?: string;
  warnings: string[];
}

export interface PiDiscoveryOptions {
  /** The pi package folder (`…/node_modules/@mariozechner/pi-coding-agent`). Default: the running pi, else the `pi` on PATH. */
  piRoot?: string;
  /** The agent folder. Default: pi's own (`PI_CODING_AGENT_DIR`, else `~/.pi/agent`). */
  agentDir?: string;
}

/** The folder of package `name` above `file` (a real path), if there is one. */
function packageAbove(file: string, name = PI_PACKAGE): string | undefined {
  for (const dir of ancestors(dirname(file))) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string };
      if (pkg.name === name) return dir;
    } catch { /* no package.json here */ }
  }
  return undefined;
}

/** Which agent's own script runs this process (`argv[1]`): `pi`, `omp`, or undefined (an embedder, a test). */
export function runningAgent(argv: readonly string[] = process.argv): "pi" | "omp" | undefined {
  if (!argv[1]) return undefined;
  let real: string;
  try {
    real = realpathSync(argv[1]);
  } catch {
    return undefined;
  }
  if (packageAbove(real, PI_PACKAGE)) return "pi";
  if (packageAbove(real, OMP_PACKAGE)) return "omp";
  return undefined;
}

/** The pi package of the running process (its main script), else of the `pi` on PATH. */
export function findPi(env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = process.argv): string | undefined {
  const candidates = [argv[1], ...(env.PATH ?? "").split(delimiter).filter(Boolean).map((d) => join(d, "pi"))];
  for (const candidate of candidates) {
    if (!candidate) continue;
    try {
      const found = packageAbove(realpathSync(candidate));
      if (found) return found;
    } catch { /* not there */ }
  }
  return undefined;
}

/** Whether the running agent was told not to discover extensions itself (pi and oh-my-pi spell it alike). */
export function piDiscoveryOff(argv: readonly string[] = process.argv): boolean {
  return argv.includes("--no-extensions") || argv.includes("-ne");
}

interface PiModule {
  DefaultPackageManager: new (o: { cwd: string; agentDir: string; settingsManager: unknown }) => {
    resolve(onMissing?: (source: string) => Promise<"skip" | "error" | "install">): Promise<{ extensions: Array<{ path: string; enabled: boolean; metadata: { scope: string; source: string } }> }>;
  };
  SettingsManager: { create(cwd: string, agentDir: string): unknown };
  getAgentDir(): string;
}

/** What pi would load by itself in `cwd`, by pi's own package manager (or, without pi, its folders). */
export async function piModules(cwd: string, options: PiDiscoveryOptions = {}): Promise<AgentDiscovery> {
  const piRoot = options.piRoot ?? findPi();
  if (piRoot === undefined) return piFolders(cwd, options.agentDir ?? defaultPiAgentDir());
  const pi = await import(pathToFileURL(join(piRoot, "dist", "index.js")).href) as PiModule;
  const agentDir = options.agentDir ?? pi.getAgentDir();
  const settingsManager = pi.SettingsManager.create(cwd, agentDir);
  const manager = new pi.DefaultPackageManager({ cwd, agentDir, settingsManager });
  const resolved = await manager.resolve(async () => "skip");
  const modules = resolved.extensions.filter((e) => e.enabled).map((e): AgentModule => ({
    path: resolve(e.path),
    scope: e.metadata.scope === "project" ? "project" : "user",
    source: e.metadata.source,
  }));
  return { modules, agentDir, piRoot, warnings: [] };
}

function defaultPiAgentDir(): string {
  const env = process.env.PI_CODING_AGENT_DIR;
  if (env) return env.startsWith("~") ? join(homedir(), env.slice(1)) : env;
  return join(homedir(), ".pi", "agent");
}

/**
 * Without pi's code: its two extension folders by its folder rule (`*.ts`/`*.js`, `<dir>/index.ts`
 * or `index.js`, a `package.json` `pi.extensions`); settings are not read, and a settings file that
 * lists extensions or packages is named in `warnings`.
 */
function piFolders(cwd: string, agentDir: string): AgentDiscovery {
  const warnings: string[] = [];
  const modules: AgentModule[] = [];
  const folders = [{ dir: join(cwd, ".pi"), scope: "project" as const }, { dir: agentDir, scope: "user" as const }];
  for (const { dir, scope } of folders) {
    for (const path of extensionsIn(join(dir, "extensions"))) modules.push({ path, scope, source: "auto" });
    try {
      const settings = JSON.parse(readFileSync(join(dir, "settings.json"), "utf8")) as Record<string, unknown>;
      if (settings.extensions || settings.packages) warnings.push(`${join(dir, "settings.json")} lists extensions or packages, which only pi's own code resolves: pi was not found (pass piRoot)`);
    } catch { /* no settings */ }
  }
  return { modules, agentDir, warnings };
}

/** pi's folder rule for one `extensions/` folder (oh-my-pi's `.omp/extensions/` follows the same). */
export function extensionsIn(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if ((entry.isFile() || entry.isSymbolicLink()) && /\.(ts|js)$/.test(entry.name)) { out.push(path); continue; }
    if (!(entry.isDirectory() || entry.isSymbolicLink())) continue;
    try {
      const pkg = JSON.parse(readFileSync(join(path, "package.json"), "utf8")) as { pi?: { extensions?: string[] } };
      const declared = (pkg.pi?.extensions ?? []).map((p) => resolve(path, p)).filter((p) => existsSync(p));
      if (declared.length > 0) { out.push(...declared); continue; }
    } catch { /* no manifest */ }
    for (const index of ["index.ts", "index.js"]) {
      const file = join(path, index);
      if (existsSync(file) && statSync(file).isFile()) { out.push(file); break; }
    }
  }
  return out;
}

/** The members of oh-my-pi's own module (`pi.pi` in its ExtensionAPI) this reads. */
export interface OmpModule {
  discoverExtensionPaths(configuredPaths: string[], cwd: string): Promise<string[]>;
  getAgentDir(): string;
}

/**
 * What oh-my-pi would load by itself in `cwd`, by its own `discoverExtensionPaths` (its capability
 * providers: `.omp/extensions`, the hook folders, plugins, settings). Its answer has no scope, so
 * a module is the user's only when its real path lies in the agent folder or a home-level agent
 * folder (`~/.omp`, `~/.pi`, `~/.claude`, `~/.codex`, `~/.gemini`, `~/.config`) and not under the
 * project; everything else counts as the project's (sandboxed, approved first).
 */
export async function ompModules(omp: OmpModule, cwd: string, home: string = homedir()): Promise<AgentDiscovery> {
  const agentDir = omp.getAgentDir();
  const userRoots = [agentDir, ...[".omp", ".pi", ".claude", ".codex", ".gemini", ".config"].map((d) => join(home, d))];
  const paths = await omp.discoverExtensionPaths([], cwd);
  const modules = paths.map((p): AgentModule => {
    const path = resolve(cwd, p);
    const user = !insideResolved(cwd, path) && userRoots.some((root) => insideResolved(root, path));
    return { path, scope: user ? "user" : "project", source: "omp" };
  });
  return { modules, agentDir, warnings: [] };
}
