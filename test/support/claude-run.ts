/**
 * Claude Code for end-to-end tests: the pinned binary installed by scripts/install-claude.sh (the
 * script `.ci/run` uses), run headless (`-p`) inside a network namespace with only loopback against
 * the fake Anthropic Messages server of `claude-netns-run.mjs`, alone or as `hookbox claude`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const CLAUDE_VERSION = "2.1.328";
/**
 * How long Claude Code (CLAUDE_VERSION) waits in `-p` for a stdio MCP server that has not answered
 * before the model's first request, as docs/claude-code.md says it (test/docs-figures.test.ts) and
 * test/e2e-claude-mcp-wait.test.ts measures it.
 */
export const CLAUDE_MCP_WAIT_MS = 2_000;
export const CANARY = { apiKey: "sk-ant-CANARY-API-KEY", secret: "CANARY-SECRET-TOKEN", ssh: "CANARY-SSH-PRIVATE-KEY" };

/** Installs Claude Code once (a no-op when the cache holds it); returns its binary. */
export function installClaude(): string {
  const dir = execFileSync(join(ROOT, "scripts", "install-claude.sh"), { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim().split("\n").pop()!;
  return join(dir, "node_modules", "@anthropic-ai", "claude-code", "bin", "claude.exe");
}

export interface ClaudeWorld { root: string; project: string; home: string; bin: string; victim: string }

/** A project with a `victim/` folder for the model's `rm -rf`, a HOME holding an ssh key, and a bin/ with `claude` in it. */
export function claudeWorld(root: string, claude: string): ClaudeWorld {
  const world = { root, project: join(root, "project"), home: join(root, "home"), bin: join(root, "bin"), victim: join(root, "project", "victim") };
  for (const dir of [world.project, world.home, world.bin, world.victim, join(world.home, ".ssh"), join(world.project, ".claude", "hooks")]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(world.home, ".ssh", "id_ed25519"), CANARY.ssh, { mode: 0o600 });
  writeFileSync(join(world.victim, "keep.txt"), "precious");
  symlinkSync(claude, join(world.bin, "claude"));
  return world;
}

/** Copies `fixture` into the project's .claude/hooks/ and names it in .claude/settings.json as the PreToolUse hook for Bash. */
export function projectHook(world: ClaudeWorld, fixture: string, timeoutS?: number): void {
  const name = fixture.split("/").pop()!;
  const dest = join(world.project, ".claude", "hooks", name);
  copyFileSync(join(ROOT, fixture), dest);
  chmodSync(dest, 0o755);
  const hook = { type: "command", command: `"$CLAUDE_PROJECT_DIR"/.claude/hooks/${name}`, ...(timeoutS ? { timeout: timeoutS } : {}) };
  writeFileSync(join(world.project, ".claude", "settings.json"), JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [hook] }] } }, null, 2));
}

/** Claude Code's record that the user accepted the project's trust dialog (which agents' frontmatter hooks need). */
export function trustDialogAccepted(world: ClaudeWorld): void {
  writeFileSync(join(world.home, ".claude.json"), JSON.stringify({ projects: { [world.project]: { hasTrustDialogAccepted: true } } }));
}

/** `hookbox trust <project> --yes` as the world's user (its bin/ first on PATH), with `args` (e.g. `--grant proposed`). */
export function approve(world: ClaudeWorld, ...args: string[]): string {
  return execFileSync(process.execPath, [join(ROOT, "bin", "hookbox.mjs"), "trust", world.project, "--yes", ...args], { encoding: "utf8", env: { PATH: `${world.bin}:${process.env.PATH ?? "/usr/bin:/bin"}`, HOME: world.home } });
}

export interface ClaudeRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** What claude printed as its result (`--output-format json`'s `result`). */
  result: string;
  /** Every request the fake server got, bodies as JSON text. */
  requests: string;
  /** The bodies of the model requests (POST /v1/messages), in order. */
  messages: Array<{ system?: unknown; messages: unknown[]; tools?: Array<{ name: string }> }>;
  /** When the fake server got each of `messages` (ms since the epoch, this machine's clock). */
  messageTimes: number[];
}

/** A tool call of the scripted model: the n-th of its thread (`agent`: a marker in a subagent's system prompt). */
export interface ScriptedCall { name: string; input: Record<string, unknown>; agent?: string }

/**
 * Runs `claude -p` (or `hookbox claude -p`) once in `world`, in a network namespace with only loopback; the model asks Bash to run `command`.
 * `env` is added to the agent's environment. The fake server records every request, whatever its path (an OTLP export to it too).
 */
export function runClaude(world: ClaudeWorld, options: { command?: string; calls?: ScriptedCall[]; hookbox: boolean; timeoutMs?: number; env?: Record<string, string>; allowedTools?: string }): ClaudeRun {
  const out = join(world.root, `run-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  const config = join(world.root, "run-config.json");
  const claudeArgs = ["-p", "Clean up the victim folder.", "--output-format", "json", "--allowedTools", options.allowedTools ?? "Bash", "--permission-mode", "acceptEdits"];
  const env = {
    PATH: `${world.bin}:${process.env.PATH ?? "/usr/bin:/bin"}`, HOME: world.home, ANTHROPIC_API_KEY: CANARY.apiKey, SECRET_TOKEN: CANARY.secret,
    DISABLE_AUTOUPDATER: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_TELEMETRY: "1", NO_COLOR: "1", TERM: "dumb", ...options.env,
  };
  const timeoutMs = options.timeoutMs ?? 90_000;
  writeFileSync(config, JSON.stringify({
    program: options.hookbox ? process.execPath : join(world.bin, "claude"),
    args: options.hookbox ? [join(ROOT, "bin", "hookbox.mjs"), "claude", ...claudeArgs] : claudeArgs,
    cwd: world.project, env, command: options.command, timeoutMs, out, ...(options.calls ? { calls: options.calls } : {}),
  }));
  const runner = join(ROOT, "test", "support", "claude-netns-run.mjs");
  const r = spawnSync("unshare", ["-n", "sh", "-c", `ip link set lo up && exec "${process.execPath}" "${runner}" "${config}"`], { encoding: "utf8", timeout: timeoutMs + 15_000 });
  if (r.status !== 0) throw new Error(`the namespace runner failed (${r.status}): ${r.stderr}`);
  const run = JSON.parse(readFileSync(out, "utf8")) as { code: number | null; stdout: string; stderr: string; startedAt: number; requests: Array<{ url?: string; body: ClaudeRun["messages"][number]; at: number }> };
  let result = "";
  try {
    result = String((JSON.parse(run.stdout) as { result?: unknown }).result ?? "");
  } catch { /* not JSON: the assertion shows stdout */ }
  const calls = run.requests.filter((r) => r.url?.startsWith("/v1/messages") && !r.url.startsWith("/v1/messages/count_tokens"));
  return { code: run.code, stdout: run.stdout, stderr: run.stderr, result, requests: JSON.stringify(run.requests), messages: calls.map((r) => r.body), messageTimes: calls.map((r) => run.startedAt + r.at) };
}
