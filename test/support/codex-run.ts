/**
 * Codex CLI for end-to-end tests: the pinned package installed by scripts/install-codex.sh (the
 * script `.ci/run` uses), run headless (`codex exec`) inside a network namespace with only loopback
 * against the fake Responses API server of `codex-netns-run.mjs` (a model provider in the world's
 * CODEX_HOME), alone or as `hookbox codex`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync, chmodSync, copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const CODEX_VERSION = "0.169.0";
export const CANARY = { apiKey: "sk-CANARY-API-KEY", secret: "CANARY-SECRET-TOKEN", ssh: "CANARY-SSH-PRIVATE-KEY", memory: "CANARY-MEMORY-PINEAPPLE" };
const PORT = 41792;

/** Installs Codex CLI once (a no-op when the cache holds it); returns its program (bin/codex.js, which finds the platform binary). */
export function installCodex(): string {
  const dir = execFileSync(join(ROOT, "scripts", "install-codex.sh"), { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim().split("\n").pop()!;
  return join(dir, "node_modules", "@openai", "codex", "bin", "codex.js");
}

export interface CodexWorld { root: string; project: string; home: string; codexHome: string; bin: string; victim: string }
type HookDef = { fixture?: string; command?: string; timeoutS?: number };

/** A project with a `victim/` folder and an AGENTS.md, a HOME with an ssh key, a CODEX_HOME whose provider is the fake server and which trusts the project, a bin/ with `codex`. */
export function codexWorld(root: string, codex: string): CodexWorld {
  const world = { root, project: join(root, "project"), home: join(root, "home"), codexHome: join(root, "home", ".codex"), bin: join(root, "bin"), victim: join(root, "project", "victim") };
  for (const dir of [world.project, world.home, world.codexHome, world.bin, world.victim, join(world.home, ".ssh"), join(world.project, ".codex", "hooks")]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(world.home, ".ssh", "id_ed25519"), CANARY.ssh, { mode: 0o600 });
  writeFileSync(join(world.victim, "keep.txt"), "precious");
  writeFileSync(join(world.project, "AGENTS.md"), `Project memory: ${CANARY.memory}\n`);
  writeFileSync(join(world.codexHome, "config.toml"), [
    'model = "gpt-fake"', 'model_provider = "fake"', "check_for_update_on_startup = false",
    "[model_providers.fake]", 'name = "fake"', `base_url = "http://127.0.0.1:${PORT}/v1"`, 'env_key = "OPENAI_API_KEY"', 'wire_api = "responses"',
    "[analytics]", "enabled = false",
    `[projects.${JSON.stringify(world.project)}]`, 'trust_level = "trusted"', "",
  ].join("\n"));
  symlinkSync(codex, join(world.bin, "codex"));
  return world;
}

function hookEntry(world: CodexWorld, def: HookDef) {
  let command = def.command!;
  if (def.fixture) {
    const name = def.fixture.split("/").pop()!;
    const dest = join(world.project, ".codex", "hooks", name);
    copyFileSync(join(ROOT, def.fixture), dest);
    chmodSync(dest, 0o755);
    command = `${world.project}/.codex/hooks/${name}`;
  }
  return { matcher: "^Bash$", hooks: [{ type: "command", command, ...(def.timeoutS ? { timeout: def.timeoutS } : {}) }] };
}

/** Names each fixture in the project's .codex/hooks.json as a PreToolUse hook of Bash (copied into .codex/hooks/). */
export function projectHooks(world: CodexWorld, defs: HookDef[]): void {
  writeFileSync(join(world.project, ".codex", "hooks.json"), JSON.stringify({ hooks: { PreToolUse: defs.map((d) => hookEntry(world, d)) } }, null, 2));
}

/** A PreToolUse hook of Bash in the user's $CODEX_HOME/hooks.json, and optionally one in its config.toml's [hooks]. */
export function userHook(world: CodexWorld, command: string, tomlCommand?: string): void {
  writeFileSync(join(world.codexHome, "hooks.json"), JSON.stringify({ hooks: { PreToolUse: [{ matcher: "^Bash$", hooks: [{ type: "command", command }] }] } }));
  if (tomlCommand) appendFileSync(join(world.codexHome, "config.toml"), `[[hooks.PreToolUse]]\nmatcher = "^Bash$"\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = ${JSON.stringify(tomlCommand)}\n`);
}

/** `hookbox trust <project> --yes` as the world's user. */
export function approve(world: CodexWorld): string {
  return execFileSync(process.execPath, [join(ROOT, "bin", "hookbox.mjs"), "trust", world.project, "--yes"], { encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: world.home } });
}

export interface CodexRun { code: number | null; stdout: string; stderr: string; result: string; requests: string }

/**
 * Runs `codex exec` (or `hookbox codex exec`) once in `world`, in a network namespace with only
 * loopback; the model asks exec_command to run `command`. Both with --dangerously-bypass-hook-trust
 * (headless Codex otherwise skips every hook it was not told to trust in its terminal UI) and without
 * Codex's own sandbox, so what stops a call is a hook.
 */
export function runCodex(world: CodexWorld, options: { command: string; hookbox: boolean; timeoutMs?: number; prompt?: string; env?: Record<string, string> }): CodexRun {
  const out = join(world.root, `run-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  const config = join(world.root, "run-config.json");
  const codexArgs = ["exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust", options.prompt ?? "Clean up the victim folder."];
  const env = {
    PATH: `${world.bin}:${process.env.PATH ?? "/usr/bin:/bin"}`, HOME: world.home, CODEX_HOME: world.codexHome, SHELL: "/bin/sh",
    OPENAI_API_KEY: CANARY.apiKey, SECRET_TOKEN: CANARY.secret, NO_COLOR: "1", TERM: "dumb", ...options.env,
  };
  const timeoutMs = options.timeoutMs ?? 60_000;
  writeFileSync(config, JSON.stringify({
    program: process.execPath,
    args: options.hookbox ? [join(ROOT, "bin", "hookbox.mjs"), "codex", ...codexArgs] : [join(world.bin, "codex"), ...codexArgs],
    cwd: world.project, env, command: options.command, timeoutMs, out,
  }));
  const runner = join(ROOT, "test", "support", "codex-netns-run.mjs");
  const r = spawnSync("unshare", ["-n", "sh", "-c", `ip link set lo up && exec "${process.execPath}" "${runner}" "${config}"`], { encoding: "utf8", timeout: timeoutMs + 15_000 });
  if (r.status !== 0) throw new Error(`the namespace runner failed (${r.status}): ${r.stderr}`);
  const run = JSON.parse(readFileSync(out, "utf8")) as { code: number | null; stdout: string; stderr: string; requests: unknown[] };
  // The agent's last message (`codex exec --json`: one event per line).
  const messages = run.stdout.split("\n").flatMap((line) => {
    try {
      const e = JSON.parse(line) as { type?: string; item?: { type?: string; text?: string } };
      return e.type === "item.completed" && e.item?.type === "agent_message" ? [String(e.item.text)] : [];
    } catch { return []; }
  });
  return { code: run.code, stdout: run.stdout, stderr: run.stderr, result: messages.join("\n"), requests: JSON.stringify(run.requests) };
}
