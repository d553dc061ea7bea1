/**
 * `npm run bench:extension`: `hookbox/extension` inside pi 0.73.1, each figure against the
 * same extensions run in pi's own process, measured in the same run.
 *
 * - agent start: `pi -p` (the real agent, headless, in a network namespace with only loopback,
 *   against the fake model of test/support/pi-netns-run.mjs), from its spawn to the model's first
 *   request, with 10 extensions isolated (`-e isolated.ts` importing hookbox built as it ships,
 *   worker mode) and with the same 10 as `-e` extensions in pi's process; alternated, the figure
 *   is the median of per-pair ratios; the isolated start mirrors the previous one (the warm-up
 *   recorded it: src/extension/starts.ts), and the same start with that record removed first
 *   (`agent_start_first_ratio`) is what a first start costs;
 * - tool_call: pi's own loader and runner in this process, `emitToolCall` through an isolated
 *   guard against the same guard loaded natively by pi, in alternating rounds; and the same guard
 *   sandboxed against it in process isolation, alternated;
 * - memory: the private memory, PSS and RSS (smaps_rollup, bench/lib/smaps.ts) this process and
 *   its children gain per isolated extension (worker, process, sandbox), measured in a fresh
 *   process of its own.
 *
 * Every ratio is the median of rounds alternated within this run, printed with their spread.
 *
 *   npm run bench:extension               table
 *   npm run bench:extension -- --json     table, then one JSON object as the last line
 *   npm run bench:extension -- --save     table, and the rows saved to bench/results/extension.json (npm run docs:performance)
 *   npx tsx bench/extension.ts --quick --json   one iteration of each (CI smoke: the shape, not the numbers)
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { isolate } from "../src/extension/adapter.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { importPi, examplesDir, type Pi } from "../scripts/pi-examples.js";
import { builtHookbox, installPi, installPiDir, piUnavailable, piWorldIn, runPi, type PiRun, type PiWorld } from "../test/support/pi-run.js";
import { settledRss } from "./lib/memory.js";
import { interleave, medianRatio, sleep, summarize, type Plan, type Summary } from "./lib/measure.js";
import { descendantsKb, describeMb, perUnitMb, smapsRollupKb, subKb } from "./lib/smaps.js";
import { ms, report, spread, us, type Row } from "./lib/table.js";

const { values: args } = parseArgs({
  options: {
    json: { type: "boolean", default: false },
    save: { type: "boolean", default: false },
    quick: { type: "boolean", default: false },
    memory: { type: "string" },
    count: { type: "string" },
  },
});

const ROOT = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
const GUARD = join(ROOT, "fixtures", "extensions", "blocks-rm-rf.ts");
/** Of the 10 extensions, seven of pi's examples that load isolated without a refusal (docs/pi-examples.md); the rest are hookbox's. */
const EXAMPLES = ["custom-compaction.ts", "model-status.ts", "notify.ts", "permission-gate.ts", "protected-paths.ts", "status-line.ts", "widget-placement.ts"];
/** Ten more of pi's examples (identical in docs/pi-examples.md), for the start of 20. */
const MORE = ["bookmark.ts", "commands.ts", "confirm-destructive.ts", "hidden-thinking-label.ts", "pirate.ts", "question.ts", "session-name.ts", "todo.ts", "truncated-tool.ts", "working-indicator.ts"];
const OURS = [GUARD, join(ROOT, "bench", "fixtures", "allows-every-tool-call.ts"), join(ROOT, "bench", "fixtures", "reads-context-unchanged.ts")];
const TOOL_CALL = { type: "tool_call", toolName: "bash", toolCallId: "call_1", input: { command: "ls -la src" } };
const progress = (what: string) => process.stderr.write(`bench:extension: ${what}\n`);

const PLANS = args.quick
  ? { start: { warmup: 0, iterations: 1 }, rtt: { warmup: 0, iterations: 1 }, workers: 2, sandboxes: 1 }
  : { start: { warmup: 1, iterations: 7 }, rtt: { warmup: 500, iterations: 3000 }, workers: 8, sandboxes: 4 };

/** hookbox built as the package ships it (test/support/pi-run.ts `builtHookbox`): what `import { isolate } from "hookbox/extension"` loads. */
function builtExtension(): string {
  return join(builtHookbox("bench-extension", progress), "dist", "src", "extension.js");
}

// ---------------------------------------------------------------------------------------------
// Agent start: pi -p with 10 extensions, isolated against in-process.

interface StartFigures {
  ratio: number; rounds: number[]; isolated: Summary; native: Summary; bare: Summary; isolatedTotal: Summary; nativeTotal: Summary;
  /** The same 10 sandboxed, where bubblewrap runs. */
  sandbox?: { ratio: number; rounds: number[]; start: Summary };
  /** 20 extensions (the 10 and ten more of pi's examples), isolated against the same 20 in pi's process. */
  twenty: { ratio: number; rounds: number[]; isolated: Summary; native: Summary };
  /** The same 10 isolated at a first start (no record of a previous one: isolate() waits for every module). */
  first: { ratio: number; rounds: number[]; start: Summary };
}

function checked(run: PiRun, what: string): PiRun {
  // A run whose extensions did not load would be fast for the wrong reason.
  if (run.code !== 0 || !run.stdout.includes("TOOL RESULT:") || /did not load|Extension error|Failed to load/.test(run.stderr) || run.firstRequestMs < 0) {
    throw new Error(`pi -p with ${what} did not run cleanly (exit ${run.code}): ${run.stderr.slice(0, 2000)}`);
  }
  return run;
}

function agentStart(plan: Plan): StartFigures {
  const cli = installPi();
  const ten = [...EXAMPLES.map((e) => join(examplesDir(installPiDir()), e)), ...OURS];
  const twenty = [...ten, ...MORE.map((e) => join(examplesDir(installPiDir()), e))];
  const scratch = mkdtempSync(join(tmpdir(), "hookbox-bench-pi-"));
  try {
    return runStarts(plan, cli, ten, twenty, piWorldIn(scratch));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function runStarts(plan: Plan, cli: string, ten: string[], twenty: string[], world: PiWorld): StartFigures {
  const isolatedFile = join(world.project, "isolated.ts");
  const isolated20File = join(world.project, "isolated20.ts");
  const sandboxedFile = join(world.project, "sandboxed.ts");
  const built = JSON.stringify(builtExtension());
  // Each set keeps its transform cache and start records (src/extension/starts.ts) in a folder of
  // this run: "first" removes the isolated set's records, and no other process's records (tests
  // running beside the bench write theirs into the default folder) can be taken for them.
  const caches = join(world.home, "..", "caches");
  const startRecords = join(caches, "worker", "starts");
  writeFileSync(isolatedFile, `import { isolate } from ${built};\nexport default isolate(${JSON.stringify(ten)}, { transformCacheDir: ${JSON.stringify(join(caches, "worker"))} });\n`);
  writeFileSync(isolated20File, `import { isolate } from ${built};\nexport default isolate(${JSON.stringify(twenty)}, { transformCacheDir: ${JSON.stringify(join(caches, "worker20"))} });\n`);
  writeFileSync(sandboxedFile, `import { isolate } from ${built};\nexport default isolate(${JSON.stringify(ten)}, { isolation: "sandbox", transformCacheDir: ${JSON.stringify(join(caches, "sandbox"))} });\n`);
  const command = "ls";
  const runs = {
    isolated: () => checked(runPi(cli, world, { command, extensions: [isolatedFile] }), "10 isolated extensions"),
    // What a start costs with no record of the previous one (src/extension/starts.ts): the isolated set's records are removed first.
    first: () => {
      rmSync(startRecords, { recursive: true, force: true });
      return checked(runPi(cli, world, { command, extensions: [isolatedFile] }), "10 isolated extensions, first start");
    },
    native: () => checked(runPi(cli, world, { command, extensions: ten }), "10 in-process extensions"),
    bare: () => checked(runPi(cli, world, { command }), "no extension"),
    isolated20: () => checked(runPi(cli, world, { command, extensions: [isolated20File] }), "20 isolated extensions"),
    native20: () => checked(runPi(cli, world, { command, extensions: twenty }), "20 in-process extensions"),
    sandboxed: () => checked(runPi(cli, world, { command, extensions: [sandboxedFile] }), "10 sandboxed extensions"),
  };
  const keys = sandboxAvailability().ok
    ? (["native", "isolated", "first", "sandboxed", "bare", "native20", "isolated20"] as const)
    : (["native", "isolated", "first", "bare", "native20", "isolated20"] as const);
  for (let i = 0; i < plan.warmup; i++) for (const key of keys) runs[key]();
  const out = { isolated: [] as PiRun[], native: [] as PiRun[], bare: [] as PiRun[], sandboxed: [] as PiRun[], first: [] as PiRun[], native20: [] as PiRun[], isolated20: [] as PiRun[] };
  for (let i = 0; i < plan.iterations; i++) {
    // Alternate the order so a slow stretch of the shared machine does not land on one side only.
    const order = i % 2 === 0 ? keys : [...keys].reverse();
    for (const key of order) out[key].push(runs[key]());
  }
  const start = (r: PiRun[]) => r.map((x) => x.firstRequestMs);
  const against = (r: PiRun[]) => r.map((x, i) => x.firstRequestMs / out.native[i]!.firstRequestMs);
  const rounds = against(out.isolated);
  const sandboxRounds = against(out.sandboxed);
  const firstRounds = against(out.first);
  const twentyRounds = out.isolated20.map((x, i) => x.firstRequestMs / out.native20[i]!.firstRequestMs);
  return {
    ratio: summarize(rounds).median, rounds,
    isolated: summarize(start(out.isolated)), native: summarize(start(out.native)), bare: summarize(start(out.bare)),
    isolatedTotal: summarize(out.isolated.map((r) => r.elapsedMs)), nativeTotal: summarize(out.native.map((r) => r.elapsedMs)),
    sandbox: out.sandboxed.length ? { ratio: summarize(sandboxRounds).median, rounds: sandboxRounds, start: summarize(start(out.sandboxed)) } : undefined,
    first: { ratio: summarize(firstRounds).median, rounds: firstRounds, start: summarize(start(out.first)) },
    twenty: { ratio: summarize(twentyRounds).median, rounds: twentyRounds, isolated: summarize(start(out.isolated20)), native: summarize(start(out.native20)) },
  };
}

// ---------------------------------------------------------------------------------------------
// tool_call through pi's runner: an isolated guard against the same guard in pi's process.

/** pi's runner over one extension, its core bound with inert stand-ins. */
function runnerOf(pi: Pi, extensions: unknown[], runtime: unknown) {
  const runner = new pi.Runner(extensions, runtime, ROOT, pi.SessionManager.inMemory(ROOT), {});
  runner.bindCore({ appendEntry: () => {}, sendMessage: () => {} }, { getModel: () => undefined, isIdle: () => true, hasPendingMessages: () => false, abort: () => {} });
  return runner;
}

/** pi's runner over the guard isolated as `isolation` says, its session started. */
async function isolatedGuard(pi: Pi, isolation: "worker" | "process" | "sandbox") {
  const runtime = pi.loader.createExtensionRuntime();
  const runner = runnerOf(pi, [await pi.loader.loadExtensionFromFactory(isolate([GUARD], { isolation }), ROOT, undefined, runtime, `<${isolation}>`)], runtime);
  await runner.emit({ type: "session_start", reason: "startup" });
  if (await runner.emitToolCall({ ...TOOL_CALL, input: { command: "rm -rf /tmp/x" } }) === undefined) throw new Error(`the ${isolation} guard did not block`);
  return runner;
}

interface PairFigure { ratio: number; rounds: number[]; a: Summary; b: Summary }

/** The guard sandboxed against the same guard in process isolation: what the sandbox adds to a call. */
async function sandboxToolCall(pi: Pi, plan: Plan): Promise<PairFigure> {
  const sandboxed = await isolatedGuard(pi, "sandbox");
  const processed = await isolatedGuard(pi, "process");
  try {
    const paired = await interleave(() => sandboxed.emitToolCall(TOOL_CALL), () => processed.emitToolCall(TOOL_CALL), plan);
    return { ratio: medianRatio(paired), rounds: paired.ratios, a: summarize(paired.a), b: summarize(paired.b) };
  } finally {
    await Promise.all([sandboxed, processed].map((r) => r.emit({ type: "session_shutdown", reason: "quit" })));
  }
}

async function toolCall(pi: Pi, plan: Plan): Promise<{ ratio: number; rounds: number[]; isolated: Summary; native: Summary }> {
  const runtime = pi.loader.createExtensionRuntime();
  const isolated = runnerOf(pi, [await pi.loader.loadExtensionFromFactory(isolate([GUARD]), ROOT, undefined, runtime, "<isolated>")], runtime);
  const loaded = await pi.loader.loadExtensions([GUARD], ROOT);
  const native = runnerOf(pi, loaded.extensions, loaded.runtime);
  try {
    await isolated.emit({ type: "session_start", reason: "startup" });
    for (const r of [isolated, native]) if (await r.emitToolCall({ ...TOOL_CALL, input: { command: "rm -rf /tmp/x" } }) === undefined) throw new Error("the guard did not block");
    const paired = await interleave(() => isolated.emitToolCall(TOOL_CALL), () => native.emitToolCall(TOOL_CALL), plan);
    return { ratio: medianRatio(paired), rounds: paired.ratios, isolated: summarize(paired.a), native: summarize(paired.b) };
  } finally {
    await isolated.emit({ type: "session_shutdown", reason: "quit" });
  }
}

// ---------------------------------------------------------------------------------------------
// Memory per isolated extension, in a fresh process.

type Isolation = "worker" | "process" | "sandbox";

type Mb = ReturnType<typeof perUnitMb>;
interface MemoryFigure { host: Mb; children: Mb }
const totalMb = (m: MemoryFigure): Mb => ({ rss: m.host.rss + m.children.rss, pss: m.host.pss + m.children.pss, priv: m.host.priv + m.children.priv });

/** In the child: MB this process (host) and its descendants (children) gain per isolated extension, over `count` of them (private, PSS, RSS). */
async function memoryInChild(pi: Pi, isolation: Isolation, count: number): Promise<MemoryFigure> {
  const load = async (n: number) => {
    const runtime = pi.loader.createExtensionRuntime();
    const extension = await pi.loader.loadExtensionFromFactory(isolate(Array.from({ length: n }, () => GUARD), { isolation }), ROOT, undefined, runtime, "<isolated>");
    const runner = runnerOf(pi, [extension], runtime);
    await runner.emit({ type: "session_start", reason: "startup" });
    // As pi before a tool runs: a tool_call waits for every module (a start that mirrors the previous one loads them lazily).
    await runner.emitToolCall(TOOL_CALL);
    return runner;
  };
  // One extension first and gone again: hookbox's own code, pi's and the transform cache are loaded before the first reading.
  const warm = await load(1);
  await warm.emit({ type: "session_shutdown", reason: "quit" });
  await sleep(300);
  settledRss();
  const host0 = smapsRollupKb();
  const children0 = descendantsKb();
  const runner = await load(count);
  await sleep(500);
  settledRss();
  const host = subKb(smapsRollupKb(), host0);
  const children = subKb(descendantsKb(), children0);
  await runner.emit({ type: "session_shutdown", reason: "quit" });
  return { host: perUnitMb(host, count), children: perUnitMb(children, count) };
}

function memoryInFreshProcess(isolation: Isolation, count: number): Promise<MemoryFigure> {
  return new Promise((resolve, reject) => {
    const script = fileURLToPath(import.meta.url);
    const child = spawn(process.execPath, [...process.execArgv, "--expose-gc", script, "--memory", isolation, "--count", String(count)], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.once("error", reject);
    child.once("exit", (code) => {
      try {
        const value = JSON.parse(out.trim().split("\n").pop()!) as MemoryFigure;
        if (code === 0 && [value.host, value.children].every((m) => [m.rss, m.pss, m.priv].every(Number.isFinite))) return resolve(value);
      } catch { /* reported below */ }
      reject(new Error(`memory (${isolation}) exited ${code}: ${out}`));
    });
  });
}

async function main(): Promise<void> {
  const pi = await importPi(installPiDir());
  if (args.memory) {
    console.log(JSON.stringify(await memoryInChild(pi, args.memory as Isolation, Number(args.count))));
    return;
  }
  const rows: Row[] = [];
  const netns = piUnavailable();
  if (netns) {
    progress(`agent start skipped: ${netns}`);
  } else {
    progress(`pi -p start, 10 extensions isolated / in-process, ${PLANS.start.iterations} alternated runs`);
    const st = agentStart(PLANS.start);
    rows.push(
      { key: "agent_start_ratio", value: st.ratio, rounds: st.rounds, unit: "x", target: { op: "<=", value: 1.5 },
        detail: `pi -p to the first model request, 10 isolated (worker) ${spread(st.isolated, ms)} / 10 in pi's process ${spread(st.native, ms)}; no extension ${spread(st.bare, ms)}` },
      { key: "agent_start_first_ratio", value: st.first.ratio, rounds: st.first.rounds, unit: "x",
        detail: `the same 10 isolated at a first start (no record of the previous one: isolate() waits for every module) ${spread(st.first.start, ms)} / 10 in pi's process` },
      { key: "agent_start_20_ratio", value: st.twenty.ratio, rounds: st.twenty.rounds, unit: "x",
        detail: `the same with 20 extensions (ten more of pi's examples), 20 isolated (worker) ${spread(st.twenty.isolated, ms)} / 20 in pi's process ${spread(st.twenty.native, ms)}` },
      ...(st.sandbox ? [{ key: "agent_start_sandbox_ratio", value: st.sandbox.ratio, rounds: st.sandbox.rounds, unit: "x",
        detail: `the same, 10 sandboxed ${spread(st.sandbox.start, ms)} / 10 in pi's process` }] : []),
      { key: "agent_run_isolated_ms", value: st.isolatedTotal.median, unit: "ms",
        detail: `pi -p spawn to exit (two model turns, one bash tool call), 10 isolated ${spread(st.isolatedTotal, ms)} / in pi's process ${spread(st.nativeTotal, ms)}` },
    );
  }
  progress("tool_call through pi's runner: isolated guard / the same guard in pi's process");
  const tc = await toolCall(pi, PLANS.rtt);
  rows.push({ key: "agent_tool_call_ratio", value: tc.ratio, rounds: tc.rounds, unit: "x",
    detail: `pi's emitToolCall, guard isolated (worker) ${spread(tc.isolated, us)} / the same guard in pi's process ${spread(tc.native, us)}` });
  const canSandbox = sandboxAvailability();
  if (canSandbox.ok) {
    progress("tool_call through pi's runner: sandboxed guard / the same guard in process isolation");
    const sc = await sandboxToolCall(pi, { warmup: PLANS.rtt.warmup, iterations: Math.min(PLANS.rtt.iterations, 1000) });
    rows.push({ key: "agent_tool_call_sandbox_process_ratio", value: sc.ratio, rounds: sc.rounds, unit: "x", target: { op: "<=", value: 1.2 },
      detail: `pi's emitToolCall, guard sandboxed ${spread(sc.a, us)} / the same guard in process isolation ${spread(sc.b, us)}` });
  }
  progress(`memory per isolated extension over ${PLANS.workers} (worker) and ${PLANS.sandboxes} (process, sandbox), fresh processes`);
  const mb = (m: MemoryFigure) => `${describeMb(totalMb(m))} (host: private ${m.host.priv.toFixed(1)} MB; children: private ${m.children.priv.toFixed(1)} MB)`;
  const worker = await memoryInFreshProcess("worker", PLANS.workers);
  rows.push(
    { key: "extension_worker_private_mb", value: totalMb(worker).priv, unit: "MB", target: { op: "<=", value: 5 },
      detail: `gained per isolated extension (worker), over ${PLANS.workers}: ${mb(worker)}` },
    { key: "extension_worker_pss_mb", value: totalMb(worker).pss, unit: "MB", detail: "the same, PSS" },
    { key: "extension_worker_rss_mb", value: totalMb(worker).rss, unit: "MB", target: { op: "<=", value: 15 }, detail: "the same, RSS" },
  );
  if (canSandbox.ok) {
    const processed = await memoryInFreshProcess("process", PLANS.sandboxes);
    rows.push({ key: "extension_process_private_mb", value: totalMb(processed).priv, unit: "MB",
      detail: `the same, process isolation, over ${PLANS.sandboxes}: ${mb(processed)}` });
    const sandboxed = await memoryInFreshProcess("sandbox", PLANS.sandboxes);
    rows.push(
      { key: "extension_sandbox_private_mb", value: totalMb(sandboxed).priv, unit: "MB", target: { op: "<=", value: 10 },
        detail: `the same, sandbox isolation, over ${PLANS.sandboxes}: ${mb(sandboxed)} (bwrap's monitor and init, node)` },
      { key: "extension_sandbox_pss_mb", value: totalMb(sandboxed).pss, unit: "MB", detail: "the same, PSS" },
      { key: "extension_sandbox_rss_mb", value: totalMb(sandboxed).rss, unit: "MB", target: { op: "<=", value: 50 }, detail: "the same, RSS" },
    );
  } else {
    progress(`sandbox figures skipped: ${canSandbox.reason}`);
  }
  report(rows, args.json, args.save && !args.quick ? "extension" : undefined);
}

// Why a keep-alive: isolated workers are unref'd while idle (see bench/run.ts).
const keepAlive = setInterval(() => {}, 1 << 30);
try {
  await main();
} finally {
  clearInterval(keepAlive);
}
process.exit(0);
