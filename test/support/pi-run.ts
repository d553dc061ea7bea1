/**
 * The real agent for end-to-end tests and benches: pi at a pinned version, installed into a cache
 * outside the repository by `scripts/install-pi.sh` (the script `.ci/run` uses), run headless
 * (`-p`) inside a network namespace with only loopback, against the fake model server of
 * `pi-netns-run.mjs`. No vitest here (bench/extension.ts and scripts/examples-table.ts use it);
 * test/support/pi-agent.ts adds the test's temporary world.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export const PI_VERSION = "0.73.1";

/** Why the e2e tests cannot run here, or undefined: they need root (for `unshare -n`) and the pinned pi. */
export function piUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return "the pi end-to-end tests need root to make a network namespace (unshare -n)";
  const probe = spawnSync("unshare", ["-n", "sh", "-c", "ip link set lo up"], { encoding: "utf8" });
  if (probe.status !== 0) return `unshare -n with ip link set lo up failed here: ${(probe.stderr || probe.error?.message || "").trim()}`;
  return undefined;
}

/** Installs pi once (a no-op when the cache holds it); returns the folder it is installed in. */
export function installPiDir(): string {
  return execFileSync(join(ROOT, "scripts", "install-pi.sh"), { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim().split("\n").pop()!;
}

/** Installs pi once (a no-op when the cache holds it); returns its cli.js. */
export function installPi(): string {
  return join(installPiDir(), "node_modules", "@mariozechner", "pi-coding-agent", "dist", "cli.js");
}

export interface PiWorld {
  /** The project pi runs in (its cwd). */
  project: string;
  /** The fake HOME. */
  home: string;
  /** pi's agent dir (PI_CODING_AGENT_DIR): models.json is written there. */
  agentDir: string;
}

/** A fresh project, HOME and agent dir under `root`. */
export function piWorldIn(root: string): PiWorld {
  const world = { project: join(root, "project"), home: join(root, "home"), agentDir: join(root, "home", ".pi", "agent") };
  for (const dir of Object.values(world)) mkdirSync(dir, { recursive: true });
  return world;
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
  /** From pi's spawn to the model's first request (pi's start: extensions loaded, session started), ms. */
  firstRequestMs: number;
  /** From pi's spawn to its exit, ms. */
  elapsedMs: number;
}

export interface PiRunOptions {
  /** The command the model asks the bash tool to run. */
  command: string;
  /** Extension files passed with -e. */
  extensions?: string[];
  /** Extra environment for pi. */
  env?: Record<string, string>;
  apiKey?: string;
  timeoutMs?: number;
}

/** Runs `pi -p` once in `world`, in a network namespace with only loopback. */
export function runPi(cli: string, world: PiWorld, options: PiRunOptions): PiRun {
  const out = join(world.home, "..", `run-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  const config = join(world.home, "..", "run-config.json");
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: world.home, PI_CODING_AGENT_DIR: world.agentDir, PI_OFFLINE: "1",
    NO_COLOR: "1", TERM: "dumb", ...options.env,
  };
  const args = ["--no-extensions", "--no-skills", "--no-prompt-templates", "--no-themes", ...(options.extensions ?? []).flatMap((e) => ["-e", e]), "-p", "Clean up the build folder."];
  const timeoutMs = options.timeoutMs ?? 60_000;
  writeFileSync(config, JSON.stringify({ cli, cwd: world.project, agentDir: world.agentDir, env, args, command: options.command, apiKey: options.apiKey, timeoutMs, out }));
  const runner = join(ROOT, "test", "support", "pi-netns-run.mjs");
  const r = spawnSync("unshare", ["-n", "sh", "-c", `ip link set lo up && exec "${process.execPath}" "${runner}" "${config}"`], { encoding: "utf8", timeout: timeoutMs + 15_000 });
  if (r.status !== 0) throw new Error(`the namespace runner failed (${r.status}): ${r.stderr}`);
  const result = JSON.parse(readFileSync(out, "utf8")) as Omit<PiRun, "toolResult">;
  const chats = result.requests.filter((r) => r.url.endsWith("/chat/completions"));
  const last = chats.at(-1)?.body.messages ?? [];
  const tool = [...last].reverse().find((m) => m.role === "tool");
  const toolResult = tool === undefined ? "" : typeof tool.content === "string" ? tool.content : JSON.stringify(tool.content);
  return { ...result, toolResult };
}
