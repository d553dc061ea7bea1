/**
 * Gemini CLI for end-to-end tests: the pinned package installed by scripts/install-gemini.sh (the
 * script `.ci/run` uses), run headless (`-p`, yolo) inside a network namespace with only loopback
 * against the fake Gemini API server of `gemini-netns-run.mjs`, alone or as `hookbox gemini`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const GEMINI_VERSION = "0.61.0";
export const CANARY = { apiKey: "AIza-CANARY-API-KEY", secret: "CANARY-SECRET-TOKEN", ssh: "CANARY-SSH-PRIVATE-KEY", memory: "CANARY-MEMORY-PINEAPPLE" };
/** Gemini CLI quiet and offline (its own test rig's settings), with API-key auth (the fake server takes any key). */
const QUIET = {
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  ide: { enabled: false },
  security: { auth: { selectedType: "gemini-api-key" } },
};

/** Installs Gemini CLI once (a no-op when the cache holds it); returns its program (bundle/gemini.js). */
export function installGemini(): string {
  const dir = execFileSync(join(ROOT, "scripts", "install-gemini.sh"), { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim().split("\n").pop()!;
  return join(dir, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js");
}

export interface GeminiWorld { root: string; project: string; home: string; bin: string; victim: string }

type HookDef = { fixture?: string; command?: string; timeoutMs?: number; matcher?: string };

/** A project with a `victim/` folder for the model's `rm -rf` and a GEMINI.md, a HOME holding an ssh key and quiet settings, and a bin/ with `gemini`. */
export function geminiWorld(root: string, gemini: string): GeminiWorld {
  const world = { root, project: join(root, "project"), home: join(root, "home"), bin: join(root, "bin"), victim: join(root, "project", "victim") };
  for (const dir of [world.project, world.home, world.bin, world.victim, join(world.home, ".ssh"), join(world.home, ".gemini"), join(world.project, ".gemini", "hooks")]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(world.home, ".ssh", "id_ed25519"), CANARY.ssh, { mode: 0o600 });
  writeFileSync(join(world.victim, "keep.txt"), "precious");
  writeFileSync(join(world.project, "GEMINI.md"), `Project memory: ${CANARY.memory}\n`);
  writeFileSync(join(world.home, ".gemini", "settings.json"), JSON.stringify(QUIET));
  symlinkSync(gemini, join(world.bin, "gemini"));
  return world;
}

function hookEntry(world: GeminiWorld, def: HookDef) {
  let command = def.command!;
  if (def.fixture) {
    const name = def.fixture.split("/").pop()!;
    const dest = join(world.project, ".gemini", "hooks", name);
    copyFileSync(join(ROOT, def.fixture), dest);
    chmodSync(dest, 0o755);
    command = `"$GEMINI_PROJECT_DIR"/.gemini/hooks/${name}`;
  }
  return { matcher: def.matcher ?? "run_shell_command", hooks: [{ type: "command", command, ...(def.timeoutMs ? { timeout: def.timeoutMs } : {}) }] };
}

/** Names each fixture in the project's .gemini/settings.json as a BeforeTool hook of run_shell_command (copied into .gemini/hooks/). */
export function projectHooks(world: GeminiWorld, defs: HookDef[]): void {
  writeFileSync(join(world.project, ".gemini", "settings.json"), JSON.stringify({ hooks: { BeforeTool: defs.map((d) => hookEntry(world, d)) } }, null, 2));
}

/** Adds a BeforeTool hook of run_shell_command to the user's ~/.gemini/settings.json. */
export function userHook(world: GeminiWorld, command: string): void {
  writeFileSync(join(world.home, ".gemini", "settings.json"), JSON.stringify({ ...QUIET, hooks: { BeforeTool: [{ matcher: "run_shell_command", hooks: [{ type: "command", command }] }] } }));
}

/** `hookbox trust <project> --yes` as the world's user. */
export function approve(world: GeminiWorld): string {
  return execFileSync(process.execPath, [join(ROOT, "bin", "hookbox.mjs"), "trust", world.project, "--yes"], { encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: world.home } });
}

export interface GeminiRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** What gemini printed as its answer (`--output-format json`'s `response`). */
  result: string;
  /** Every request the fake server got, bodies as JSON text. */
  requests: string;
}

/** Runs `gemini -p` (or `hookbox gemini -p`) once in `world`, in a network namespace with only loopback; the model asks run_shell_command to run `command`. */
export function runGemini(world: GeminiWorld, options: { command: string; hookbox: boolean; timeoutMs?: number }): GeminiRun {
  const out = join(world.root, `run-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  const config = join(world.root, "run-config.json");
  // A model named: "auto" would first ask a classifier model for JSON, which the fake does not speak.
  const geminiArgs = ["-p", "Clean up the victim folder.", "--output-format", "json", "--approval-mode", "yolo", "-m", "gemini-2.5-flash"];
  const env = {
    PATH: `${world.bin}:${process.env.PATH ?? "/usr/bin:/bin"}`, HOME: world.home, GEMINI_API_KEY: CANARY.apiKey, SECRET_TOKEN: CANARY.secret,
    // Headless, Gemini CLI loads the project's .gemini/settings.json (and its hooks) only in a trusted folder.
    GEMINI_CLI_TRUST_WORKSPACE: "true", NO_COLOR: "1", TERM: "dumb",
  };
  const timeoutMs = options.timeoutMs ?? 60_000;
  writeFileSync(config, JSON.stringify({
    program: process.execPath,
    args: options.hookbox ? [join(ROOT, "bin", "hookbox.mjs"), "gemini", ...geminiArgs] : [join(world.bin, "gemini"), ...geminiArgs],
    cwd: world.project, env, command: options.command, timeoutMs, out,
  }));
  const runner = join(ROOT, "test", "support", "gemini-netns-run.mjs");
  const r = spawnSync("unshare", ["-n", "sh", "-c", `ip link set lo up && exec "${process.execPath}" "${runner}" "${config}"`], { encoding: "utf8", timeout: timeoutMs + 15_000 });
  if (r.status !== 0) throw new Error(`the namespace runner failed (${r.status}): ${r.stderr}`);
  const run = JSON.parse(readFileSync(out, "utf8")) as { code: number | null; stdout: string; stderr: string; requests: unknown[] };
  let result = "";
  try {
    result = String((JSON.parse(run.stdout) as { response?: unknown }).response ?? "");
  } catch { /* not JSON: the assertion shows stdout */ }
  return { code: run.code, stdout: run.stdout, stderr: run.stderr, result, requests: JSON.stringify(run.requests) };
}
