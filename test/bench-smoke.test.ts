/**
 * The benchmark runs end to end and prints every figure of docs/performance.md. One iteration of each
 * (`--quick`): the numbers mean nothing here and no time is asserted; CI never runs the full bench.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, test } from "vitest";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { piUnavailable } from "./support/pi-agent.js";
import { agentUnavailable } from "./support/pi-run.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const KEYS = [
  "tool_call_rtt_ratio", "unsubscribed_emit_us", "unsubscribed_emit_messages", "pipelined_throughput_ratio",
  "context_1mb_ratio", "context_1mb_passthrough_ratio", "startup_ratio", "startup_source_ratio", "cold_startup_ms", "warm_startup_ms",
  "idle_worker_rss_mb", "idle_worker_private_mb", "idle_worker_pss_mb", "in_process_ratio",
  // Sandbox figures, where bubblewrap can run (the bench says why it skips them elsewhere).
  ...(sandboxAvailability().ok ? ["sandbox_startup_ratio", "sandbox_startup_ratio_js", "sandbox_rtt_ratio", "sandbox_idle_rss_mb",
    "sandbox_idle_private_mb", "sandbox_idle_pss_mb", "process_idle_private_mb"] : []),
  // hookbox claude's start, where Claude Code can run in a network namespace (the bench says why it skips it elsewhere).
  ...(agentUnavailable("Claude Code") === undefined ? ["claude_start_overhead_s", "claude_start_overhead_fallback_s"] : []),
];

test("bench --quick --json prints one JSON object with every figure as a finite number on its last line", async () => {
  const { stdout } = await promisify(execFile)("npx", ["tsx", "bench/run.ts", "--quick", "--json"], {
    cwd: ROOT, maxBuffer: 16 * 1024 * 1024, timeout: 230_000,
  });
  const last = stdout.trim().split("\n").pop()!;
  const figures = JSON.parse(last) as Record<string, unknown>;
  expect(Object.keys(figures).sort()).toEqual([...KEYS].sort());
  for (const key of KEYS) expect(Number.isFinite(figures[key]), `${key} = ${String(figures[key])}`).toBe(true);
}, 240_000);

// bench/extension.ts: pi's start needs the network namespace of the e2e tests (root);
// the sandbox's memory needs bubblewrap. The bench says why it skips either.
const EXTENSION_KEYS = [
  ...(piUnavailable() === undefined ? ["agent_start_ratio", "agent_start_first_ratio", "agent_start_20_first_ratio", "agent_start_changed_ratio", "agent_start_20_ratio", "agent_run_isolated_ms"] : []),
  ...(piUnavailable() === undefined && sandboxAvailability().ok ? ["agent_start_sandbox_ratio"] : []),
  "agent_tool_call_ratio", "extension_worker_overhead_mb", "extension_worker_private_mb", "extension_worker_pss_mb", "extension_worker_rss_mb",
  ...(sandboxAvailability().ok ? ["agent_tool_call_sandbox_process_ratio", "extension_process_private_mb",
    "extension_sandbox_private_mb", "extension_sandbox_pss_mb", "extension_sandbox_rss_mb"] : []),
];

test("bench/extension.ts --quick --json prints every figure of the extension adapter as a finite number on its last line", async () => {
  const { stdout } = await promisify(execFile)("npx", ["tsx", "bench/extension.ts", "--quick", "--json"], {
    cwd: ROOT, maxBuffer: 16 * 1024 * 1024, timeout: 290_000,
  });
  const figures = JSON.parse(stdout.trim().split("\n").pop()!) as Record<string, unknown>;
  expect(Object.keys(figures).sort()).toEqual([...EXTENSION_KEYS].sort());
  for (const key of EXTENSION_KEYS) expect(Number.isFinite(figures[key]), `${key} = ${String(figures[key])}`).toBe(true);
}, 300_000);
