/**
 * opencode for end-to-end tests: the pinned binary installed by scripts/install-opencode.sh (the
 * script `.ci/run` uses), run headless (`opencode run --format json -m fake/m`) inside a network
 * namespace with only loopback against the fake OpenAI-compatible server of
 * `opencode-netns-run.mjs`, alone or as `hookbox opencode`. The provider is opencode's bundled
 * @ai-sdk/openai-compatible, given in OPENCODE_CONFIG_CONTENT; the models list is opencode's bundled
 * snapshot (OPENCODE_DISABLE_MODELS_FETCH); every config folder is seeded as installed, so opencode
 * starts no npm install (with a plugin present it would wait on one forever).
 */
import { execFile, execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { seedConfigDir } from "../../src/cli/opencode.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const OPENCODE_VERSION = "1.18.33";
const MODEL_PORT = 41792;
export const CANARY = { ssh: "CANARY-SSH-PRIVATE-KEY", auth: "CANARY-AUTH-JSON-KEY", secret: "CANARY-SECRET-TOKEN", agents: "CANARY-AGENTS-MD-RULE" };

/** Installs opencode once (a no-op when the cache holds it); returns its binary. */
export function installOpencode(): string {
  const dir = execFileSync(join(ROOT, "scripts", "install-opencode.sh"), { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim().split("\n").pop()!;
  return join(dir, "node_modules", "opencode-linux-x64", "bin", "opencode");
}

export interface OpencodeWorld { root: string; project: string; home: string; bin: string; victim: string }

/**
 * A project with a `victim/` folder for the model's `rm -rf` and an AGENTS.md, a HOME holding an ssh
 * key and opencode's auth.json, a bin/ with `opencode` in it, the project's `.opencode/plugins/`
 * holding `plugins` (fixture paths), as a cloned project would, and the user's
 * `~/.config/opencode/plugins/` holding `userPlugins`.
 */
export function opencodeWorld(root: string, opencode: string, plugins: string[] = [], userPlugins: string[] = []): OpencodeWorld {
  const w = { root, project: join(root, "project"), home: join(root, "home"), bin: join(root, "bin"), victim: join(root, "project", "victim") };
  for (const dir of [w.project, w.home, w.bin, w.victim, join(w.home, ".ssh"), join(w.home, ".local", "share", "opencode"), join(w.project, ".opencode", "plugins")]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(w.home, ".ssh", "id_ed25519"), CANARY.ssh, { mode: 0o600 });
  writeFileSync(join(w.home, ".local", "share", "opencode", "auth.json"), JSON.stringify({ fake: { type: "api", key: CANARY.auth } }), { mode: 0o600 });
  writeFileSync(join(w.victim, "keep.txt"), "precious");
  writeFileSync(join(w.project, "AGENTS.md"), `# Project rules\n\n${CANARY.agents}: answer briefly.\n`);
  for (const dir of [join(w.home, ".config", "opencode"), join(w.project, ".opencode")]) seedConfigDir(dir);
  for (const fixture of plugins) copyFileSync(join(ROOT, fixture), join(w.project, ".opencode", "plugins", fixture.split("/").pop()!));
  if (userPlugins.length > 0) mkdirSync(join(w.home, ".config", "opencode", "plugins"), { recursive: true });
  for (const fixture of userPlugins) copyFileSync(join(ROOT, fixture), join(w.home, ".config", "opencode", "plugins", fixture.split("/").pop()!));
  symlinkSync(opencode, join(w.bin, "opencode"));
  return w;
}

/** `hookbox trust <project> --yes` as the world's user. */
export function approve(w: OpencodeWorld): string {
  return execFileSync(process.execPath, [join(ROOT, "bin", "hookbox.mjs"), "trust", w.project, "--yes"], { encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: w.home } });
}

export interface OpencodeRun {
  code: number | null;
  signal: string | null;
  ms: number;
  stdout: string;
  stderr: string;
  /** The tool parts of opencode's JSON events (`--format json`). */
  tools: Array<{ tool: string; state: { status: string; input?: unknown; output?: string; error?: string } }>;
  /** The model's texts, in order. */
  texts: string[];
  /** Every request the fake server got, bodies parsed. */
  requests: Array<{ url?: string; at: number; body: { messages?: Array<{ role: string; content: unknown }>; tools?: unknown[] } }>;
}

/** Runs `opencode run` (or `hookbox opencode run`) once in `w`, in a network namespace with only loopback; the model asks bash to run `command`. `args`: before the message (`--command ship`). */
export async function runOpencode(w: OpencodeWorld, options: { command: string; hookbox: boolean; timeoutMs?: number; env?: Record<string, string>; args?: string[] }): Promise<OpencodeRun> {
  const out = join(w.root, `run-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  const config = `${out}.config.json`;
  const args = ["run", "--format", "json", "-m", "fake/m", ...(options.args ?? []), "Clean up the victim folder."];
  const provider = { npm: "@ai-sdk/openai-compatible", name: "fake", options: { baseURL: `http://127.0.0.1:${MODEL_PORT}/v1`, apiKey: "fake-key" }, models: { m: { name: "m", tool_call: true } } };
  const env = {
    PATH: `${w.bin}:${process.env.PATH ?? "/usr/bin:/bin"}`, HOME: w.home, SECRET_TOKEN: CANARY.secret, NO_COLOR: "1", TERM: "dumb",
    XDG_CONFIG_HOME: join(w.home, ".config"), XDG_DATA_HOME: join(w.home, ".local", "share"), XDG_CACHE_HOME: join(w.home, ".cache"), XDG_STATE_HOME: join(w.home, ".local", "state"),
    OPENCODE_CONFIG_CONTENT: JSON.stringify({ model: "fake/m", small_model: "fake/m", autoupdate: false, share: "disabled", permission: { bash: "allow" }, provider: { fake: provider } }),
    OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1", OPENCODE_DISABLE_LSP_DOWNLOAD: "1", OPENCODE_DISABLE_SHARE: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1", OPENCODE_DISABLE_CLAUDE_CODE: "1",
    ...options.env,
  };
  const timeoutMs = options.timeoutMs ?? 90_000;
  writeFileSync(config, JSON.stringify({
    program: options.hookbox ? process.execPath : join(w.bin, "opencode"),
    args: options.hookbox ? [join(ROOT, "bin", "hookbox.mjs"), "opencode", ...args] : args,
    cwd: w.project, env, command: options.command, port: MODEL_PORT, timeoutMs, out,
  }));
  const runner = join(ROOT, "test", "support", "opencode-netns-run.mjs");
  try {
    await promisify(execFile)("unshare", ["-n", "sh", "-c", `ip link set lo up && exec "${process.execPath}" "${runner}" "${config}"`], { timeout: timeoutMs + 15_000 });
  } catch (e) {
    const { stderr, signal, code } = e as { stderr?: string; signal?: string; code?: number };
    throw new Error(`the namespace runner failed (${signal ?? code}): ${stderr ?? ""}`);
  }
  const run = JSON.parse(readFileSync(out, "utf8")) as Omit<OpencodeRun, "tools" | "texts">;
  const events = run.stdout.split("\n").flatMap((line) => {
    try { return [JSON.parse(line) as { type: string; part: Record<string, unknown> }]; } catch { return []; }
  });
  return {
    ...run,
    tools: events.filter((e) => e.type === "tool_use").map((e) => e.part as unknown as OpencodeRun["tools"][number]),
    texts: events.filter((e) => e.type === "text").map((e) => String(e.part.text)),
  };
}

/** The model's first request that offers tools (the agent's own turn, not the title's). */
export const firstAgentRequest = (run: OpencodeRun) => JSON.stringify(run.requests.find((r) => (r.body.tools ?? []).length > 0)?.body ?? {});
