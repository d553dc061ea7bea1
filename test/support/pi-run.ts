/**
 * The real agents for end-to-end tests, each at a pinned version installed into a cache outside
 * the repository by its script (the scripts `.ci/run` uses): pi (`scripts/install-pi.sh`, a Node
 * program) and oh-my-pi (`scripts/install-omp.sh`, a Bun program). Each runs headless (`-p`)
 * inside a network namespace with only loopback, against the fake model server of
 * `pi-netns-run.mjs`. No vitest here (bench/extension.ts and scripts/pi-examples.ts use it);
 * test/support/pi-agent.ts adds the test's temporary world.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const PI_VERSION = "0.73.1";
export const OMP_VERSION = "18.2.3";

/** How the tests run one agent. */
export interface Agent {
  /** Which agent: its RPC protocol's differences from pi's are keyed by it (test/support/pi-rpc-session.mjs). */
  name: "pi" | "oh-my-pi";
  /** The runtime that runs `cli` (this Node unless given). */
  program?: string;
  cli: string;
  /** The agent's folder under HOME (its PI_CODING_AGENT_DIR), where its models file is written. */
  agentDir: string;
  /** The models file's name in the agent's folder (JSON; oh-my-pi reads YAML, of which JSON is a part). */
  modelsFile: string;
  /** Flags that keep the agent from loading anything of the user's. */
  quiet: string[];
  /** The agent's own tools, which the scripted session's model does not call (pi's when not given: pi-netns-run.mjs). */
  tools?: string[];
  /** Commands of the agent's own bundled extensions, which the scripted session does not run (pi-rpc-session.mjs). */
  commands?: string[];
}

/** pi (`cli`: its cli.js, run by this Node). */
export const piAgent = (cli: string): Agent => ({
  name: "pi", cli, agentDir: join(".pi", "agent"), modelsFile: "models.json", quiet: ["--no-extensions", "--no-skills", "--no-prompt-templates", "--no-themes"],
});

/** oh-my-pi (`cli`: its dist/cli.js, run by `bun`). */
export const ompAgent = (cli: string, bun: string): Agent => ({
  name: "oh-my-pi", program: bun, cli, agentDir: join(".omp", "agent"), modelsFile: "models.yml", quiet: ["--no-extensions", "--no-skills", "--no-rules", "--no-lsp", "--no-title"],
  tools: ["read", "bash", "edit", "eval", "glob", "grep", "task", "hub", "todo", "web_search", "write"],
  commands: ["autoresearch"],
});

/** Why the e2e tests cannot run here, or undefined: they need root (for `unshare -n`). */
export function agentUnavailable(agent = "pi"): string | undefined {
  if (process.getuid?.() !== 0) return `the ${agent} end-to-end tests need root to make a network namespace (unshare -n)`;
  const probe = spawnSync("unshare", ["-n", "sh", "-c", "ip link set lo up"], { encoding: "utf8" });
  if (probe.status !== 0) return `unshare -n with ip link set lo up failed here: ${(probe.stderr || probe.error?.message || "").trim()}`;
  return undefined;
}
export const piUnavailable = (): string | undefined => agentUnavailable("pi");

/** Runs an install script of scripts/ (a no-op when the cache holds it); returns the folder it printed. */
function install(script: string): string {
  return execFileSync(join(ROOT, "scripts", script), { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim().split("\n").pop()!;
}

/** Installs pi once (a no-op when the cache holds it); returns the folder it is installed in. */
export function installPiDir(): string {
  return install("install-pi.sh");
}

/** Installs pi once; returns its cli.js. */
export function installPi(): string {
  return join(installPiDir(), "node_modules", "@mariozechner", "pi-coding-agent", "dist", "cli.js");
}

/** Installs oh-my-pi once; returns its dist/cli.js. */
export function installOmp(): string {
  return join(install("install-omp.sh"), "node_modules", "@oh-my-pi", "pi-coding-agent", "dist", "cli.js");
}

/** Bun 1.3.14: from scripts/install-bun.sh when the checkout has it, else from the agent cache. */
export function installBun(): string {
  if (existsSync(join(ROOT, "scripts", "install-bun.sh"))) {
    // The script prints the binary, or the folder it unpacked the npm package into.
    const out = install("install-bun.sh");
    const bun = [out, join(out, "bun"), join(out, "bin", "bun"), join(out, "package", "bin", "bun")].find((p) => existsSync(p) && statSync(p).isFile());
    if (!bun) throw new Error(`scripts/install-bun.sh printed ${out}, where no bun binary is`);
    return bun;
  }
  const cached = join(process.env.HOOKBOX_AGENT_CACHE ?? join(homedir(), ".cache", "hookbox-agents"), "bun-1.3.14", "package", "bin", "bun");
  if (!existsSync(cached)) throw new Error(`Bun is not installed: ${cached} is missing`);
  return cached;
}

/**
 * hookbox built as the package ships it (`npm run build`: scripts/build.mjs, run here into another
 * folder) for the current sources: a folder `.cache/<folder>/<newest source mtime>/` (git ignores
 * .cache/) with `dist/` and the package's package.json, what `import { isolate } from
 * "hookbox/extension"` loads once `node_modules/hookbox` links to it. Built into a temporary folder
 * and renamed into place, never removed while in use: a run that started on one build keeps it when
 * a source changes meanwhile, and two processes building at once keep one. Why not the TypeScript
 * source: pi's jiti would transform and evaluate hookbox's ~60 source files at every start (1.1-4.4 s
 * of CPU per start, against 0.2 s built).
 */
export function builtHookbox(folder: string, progress: (line: string) => void = () => {}): string {
  const newest = (dir: string): number => Math.max(0, ...readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile()).map((e) => statSync(join(e.parentPath, e.name)).mtimeMs));
  const inputs = [join(ROOT, "package.json"), ...["build.mjs", "bundle-host.mjs", "bundle-runtime.mjs"].map((f) => join(ROOT, "scripts", f))];
  const key = String(Math.floor(Math.max(newest(join(ROOT, "src")), newest(join(ROOT, "worker")), ...inputs.map((f) => statSync(f).mtimeMs))));
  const out = join(ROOT, ".cache", folder, key);
  if (existsSync(join(out, "dist", "host", "extension.js"))) return out;
  progress(`building hookbox (scripts/build.mjs) into .cache/${folder}/${key}`);
  const building = `${out}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  execFileSync(process.execPath, [join(ROOT, "scripts", "build.mjs"), join(building, "dist")], { stdio: "inherit" });
  cpSync(join(ROOT, "package.json"), join(building, "package.json"));
  try {
    renameSync(building, out);
  } catch {
    rmSync(building, { recursive: true, force: true }); // another process placed the same build first
  }
  return out;
}

export interface PiWorld {
  /** The project the agent runs in (its cwd). */
  project: string;
  /** The fake HOME. */
  home: string;
  /** The agent's folder (PI_CODING_AGENT_DIR): its models file is written there. */
  agentDir: string;
}

/** A fresh project, HOME and agent dir (pi's, or `agent`'s) under `root`. */
export function piWorldIn(root: string, agent?: Agent): PiWorld {
  const world = { project: join(root, "project"), home: join(root, "home"), agentDir: join(root, "home", agent?.agentDir ?? join(".pi", "agent")) };
  for (const dir of Object.values(world)) mkdirSync(dir, { recursive: true });
  return world;
}

/** A folder `build/` in the agent's project with a file in it, for the model's `rm -rf` to aim at. */
export function victim(world: PiWorld): string {
  const dir = join(world.project, "build");
  mkdirSync(dir);
  writeFileSync(join(dir, "keep.txt"), "precious");
  return dir;
}

export interface PiRun {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  /** Every request the fake model received, in order (bodies as JSON). */
  requests: Array<{ url: string; body: { messages?: Array<{ role: string; content: unknown }> } }>;
  /** What a TCP connect to 1.1.1.1:80 from inside the namespace gave (ENETUNREACH: nothing leaves the machine). */
  outside: string;
  /** What the model received as the tool's result ("" if no tool result reached it). */
  toolResult: string;
  /** From the agent's spawn to the model's first request (its start: extensions loaded, session started), ms. */
  firstRequestMs: number;
  /** From the agent's spawn to its exit, ms. */
  elapsedMs: number;
  /** In `rpc` runs: every JSON line pi wrote on stdout (events, responses, UI requests), in order. */
  events: Array<Record<string, any>>;
}

export interface PiRunOptions {
  /** The command the model asks the bash tool to run. */
  command: string;
  /** Another tool the model calls instead of bash (e.g. one an isolated extension registered), with its arguments. */
  tool?: { name: string; arguments: Record<string, unknown> };
  /** Extra command-line arguments for pi (e.g. an extension's flag). */
  args?: string[];
  /** Prompts pi runs after the first, in order (a registered command: `/name`). */
  prompts?: string[];
  /** Extension files passed with -e. */
  extensions?: string[];
  /** Hook files passed with --hook (oh-my-pi). */
  hooks?: string[];
  /** Extra environment for pi. */
  env?: Record<string, string>;
  apiKey?: string;
  timeoutMs?: number;
  /** The model's words before "TOOL RESULT: …" in its answer after the tool ran. */
  reply?: string;
  /**
   * Run pi in `--mode rpc` (its docs/rpc.md) instead of `-p`, driven by the one session driver
   * (test/support/pi-rpc-session.mjs): each step (an RPC command, id `step-<n>`) is written once the
   * agent settled after the one before, dialogs are answered as that driver answers them, stdin is
   * closed after the last. `events` holds what pi wrote on stdout.
   */
  rpc?: { steps: Array<Record<string, unknown>>; quietMs?: number; stepTimeoutMs?: number; askState?: boolean };
}

/** A scripted session of pi in `--mode rpc` (test/support/pi-rpc-session.mjs). */
export interface PiRpcOptions {
  /** The session's prompt: while the conversation's last user message holds it, the model asks for `calls` in turn, then for each extension tool. */
  prompt: string;
  /** Prompts sent after `prompt`, each a step of its own (the model answers "Done."). */
  inputs?: string[];
  calls: Array<{ name: string; arguments: Record<string, unknown> }>;
  /** Extension files passed with -e. */
  extensions: string[];
  /** Hook files passed with --hook (oh-my-pi's legacy hooks). */
  hooks?: string[];
  env?: Record<string, string>;
  /** Quiet time that ends a step (ms), and a step's bound. */
  quietMs?: number;
  stepTimeoutMs?: number;
  /** The whole session's bound (ms). */
  timeoutMs?: number;
}

/** What a scripted rpc session gave. */
export interface PiRpcRun {
  code: number | null;
  signal: string | null;
  /** Every line pi wrote to stdout (parsed), with `{ sent }` and `{ timeout }` markers, in order. */
  transcript: unknown[];
  stderr: string;
  /** The extension commands get_commands listed (each was run as `/name`). */
  commands: string[];
  /** How long each step took to settle, and pi's exit after its input closed (ms). */
  timings: Array<[string, number]>;
  requests: Array<{ url: string; body: unknown }>;
  outside: string;
  elapsedMs: number;
}

/** Runs `pi -p` once in `world`, in a network namespace with only loopback. */
export function runPi(cli: string, world: PiWorld, options: PiRunOptions): PiRun {
  return runAgent(piAgent(cli), world, options);
}

/** Writes the runner's config for one run of `agent -p` (or a session in `--mode rpc`) in `world`; returns how to start it and where its outcome lands. */
function prepareRun(agent: Agent, world: PiWorld, options: PiRunOptions, rpc?: PiRpcOptions): { argv: string[]; out: string; timeoutMs: number } {
  const out = join(world.home, "..", `run-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  const config = join(world.home, "..", "run-config.json");
  // hookbox's own audit log (isolate() appends to it by default: src/observe/audit-log.ts) beside HOME,
  // not in it: the differentials compare HOME's files, and the log is hookbox's, not the module's doing.
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: world.home, PI_CODING_AGENT_DIR: world.agentDir, PI_OFFLINE: "1",
    XDG_STATE_HOME: join(world.home, "..", "state"), NO_COLOR: "1", TERM: "dumb", ...options.env,
  };
  const mode = rpc ? [] : options.rpc ? ["--mode", "rpc"] : ["-p", "Clean up the build folder.", ...(options.prompts ?? [])];
  const args = [...agent.quiet, ...(options.extensions ?? []).flatMap((e) => ["-e", e]), ...(options.hooks ?? []).flatMap((h) => ["--hook", h]), ...(options.args ?? []), ...mode];
  const timeoutMs = options.timeoutMs ?? 60_000;
  const session = rpc ? { session: { prompt: rpc.prompt, inputs: rpc.inputs, quietMs: rpc.quietMs, stepTimeoutMs: rpc.stepTimeoutMs, protocol: agent.name, skipCommands: agent.commands }, calls: rpc.calls } : {};
  writeFileSync(config, JSON.stringify({ cli: agent.cli, program: agent.program, modelsFile: agent.modelsFile, cwd: world.project, agentDir: world.agentDir, env, args, command: options.command, tool: options.tool, apiKey: options.apiKey, timeoutMs, out, reply: options.reply, rpc: options.rpc, ownTools: agent.tools, ...session }));
  const runner = join(ROOT, "test", "support", "pi-netns-run.mjs");
  return { argv: ["-n", "sh", "-c", `ip link set lo up && exec "${process.execPath}" "${runner}" "${config}"`], out, timeoutMs };
}

/** The run's outcome, as the runner wrote it, with what the model received as the tool's result. */
function readRun(out: string): PiRun {
  const result = JSON.parse(readFileSync(out, "utf8")) as Omit<PiRun, "toolResult" | "events">;
  const chats = result.requests.filter((r) => r.url.endsWith("/chat/completions"));
  const last = chats.at(-1)?.body.messages ?? [];
  const tool = [...last].reverse().find((m) => m.role === "tool");
  const toolResult = tool === undefined ? "" : typeof tool.content === "string" ? tool.content : JSON.stringify(tool.content);
  const events = result.stdout.split("\n").flatMap((line) => {
    try { const v = JSON.parse(line) as unknown; return typeof v === "object" && v !== null ? [v as Record<string, any>] : []; } catch { return []; }
  });
  return { ...result, toolResult, events };
}

/** Runs `agent -p` once in `world`, in a network namespace with only loopback. */
export function runAgent(agent: Agent, world: PiWorld, options: PiRunOptions): PiRun {
  const { argv, out, timeoutMs } = prepareRun(agent, world, options);
  const r = spawnSync("unshare", argv, { encoding: "utf8", timeout: timeoutMs + 15_000 });
  if (r.status !== 0) throw new Error(`the namespace runner failed (${r.status}): ${r.stderr}`);
  return readRun(out);
}

/**
 * `runAgent` without blocking this thread, so a test runs its runs side by side (each has its own
 * world and its own network namespace, so the fake model's fixed port is each run's own).
 */
export function runAgentAsync(agent: Agent, world: PiWorld, options: PiRunOptions): Promise<PiRun> {
  return runInNamespace(prepareRun(agent, world, options), readRun);
}

/**
 * One scripted session of pi (`cli`), or of `agent`, in `--mode rpc` in `world`, in a network
 * namespace with only loopback against the fake model (test/support/pi-rpc-session.mjs drives it),
 * without blocking.
 */
export function runPiRpc(cli: string, world: PiWorld, rpc: PiRpcOptions, agent: Agent = piAgent(cli)): Promise<PiRpcRun> {
  const prepared = prepareRun(agent, world, { command: "", extensions: rpc.extensions, hooks: rpc.hooks, env: rpc.env, timeoutMs: rpc.timeoutMs ?? 120_000 }, rpc);
  return runInNamespace(prepared, (out) => JSON.parse(readFileSync(out, "utf8")) as PiRpcRun);
}

function runInNamespace<T>({ argv, out, timeoutMs }: { argv: string[]; out: string; timeoutMs: number }, read: (out: string) => T): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn("unshare", argv, { stdio: ["ignore", "ignore", "pipe"], timeout: timeoutMs + 15_000 });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => { stderr += d; });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`the namespace runner failed (${code}): ${stderr}`));
      else resolve(read(out));
    });
  });
}

// pi's modules are imported by path from the cache, untyped.
type Any = any;
export interface Pi {
  /** pi's dist folder (its types: core/extensions/types.d.ts). */
  dist: string;
  loader: Any; Runner: Any; SessionManager: Any; wrapRegisteredTool: Any;
  /** pi's theme module (its `theme`, and `initTheme`, which pi's main calls before any extension runs). */
  theme: Any;
  initTheme: (name?: string) => void;
}

/** pi's loader, runner, session manager, tool wrapper and theme, from the installed package (`installPiDir()`). */
export async function importPi(installDir: string): Promise<Pi> {
  const dist = join(installDir, "node_modules", "@mariozechner", "pi-coding-agent", "dist");
  const load = (rel: string) => import(pathToFileURL(join(dist, rel)).href);
  const theme = await load("modes/interactive/theme/theme.js");
  return {
    dist,
    loader: await load("core/extensions/loader.js"),
    Runner: (await load("core/extensions/runner.js")).ExtensionRunner,
    SessionManager: (await load("core/session-manager.js")).SessionManager,
    wrapRegisteredTool: (await load("core/extensions/wrapper.js")).wrapRegisteredTool,
    theme,
    initTheme: theme.initTheme,
  };
}
