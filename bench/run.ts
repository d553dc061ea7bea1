/**
 * `npm run bench`: hookbox against the floor (docs/performance.md). Every figure is a ratio against
 * a floor measured in the same run (raw worker postMessage echoes, bare workers), because the machine is
 * shared and noisy. Prints a table; `--json` also prints one JSON object as the last line;
 * `--quick` runs one iteration of each (a CI smoke run: the shape is checked, not the numbers).
 *
 *   npm run bench                 table
 *   npm run bench -- --json       table, then the JSON object on the last line
 *   npm run bench -- --save       table, and the rows saved to bench/results/run.json (npm run docs:performance)
 *   npx tsx bench/run.ts --quick --json
 *   npx tsx bench/run.ts --only   the two hot-path figures (tool_call round trip, 1 MiB context) only
 *   npx tsx bench/run.ts --only-startup   the start of 8 hooks against 8 bare workers only
 *   npx tsx bench/run.ts --only-claude    hookbox claude's start over claude -p alone only (with --save: its rows replaced in run.json)
 */
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { pinToOneCpu, unpin } from "./lib/affinity.js";
import { FULL, QUICK, context, pipelined, startup, toolCall } from "./lib/cases.js";
import { sandboxFigures, type SandboxFigures } from "./lib/sandbox.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { measureInChild, measureInFreshProcess, type MemoryCase } from "./lib/memory.js";
import { describeMb } from "./lib/smaps.js";
import { ms, report, s, spread, us, type Row } from "./lib/table.js";
import { claudeStart, medianOf } from "./lib/claude-start.js";
import { agentUnavailable } from "../test/support/pi-run.js";

const { values: args } = parseArgs({
  options: {
    json: { type: "boolean", default: false },
    save: { type: "boolean", default: false },
    quick: { type: "boolean", default: false },
    case: { type: "string" },
    count: { type: "string" },
    "no-pin": { type: "boolean", default: false },
    only: { type: "boolean", default: false },
    "only-startup": { type: "boolean", default: false },
    "only-claude": { type: "boolean", default: false },
  },
});

const progress = (what: string) => process.stderr.write(`bench: ${what}\n`);

async function main(): Promise<void> {
  if (args.case) {
    // A child of the memory figure: print one number and leave.
    console.log(JSON.stringify(await measureInChild(args.case as MemoryCase, Number(args.count ?? 16))));
    return;
  }
  const plans = args.quick ? QUICK : FULL;
  const script = fileURLToPath(import.meta.url);
  progress(`node ${process.version}, ${cpus().length} cpus, ${cpus()[0]?.model ?? "unknown cpu"}${args.quick ? ", --quick" : ""}`);

  if (args["only-startup"]) return startupOnly(plans, args.json);
  if (args["only-claude"]) {
    const rows = claudeRows(args.quick);
    return report(rows, args.json, args.save && !args.quick && rows.length > 0 ? "run" : undefined, true);
  }
  const pinned = !args["no-pin"] && pinToOneCpu();
  progress(`sequential round trips${pinned ? ", every thread pinned to CPU 0" : ", unpinned"}`);
  progress("tool_call round trip, in-process, unsubscribed emit");
  const tc = await toolCall(plans);
  progress("1 MiB context through 4 hooks");
  const cx = await context(plans);
  if (pinned) unpin();
  if (args.only) return hotPath(tc, cx);
  progress("pipelined throughput (unpinned)");
  const tp = await pipelined(plans);
  progress(`startup of ${plans.startup.hooks} hooks (cold and warm transform cache)`);
  const st = await startup(plans);
  progress(`idle memory per hook over ${plans.rssHooks} hooks (fresh processes)`);
  const rssHooks = await measureInFreshProcess("rss-hooks", plans.rssHooks, script);
  const rssBare = await measureInFreshProcess("rss-bare", plans.rssHooks, script);
  const canSandbox = sandboxAvailability();
  let sb: SandboxFigures | undefined;
  if (canSandbox.ok) {
    progress("sandbox mode against process mode: one hook ready, tool_call round trip, idle memory");
    sb = await sandboxFigures(plans.startup, { warmup: Math.min(plans.rtt.warmup, 500), iterations: Math.min(plans.rtt.iterations, 1000) }, Math.min(plans.rssHooks, 4));
  } else {
    progress(`sandbox figures skipped: ${canSandbox.reason}`);
  }

  const rows: Row[] = [
    { key: "tool_call_rtt_ratio", value: tc.ratio, rounds: tc.rounds, unit: "x", target: { op: "<=", value: 1.3 },
      detail: `emitToolCall ${spread(tc.hook, us)} / raw echo ${spread(tc.floor, us)}` },
    { key: "unsubscribed_emit_us", value: tc.unsubscribedMs.median * 1000, unit: "µs", target: { op: "<=", value: 1 },
      detail: `emit(turn_start), no subscriber: ${spread(tc.unsubscribedMs, us)} per call` },
    { key: "unsubscribed_emit_messages", value: tc.unsubscribedPosts, unit: "", target: { op: "==", value: 0 },
      detail: "postMessage calls on any worker or port during those emits" },
    { key: "pipelined_throughput_ratio", value: tp.ratio, rounds: tp.rounds, unit: "x", target: { op: ">=", value: 0.5 },
      detail: `1000 concurrent: ${Math.round(tp.hookPerSec)}/s (${spread(tp.hook, ms)} a burst) / raw ${Math.round(tp.floorPerSec)}/s (${spread(tp.floor, ms)})` },
    { key: "context_1mb_ratio", value: cx.ratio, rounds: cx.rounds, unit: "x", target: { op: "<=", value: 1.3 },
      detail: `4 filtering hooks ${spread(cx.filtered, ms)} / 4 raw echoes ${spread(cx.floor, ms)} (${(cx.bytes / 1048576).toFixed(2)} MiB, ${cx.messages} msgs)` },
    { key: "context_1mb_passthrough_ratio", value: cx.passthroughRatio, rounds: cx.passthroughRounds, unit: "x", target: { op: "<=", value: 0.6 },
      detail: `4 hooks returning nothing ${spread(cx.passthrough, ms)} / 4 raw echoes ${ms(cx.floor.median)}` },
    ...startupRows(st, plans.startup.hooks),
    { key: "idle_worker_rss_mb", value: rssHooks.rss, unit: "MB", target: { op: "<=", value: 12 },
      detail: `host RSS growth per idle loaded hook over ${plans.rssHooks} / bare worker ${rssBare.rss.toFixed(1)} MB` },
    { key: "idle_worker_private_mb", value: rssHooks.priv, unit: "MB",
      detail: `host growth per idle loaded hook: ${describeMb(rssHooks)} / bare worker: ${describeMb(rssBare)}` },
    { key: "idle_worker_pss_mb", value: rssHooks.pss, unit: "MB", detail: "host PSS growth per idle loaded hook (above)" },
    ...(sb ? [
      { key: "sandbox_startup_ratio", value: sb.startupRatio, rounds: sb.startupRounds, unit: "x", target: { op: "<=" as const, value: 1.5 },
        detail: `one TS hook ready, sandbox ${spread(sb.sandboxStartup, ms)} / process ${spread(sb.processStartup, ms)} (warm host transform cache)` },
      { key: "sandbox_startup_ratio_js", value: sb.startupRatioJs, rounds: sb.startupRoundsJs, unit: "x",
        detail: `one .mjs hook ready (no transform), sandbox ${spread(sb.sandboxStartupJs, ms)} / process ${spread(sb.processStartupJs, ms)}` },
      { key: "sandbox_rtt_ratio", value: sb.rttRatio, rounds: sb.rttRounds, unit: "x", target: { op: "<=" as const, value: 1.2 },
        detail: `emitToolCall, sandbox ${spread(sb.sandboxRtt, us)} / process ${spread(sb.processRtt, us)}` },
      { key: "sandbox_idle_rss_mb", value: sb.sandboxMb.rss, unit: "MB",
        detail: `process tree RSS per idle sandboxed hook / per process-mode hook ${sb.processMb.rss.toFixed(1)} MB` },
      { key: "sandbox_idle_private_mb", value: sb.sandboxMb.priv, unit: "MB",
        detail: `per idle sandboxed hook, its process tree: ${describeMb(sb.sandboxMb)}` },
      { key: "sandbox_idle_pss_mb", value: sb.sandboxMb.pss, unit: "MB", detail: "the same, PSS" },
      { key: "process_idle_private_mb", value: sb.processMb.priv, unit: "MB",
        detail: `per idle process-mode hook, its process: ${describeMb(sb.processMb)}` },
    ] : []),
    ...claudeRows(args.quick),
    { key: "in_process_ratio", value: tc.inProcessRatio, rounds: tc.inProcessRounds, unit: "x",
      detail: `emitToolCall in a worker ${us(tc.hook.median)} / same hook in-process ${spread(tc.inProcess, us)}` },
  ];

  console.log(`round trips and context ${pinned ? "with every thread pinned to one CPU (taskset)" : "unpinned"}; throughput, startup and RSS unpinned\n`);
  report(rows, args.json, args.save && !args.quick ? "run" : undefined);
}

/** The start figures' rows (built, source tree, cold, warm). */
function startupRows(st: Awaited<ReturnType<typeof startup>>, hooks: number): Row[] {
  return [
    { key: "startup_ratio", value: st.ratio, rounds: st.rounds, unit: "x", target: { op: "<=", value: 1.5 },
      detail: `${hooks} hooks ready (hookbox as built), warm cache ${spread(st.warm, ms)} / ${hooks} bare workers answering ${spread(st.floor, ms)}` },
    { key: "startup_source_ratio", value: st.sourceRatio, rounds: st.sourceRounds, unit: "x",
      detail: `the same from the source tree (its runtime's ~25 modules per worker, as vitest and tsx run it) ${spread(st.source, ms)} / the floor beside it` },
    { key: "cold_startup_ms", value: st.cold.median, unit: "ms", detail: `${hooks} hooks (as built), empty transform cache: ${spread(st.cold, ms)}` },
    { key: "warm_startup_ms", value: st.warm.median, unit: "ms", detail: `${hooks} hooks (as built), warm transform cache: ${spread(st.warm, ms)}` },
  ];
}

/** hookbox claude's start over claude -p alone, where Claude Code and a network namespace are at hand (else said, and no row). */
function claudeRows(quick: boolean): Row[] {
  const unavailable = agentUnavailable("Claude Code");
  if (unavailable) {
    progress(`claude start figures skipped: ${unavailable}`);
    return [];
  }
  progress("claude -p alone, through hookbox claude (managed route), and on the fallback route, alternated");
  const cs = claudeStart(quick ? 1 : 11, progress);
  return [
    { key: "claude_start_overhead_s", value: medianOf(cs.managed), rounds: cs.managed, unit: "s", target: { op: "<=", value: 0.3 },
      detail: `one-answer claude -p session through hookbox claude (managed route) ${spread(cs.managedRuns, s)} / claude -p alone ${spread(cs.alone, s)}` },
    { key: "claude_start_overhead_fallback_s", value: medianOf(cs.fallback), rounds: cs.fallback, unit: "s",
      detail: `the same on the fallback route (HOOKBOX_NO_NAMESPACE=1) ${spread(cs.fallbackRuns, s)}` },
  ];
}

/** `--only-startup`: the start figures only, for work on them. */
async function startupOnly(plans: typeof FULL, json: boolean): Promise<void> {
  progress(`startup of ${plans.startup.hooks} hooks (cold and warm transform cache)`);
  report(startupRows(await startup(plans), plans.startup.hooks), json);
}

/** `--only`: the two figures of the hot path, for profiling work on it. */
function hotPath(tc: Awaited<ReturnType<typeof toolCall>>, cx: Awaited<ReturnType<typeof context>>): void {
  const figures = { tool_call_rtt_ratio: tc.ratio, context_1mb_ratio: cx.ratio, context_1mb_passthrough_ratio: cx.passthroughRatio };
  console.log(`tool_call ${spread(tc.hook, us)} / echo ${spread(tc.floor, us)}; context ${spread(cx.filtered, ms)} / 4 echoes ${spread(cx.floor, ms)}`);
  console.log(JSON.stringify(Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, Number(v.toPrecision(4))]))));
}

// Why a keep-alive: hook workers are unref'd while idle, and at HEAD the post-load flush waits on a
// pong with nothing ref'd, so a host with nothing else alive would exit mid-load.
const keepAlive = setInterval(() => {}, 1 << 30);
try {
  await main();
} finally {
  clearInterval(keepAlive);
}
