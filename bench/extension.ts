/**
 * `npm run bench:extension`: `hookbox/extension` inside pi 0.73.1, each figure against the
 * same extensions run in pi's own process, measured in the same run.
 *
 * - agent start: `pi -p` (the real agent, headless, in a network namespace with only loopback,
 *   against the fake model of test/support/pi-netns-run.mjs), from its spawn to the model's first
 *   request, with 10 extensions isolated (`-e isolated.ts` importing hookbox built as it ships,
 *   worker mode) and with the same 10 as `-e` extensions in pi's process; alternated, the figure
 *   is the median of per-pair ratios;
 * - tool_call: pi's own loader and runner in this process, `emitToolCall` through an isolated
 *   guard against the same guard loaded natively by pi, in alternating rounds;
 * - memory: the RSS this process and its children gain per isolated extension (worker, sandbox),
 *   measured in a fresh process of its own.
 *
 *   npm run bench:extension               table
 *   npm run bench:extension -- --json     table, then one JSON object as the last line
 *   npx tsx bench/extension.ts --quick --json   one iteration of each (CI smoke: the shape, not the numbers)
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { isolate } from "../src/extension/adapter.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { importPi, examplesDir, type Pi } from "../scripts/pi-examples.js";
import { installPi, installPiDir, piUnavailable, piWorldIn, runPi, type PiRun, type PiWorld } from "../test/support/pi-run.js";
import { settledRss } from "./lib/memory.js";
import { interleave, medianRatio, sleep, summarize, type Plan, type Summary } from "./lib/measure.js";
import { descendantsRssKb } from "./lib/sandbox.js";
import { ms, report, spread, us, type Row } from "./lib/table.js";

const { values: args } = parseArgs({
  options: {
    json: { type: "boolean", default: false },
    quick: { type: "boolean", default: false },
    memory: { type: "string" },
    count: { type: "string" },
  },
});

const ROOT = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
const GUARD = join(ROOT, "fixtures", "extensions", "blocks-rm-rf.ts");
/** Of the 10 extensions, the seven of pi's examples that run unchanged isolated (docs/pi-examples.md); the rest are hookbox's. */
const EXAMPLES = ["custom-compaction.ts", "model-status.ts", "notify.ts", "permission-gate.ts", "protected-paths.ts", "status-line.ts", "widget-placement.ts"];
const OURS = [GUARD, join(ROOT, "bench", "fixtures", "allows-every-tool-call.ts"), join(ROOT, "bench", "fixtures", "reads-context-unchanged.ts")];
const TOOL_CALL = { type: "tool_call", toolName: "bash", toolCallId: "call_1", input: { command: "ls -la src" } };
const progress = (what: string) => process.stderr.write(`bench:extension: ${what}\n`);

const PLANS = args.quick
  ? { start: { warmup: 0, iterations: 1 }, rtt: { warmup: 0, iterations: 1 }, workers: 2, sandboxes: 1 }
  : { start: { warmup: 1, iterations: 7 }, rtt: { warmup: 500, iterations: 3000 }, workers: 8, sandboxes: 4 };

/**
 * hookbox built as the package ships it (`npm run build`'s tsc, into .cache/, which git ignores), rebuilt when a source
 * file is newer: what `import { isolate } from "hookbox/extension"` loads. Why not the TypeScript
 * source: pi's jiti would transform and evaluate hookbox's ~60 source files at every start, which
 * measured 1.1-4.4 s of CPU per start here, against 0.2 s for the built files.
 */
function builtExtension(): string {
  const out = join(ROOT, ".cache", "bench-extension");
  const entry = join(out, "src", "extension.js");
  const newest = (dir: string): number => Math.max(0, ...readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile()).map((e) => statSync(join(e.parentPath, e.name)).mtimeMs));
  if (!existsSync(entry) || statSync(entry).mtimeMs < Math.max(newest(join(ROOT, "src")), newest(join(ROOT, "worker")))) {
    progress("building hookbox (tsc -p tsconfig.build.json) into .cache/bench-extension");
    rmSync(out, { recursive: true, force: true });
    execFileSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", join(ROOT, "tsconfig.build.json"), "--outDir", out], { stdio: "inherit" });
  }
  return entry;
}

// ---------------------------------------------------------------------------------------------
// Agent start: pi -p with 10 extensions, isolated against in-process.

interface StartFigures { ratio: number; isolated: Summary; native: Summary; bare: Summary; isolatedTotal: Summary; nativeTotal: Summary }

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
  const scratch = mkdtempSync(join(tmpdir(), "hookbox-bench-pi-"));
  try {
    return runStarts(plan, cli, ten, piWorldIn(scratch));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function runStarts(plan: Plan, cli: string, ten: string[], world: PiWorld): StartFigures {
  const isolatedFile = join(world.project, "isolated.ts");
  writeFileSync(isolatedFile, `import { isolate } from ${JSON.stringify(builtExtension())};\nexport default isolate(${JSON.stringify(ten)});\n`);
  const command = "ls";
  const runs = {
    isolated: () => checked(runPi(cli, world, { command, extensions: [isolatedFile] }), "10 isolated extensions"),
    native: () => checked(runPi(cli, world, { command, extensions: ten }), "10 in-process extensions"),
    bare: () => checked(runPi(cli, world, { command }), "no extension"),
  };
  for (let i = 0; i < plan.warmup; i++) for (const run of Object.values(runs)) run();
  const out = { isolated: [] as PiRun[], native: [] as PiRun[], bare: [] as PiRun[] };
  for (let i = 0; i < plan.iterations; i++) {
    // Alternate the order so a slow stretch of the shared machine does not land on one side only.
    const order = i % 2 === 0 ? (["native", "isolated", "bare"] as const) : (["isolated", "native", "bare"] as const);
    for (const key of order) out[key].push(runs[key]());
  }
  const start = (r: PiRun[]) => r.map((x) => x.firstRequestMs);
  return {
    ratio: summarize(out.isolated.map((r, i) => r.firstRequestMs / out.native[i]!.firstRequestMs)).median,
    isolated: summarize(start(out.isolated)), native: summarize(start(out.native)), bare: summarize(start(out.bare)),
    isolatedTotal: summarize(out.isolated.map((r) => r.elapsedMs)), nativeTotal: summarize(out.native.map((r) => r.elapsedMs)),
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

async function toolCall(pi: Pi, plan: Plan): Promise<{ ratio: number; isolated: Summary; native: Summary }> {
  const runtime = pi.loader.createExtensionRuntime();
  const isolated = runnerOf(pi, [await pi.loader.loadExtensionFromFactory(isolate([GUARD]), ROOT, undefined, runtime, "<isolated>")], runtime);
  const loaded = await pi.loader.loadExtensions([GUARD], ROOT);
  const native = runnerOf(pi, loaded.extensions, loaded.runtime);
  try {
    await isolated.emit({ type: "session_start", reason: "startup" });
    for (const r of [isolated, native]) if (await r.emitToolCall({ ...TOOL_CALL, input: { command: "rm -rf /tmp/x" } }) === undefined) throw new Error("the guard did not block");
    const paired = await interleave(() => isolated.emitToolCall(TOOL_CALL), () => native.emitToolCall(TOOL_CALL), plan);
    return { ratio: medianRatio(paired), isolated: summarize(paired.a), native: summarize(paired.b) };
  } finally {
    await isolated.emit({ type: "session_shutdown", reason: "quit" });
  }
}

// ---------------------------------------------------------------------------------------------
// Memory per isolated extension, in a fresh process.

type Isolation = "worker" | "sandbox";

interface MemoryFigure { host: number; children: number }

/** In the child: MB this process (host) and its descendants (children) gain per isolated extension, over `count` of them. */
async function memoryInChild(pi: Pi, isolation: Isolation, count: number): Promise<MemoryFigure> {
  const load = async (n: number) => {
    const runtime = pi.loader.createExtensionRuntime();
    const extension = await pi.loader.loadExtensionFromFactory(isolate(Array.from({ length: n }, () => GUARD), { isolation }), ROOT, undefined, runtime, "<isolated>");
    const runner = runnerOf(pi, [extension], runtime);
    await runner.emit({ type: "session_start", reason: "startup" });
    return runner;
  };
  // One extension first and gone again: hookbox's own code, pi's and the transform cache are loaded before the first reading.
  const warm = await load(1);
  await warm.emit({ type: "session_shutdown", reason: "quit" });
  await sleep(300);
  const host0 = settledRss() / 1024;
  const children0 = descendantsRssKb();
  const runner = await load(count);
  await sleep(500);
  const host = settledRss() / 1024 - host0;
  const children = descendantsRssKb() - children0;
  await runner.emit({ type: "session_shutdown", reason: "quit" });
  return { host: host / count / 1024, children: children / count / 1024 };
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
        if (code === 0 && Number.isFinite(value.host) && Number.isFinite(value.children)) return resolve(value);
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
      { key: "agent_start_ratio", value: st.ratio, unit: "x", target: { op: "<=", value: 1.5 },
        detail: `pi -p to the first model request, 10 isolated (worker) ${spread(st.isolated, ms)} / 10 in pi's process ${spread(st.native, ms)}; no extension ${spread(st.bare, ms)}` },
      { key: "agent_run_isolated_ms", value: st.isolatedTotal.median, unit: "ms",
        detail: `pi -p spawn to exit (two model turns, one bash tool call), 10 isolated ${spread(st.isolatedTotal, ms)} / in pi's process ${spread(st.nativeTotal, ms)}` },
    );
  }
  progress("tool_call through pi's runner: isolated guard / the same guard in pi's process");
  const tc = await toolCall(pi, PLANS.rtt);
  rows.push({ key: "agent_tool_call_ratio", value: tc.ratio, unit: "x",
    detail: `pi's emitToolCall, guard isolated (worker) ${spread(tc.isolated, us)} / the same guard in pi's process ${spread(tc.native, us)}` });
  progress(`memory per isolated extension over ${PLANS.workers} (worker) and ${PLANS.sandboxes} (sandbox), fresh processes`);
  const mb = (m: MemoryFigure) => `host ${m.host.toFixed(1)} MB + children ${m.children.toFixed(1)} MB`;
  const worker = await memoryInFreshProcess("worker", PLANS.workers);
  rows.push({ key: "extension_worker_rss_mb", value: worker.host + worker.children, unit: "MB", target: { op: "<=", value: 15 },
    detail: `RSS gained per isolated extension (worker), over ${PLANS.workers}: ${mb(worker)}` });
  const canSandbox = sandboxAvailability();
  if (canSandbox.ok) {
    const sandboxed = await memoryInFreshProcess("sandbox", PLANS.sandboxes);
    rows.push({ key: "extension_sandbox_rss_mb", value: sandboxed.host + sandboxed.children, unit: "MB", target: { op: "<=", value: 50 },
      detail: `the same, sandbox isolation, over ${PLANS.sandboxes}: ${mb(sandboxed)} (bwrap's monitor and init, node)` });
  } else {
    progress(`sandbox memory skipped: ${canSandbox.reason}`);
  }
  report(rows, args.json);
}

// Why a keep-alive: isolated workers are unref'd while idle (see bench/run.ts).
const keepAlive = setInterval(() => {}, 1 << 30);
try {
  await main();
} finally {
  clearInterval(keepAlive);
}
process.exit(0);
