/**
 * What `hookbox claude` adds to a short Claude Code session: `claude -p` alone, through `hookbox
 * claude` on the managed route (the default on Linux) and on the fallback route
 * (HOOKBOX_NO_NAMESPACE=1), in alternated rounds, each run in a network namespace with only
 * loopback against the fake model server of the end-to-end tests (test/support/claude-netns-run.mjs:
 * one answer, no tool call), timed from the agent's spawn to its exit. The project has a CLAUDE.md and
 * an approved PreToolUse hook, the user a hook of theirs, so the launch reads, parses, pins and hashes
 * what a real project makes it. hookbox as built (dist/, as it ships), not through tsx.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { builtHookbox } from "../../test/support/pi-run.js";
import { installClaude } from "../../test/support/claude-run.js";
import { spreadOf, summarize, type Summary } from "./measure.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const RUNNER = join(ROOT, "test", "support", "claude-netns-run.mjs");

export interface ClaudeStartFigures {
  /** Per round, seconds: hookbox claude (managed) minus claude alone. */
  managed: number[];
  /** Per round, seconds: hookbox claude (fallback) minus claude alone. */
  fallback: number[];
  alone: Summary;
  managedRuns: Summary;
  fallbackRuns: Summary;
}

interface World { root: string; project: string; home: string; bin: string; hookbox: string }

function world(progress: (line: string) => void): World {
  const root = mkdtempSync(join(tmpdir(), "hookbox-bench-claude-"));
  const w = { root, project: join(root, "project"), home: join(root, "home"), bin: join(root, "bin"), hookbox: "" };
  for (const d of [w.project, w.home, w.bin, join(w.project, ".claude", "hooks"), join(w.home, ".claude")]) mkdirSync(d, { recursive: true });
  symlinkSync(installClaude(), join(w.bin, "claude"));
  // hookbox as it ships: the build, with its bin beside it (so the routing hook runs the same build).
  const built = builtHookbox("bench-run", progress);
  mkdirSync(join(built, "bin"), { recursive: true });
  copyFileSync(join(ROOT, "bin", "hookbox.mjs"), join(built, "bin", "hookbox.mjs"));
  w.hookbox = join(built, "bin", "hookbox.mjs");
  writeFileSync(join(w.project, "CLAUDE.md"), "Be brief.\n");
  copyFileSync(join(ROOT, "fixtures", "claude-code", "blocks-rm-rf.sh"), join(w.project, ".claude", "hooks", "blocks-rm-rf.sh"));
  chmodSync(join(w.project, ".claude", "hooks", "blocks-rm-rf.sh"), 0o755);
  writeFileSync(join(w.project, ".claude", "settings.json"), JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/blocks-rm-rf.sh' }] }] } }));
  writeFileSync(join(w.home, ".claude", "settings.json"), JSON.stringify({ hooks: { PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }] } }));
  writeFileSync(join(w.home, ".claude.json"), JSON.stringify({ projects: { [w.project]: { hasTrustDialogAccepted: true } } }));
  execFileSync(process.execPath, [w.hookbox, "trust", w.project, "--yes"], { env: { PATH: `${w.bin}:${process.env.PATH}`, HOME: w.home }, stdio: "ignore", cwd: w.project });
  return w;
}

/** One `claude -p` session's wall time in seconds (alone, or through hookbox claude on `route`). */
function session(w: World, how: "alone" | "managed" | "fallback"): number {
  const out = join(w.root, `out-${how}.json`);
  const config = join(w.root, `config-${how}.json`);
  const claudeArgs = ["-p", "Say hello.", "--output-format", "json"];
  writeFileSync(config, JSON.stringify({
    program: how === "alone" ? join(w.bin, "claude") : process.execPath,
    args: how === "alone" ? claudeArgs : [w.hookbox, "claude", ...claudeArgs],
    cwd: w.project, timeoutMs: 60_000, out, calls: [],
    env: {
      PATH: `${w.bin}:${process.env.PATH ?? "/usr/bin:/bin"}`, HOME: w.home, ANTHROPIC_API_KEY: "sk-ant-bench", DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_TELEMETRY: "1", NO_COLOR: "1", TERM: "dumb", XDG_STATE_HOME: join(w.root, "state"),
      ...(how === "fallback" ? { HOOKBOX_NO_NAMESPACE: "1" } : {}),
    },
  }));
  const r = spawnSync("unshare", ["-n", "sh", "-c", `ip link set lo up && exec "${process.execPath}" "${RUNNER}" "${config}"`], { encoding: "utf8", timeout: 75_000 });
  if (r.status !== 0) throw new Error(`the namespace runner failed (${r.status}): ${r.stderr}`);
  const run = JSON.parse(readFileSync(out, "utf8")) as { code: number | null; ms: number; stderr: string };
  if (run.code !== 0) throw new Error(`claude -p ${how} exited ${run.code}: ${run.stderr}`);
  return run.ms / 1000;
}

/** `rounds` alternated rounds (after one of warm-up), each: alone, managed, fallback, in a rotating order. */
export function claudeStart(rounds: number, progress: (line: string) => void): ClaudeStartFigures {
  const w = world(progress);
  try {
    const order = ["alone", "managed", "fallback"] as const;
    for (const how of order) session(w, how);
    const times: Record<(typeof order)[number], number[]> = { alone: [], managed: [], fallback: [] };
    for (let i = 0; i < rounds; i++) {
      // Rotated, so no route always runs right after another's exit.
      for (let k = 0; k < order.length; k++) {
        const how = order[(i + k) % order.length]!;
        times[how].push(session(w, how));
      }
    }
    return {
      managed: times.managed.map((t, i) => t - times.alone[i]!),
      fallback: times.fallback.map((t, i) => t - times.alone[i]!),
      alone: summarize(times.alone), managedRuns: summarize(times.managed), fallbackRuns: summarize(times.fallback),
    };
  } finally {
    rmSync(w.root, { recursive: true, force: true });
  }
}

/** The median of per-round differences. */
export const medianOf = (values: readonly number[]): number => spreadOf(values).median;
