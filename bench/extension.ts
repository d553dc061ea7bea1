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
 *   process of its own; in worker mode less what a bare worker thread gains it, measured the same
 *   way in the same process (`extension_worker_overhead_mb`: hookbox's own cost per worker, the
 *   median of pairs read side by side, order alternated, after warm pairs not read: memoryInChild).
 *
 * Every figure measures hookbox built as the package ships (`builtHookbox`).
 *
 * Every ratio is the median of rounds alternated within this run, printed with their spread.
 *
 *   npm run bench:extension               table
 *   npm run bench:extension -- --json     table, then one JSON object as the last line
 *   npm run bench:extension -- --save     table, and the rows saved to bench/results/extension.json (npm run docs:performance)
 *   npx tsx bench/extension.ts --quick --json   one iteration of each (CI smoke: the shape, not the numbers)
 *   npm run bench:extension -- --only first,memory [--rounds 5]   some groups only (GROUPS below), fewer start rounds
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import type { isolate as sourceIsolate } from "../src/extension/adapter.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { importPi, examplesDir, type Pi } from "../scripts/pi-examples.js";
import { builtHookbox, installPi, installPiDir, piUnavailable, piWorldIn, runPi, type PiRun, type PiWorld } from "../test/support/pi-run.js";
import { settledRss } from "./lib/memory.js";
import { interleave, medianRatio, sleep, summarize, type Plan, type Summary } from "./lib/measure.js";
import { descendantsKb, describeMb, perUnitMb, smapsRollupKb, subKb, type MemoryKb } from "./lib/smaps.js";
import { ECHO_WORKER, FLOOR_WORKER_OPTIONS } from "./lib/floor.js";
import { ms, report, spread, us, type Row } from "./lib/table.js";

const { values: args } = parseArgs({
  options: {
    json: { type: "boolean", default: false },
    save: { type: "boolean", default: false },
    quick: { type: "boolean", default: false },
    memory: { type: "string" },
    count: { type: "string" },
    only: { type: "string" },
    rounds: { type: "string" },
  },
});

/**
 * `--only start,first,...`: the named groups only, for work on one figure on the shared machine
 * (each ratio's floor runs with it): `start` (mirrored, bare), `first` (first starts of 10 and 20),
 * `twenty` (mirrored start of 20), `sandbox` (start), `tool_call`, `memory`.
 */
const GROUPS = ["start", "first", "twenty", "sandbox", "tool_call", "memory"] as const;
type Group = (typeof GROUPS)[number];
const only = args.only === undefined ? undefined : args.only.split(",").map((g) => g.trim());
for (const g of only ?? []) if (!(GROUPS as readonly string[]).includes(g)) throw new Error(`--only: unknown group "${g}" (known: ${GROUPS.join(", ")})`);
const wanted = (group: Group) => only === undefined || only.includes(group);

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
  : { start: { warmup: 1, iterations: Number(args.rounds ?? 7) }, rtt: { warmup: 500, iterations: 3000 }, workers: 8, sandboxes: 4 };


/** hookbox built as the package ships it (test/support/pi-run.ts `builtHookbox`): what `import { isolate } from "hookbox/extension"` loads. */
function builtExtension(): string {
  return join(builtHookbox("bench-extension", progress), "dist", "host", "extension.js");
}

/**
 * `isolate` as a user's agent imports it, from the same build (its hook runtimes are one file each:
 * scripts/bundle-runtime.mjs): every figure here measures the package as it ships. The source tree's
 * runtime loads about 25 modules per worker, which measured 1.5 MB more private memory per worker.
 */
const { isolate } = await import(pathToFileURL(builtExtension()).href) as { isolate: typeof sourceIsolate };

// ---------------------------------------------------------------------------------------------
// Agent start: pi -p with 10 extensions, isolated against in-process.

interface Ratio { ratio: number; rounds: number[] }

/** Each figure present when its group ran (`--only`). */
interface StartFigures {
  /** The 10 in pi's process: every start ratio's floor. */
  native: Summary; nativeTotal: Summary;
  /** The 10 isolated (worker), mirroring the previous start; pi with no extension. */
  mirrored?: Ratio & { isolated: Summary; bare: Summary; isolatedTotal: Summary };
  /** The same 10 sandboxed, where bubblewrap runs. */
  sandbox?: Ratio & { start: Summary };
  /** 20 extensions (the 10 and ten more of pi's examples), isolated against the same 20 in pi's process. */
  twenty?: Ratio & { isolated: Summary };
  /** The 20 in pi's process (the floor of both starts of 20). */
  native20?: Summary;
  /** The same 10 and 20 isolated at a first start (no record of a previous one: isolate() waits for every module it cannot read as registering only commands and handlers of events after the first request). */
  first?: Ratio & { start: Summary; twenty: Ratio & { start: Summary }; changed: Ratio & { start: Summary } };
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

type StartKey = "native" | "isolated" | "first" | "changed" | "sandboxed" | "bare" | "native20" | "isolated20" | "first20";

/** The runs the wanted groups need, each ratio's floor with it. */
function startKeys(canSandbox: boolean): StartKey[] {
  const keys = new Set<StartKey>(["native"]);
  if (wanted("start")) { keys.add("isolated"); keys.add("bare"); }
  if (wanted("first")) { keys.add("first"); keys.add("changed"); keys.add("native20"); keys.add("first20"); }
  if (wanted("sandbox") && canSandbox) keys.add("sandboxed");
  if (wanted("twenty")) { keys.add("native20"); keys.add("isolated20"); }
  // A fixed order, so alternated rounds put each isolated run next to its floor.
  return (["native", "isolated", "first", "changed", "sandboxed", "bare", "native20", "isolated20", "first20"] as const).filter((k) => keys.has(k));
}

function runStarts(plan: Plan, cli: string, ten: string[], twenty: string[], world: PiWorld): StartFigures {
  const isolatedFile = join(world.project, "isolated.ts");
  const isolated20File = join(world.project, "isolated20.ts");
  const sandboxedFile = join(world.project, "sandboxed.ts");
  const changedFile = join(world.project, "changed.ts");
  // The start after the user edited one module (a copy of the guard, rewritten before each run): the other nine have records.
  const editedGuard = join(world.project, "guard.ts");
  const guardSource = readFileSync(GUARD, "utf8");
  let edits = 0;
  const editGuard = () => writeFileSync(editedGuard, `${guardSource}// edit ${++edits}\n`);
  editGuard();
  const built = JSON.stringify(builtExtension());
  // Each set keeps its transform cache and start records (src/extension/starts.ts) in a folder of
  // this run: "first" removes the isolated set's records, and no other process's records (tests
  // running beside the bench write theirs into the default folder) can be taken for them.
  const caches = join(world.home, "..", "caches");
  writeFileSync(isolatedFile, `import { isolate } from ${built};\nexport default isolate(${JSON.stringify(ten)}, { transformCacheDir: ${JSON.stringify(join(caches, "worker"))} });\n`);
  writeFileSync(isolated20File, `import { isolate } from ${built};\nexport default isolate(${JSON.stringify(twenty)}, { transformCacheDir: ${JSON.stringify(join(caches, "worker20"))} });\n`);
  writeFileSync(changedFile, `import { isolate } from ${built};\nexport default isolate(${JSON.stringify(ten.map((p) => (p === GUARD ? editedGuard : p)))}, { transformCacheDir: ${JSON.stringify(join(caches, "changed"))} });\n`);
  writeFileSync(sandboxedFile, `import { isolate } from ${built};\nexport default isolate(${JSON.stringify(ten)}, { isolation: "sandbox", transformCacheDir: ${JSON.stringify(join(caches, "sandbox"))} });\n`);
  const command = "ls";
  // What a start costs with no record of the previous one (src/extension/starts.ts): the set's records are removed first.
  const firstStart = (file: string, cache: string, what: string) => () => {
    rmSync(join(caches, cache, "starts"), { recursive: true, force: true });
    return checked(runPi(cli, world, { command, extensions: [file] }), what);
  };
  const runs: Record<StartKey, () => PiRun> = {
    isolated: () => checked(runPi(cli, world, { command, extensions: [isolatedFile] }), "10 isolated extensions"),
    first: firstStart(isolatedFile, "worker", "10 isolated extensions, first start"),
    changed: () => {
      editGuard();
      return checked(runPi(cli, world, { command, extensions: [changedFile] }), "10 isolated extensions, one changed since the previous start");
    },
    native: () => checked(runPi(cli, world, { command, extensions: ten }), "10 in-process extensions"),
    bare: () => checked(runPi(cli, world, { command }), "no extension"),
    isolated20: () => checked(runPi(cli, world, { command, extensions: [isolated20File] }), "20 isolated extensions"),
    first20: firstStart(isolated20File, "worker20", "20 isolated extensions, first start"),
    native20: () => checked(runPi(cli, world, { command, extensions: twenty }), "20 in-process extensions"),
    sandboxed: () => checked(runPi(cli, world, { command, extensions: [sandboxedFile] }), "10 sandboxed extensions"),
  };
  const keys = startKeys(sandboxAvailability().ok);
  for (let i = 0; i < plan.warmup; i++) for (const key of keys) runs[key]();
  const out = Object.fromEntries(keys.map((k) => [k, [] as PiRun[]])) as Partial<Record<StartKey, PiRun[]>>;
  for (let i = 0; i < plan.iterations; i++) {
    // Alternate the order so a slow stretch of the shared machine does not land on one side only.
    const order = i % 2 === 0 ? keys : [...keys].reverse();
    for (const key of order) out[key]!.push(runs[key]());
  }
  const start = (r: PiRun[]) => summarize(r.map((x) => x.firstRequestMs));
  const ratio = (runs: PiRun[] | undefined, floor: PiRun[] | undefined): Ratio | undefined => {
    if (!runs || !floor) return undefined;
    const rounds = runs.map((x, i) => x.firstRequestMs / floor[i]!.firstRequestMs);
    return { ratio: summarize(rounds).median, rounds };
  };
  const { native, isolated, bare, sandboxed, first, changed, first20, isolated20, native20 } = out;
  const firstTwenty = ratio(first20, native20);
  return {
    native: start(native!), nativeTotal: summarize(native!.map((r) => r.elapsedMs)),
    mirrored: isolated && bare ? { ...ratio(isolated, native)!, isolated: start(isolated), bare: start(bare), isolatedTotal: summarize(isolated.map((r) => r.elapsedMs)) } : undefined,
    sandbox: sandboxed ? { ...ratio(sandboxed, native)!, start: start(sandboxed) } : undefined,
    twenty: isolated20 ? { ...ratio(isolated20, native20)!, isolated: start(isolated20) } : undefined,
    native20: native20 ? start(native20) : undefined,
    first: first && firstTwenty && changed ? { ...ratio(first, native)!, start: start(first), twenty: { ...firstTwenty, start: start(first20!) }, changed: { ...ratio(changed, native)!, start: start(changed) } } : undefined,
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
interface MemoryFigure {
  host: Mb; children: Mb;
  /** Worker isolation: what a bare worker thread (`new Worker`, answers one message) gains the host, measured the same way in the same process just before. */
  bare?: Mb;
}
const totalMb = (m: MemoryFigure): Mb => ({ rss: m.host.rss + m.children.rss, pss: m.host.pss + m.children.pss, priv: m.host.priv + m.children.priv });

/**
 * In the child: MB this process (host) and its descendants (children) gain per isolated extension, over `count` of them
 * (private, PSS, RSS). Worker isolation: `MEMORY_PAIRS` readings, each paired with a bare floor read right beside it
 * (the order alternates), after `WARM_PAIRS` pairs that are not read. Why: the first threads of a process pay what
 * later ones reuse (allocator arenas, first-time set-up), whichever kind comes first; read first, the bare floor alone
 * moved from 5.5 to 6.8 MB per thread, read after the warm pairs by 0.1 MB.
 */
async function memoryInChild(pi: Pi, isolation: Isolation, count: number): Promise<MemoryFigure[]> {
  const load = async (n: number) => {
    const runtime = pi.loader.createExtensionRuntime();
    const extension = await pi.loader.loadExtensionFromFactory(isolate(Array.from({ length: n }, () => GUARD), { isolation }), ROOT, undefined, runtime, "<isolated>");
    const runner = runnerOf(pi, [extension], runtime);
    await runner.emit({ type: "session_start", reason: "startup" });
    // As pi before a tool runs: a tool_call waits for every module (a start that mirrors the previous one loads them lazily).
    await runner.emitToolCall(TOOL_CALL);
    return runner;
  };
  /** `count` isolated extensions, loaded, read and ended. */
  const isolated = async () => {
    settledRss();
    const host0 = smapsRollupKb();
    const children0 = descendantsKb();
    const runner = await load(count);
    await sleep(500);
    settledRss();
    const host = subKb(smapsRollupKb(), host0);
    const children = subKb(descendantsKb(), children0);
    await runner.emit({ type: "session_shutdown", reason: "quit" });
    await sleep(300);
    return { host: perUnitMb(host, count), children: perUnitMb(children, count) };
  };
  // One extension first and gone again: hookbox's own code, pi's and the transform cache are loaded before the first reading.
  const warm = await load(1);
  await warm.emit({ type: "session_shutdown", reason: "quit" });
  await sleep(300);
  // Enough full collections that V8 has flushed the bytecode of the host's start-up code it will flush (it ages a
  // function's bytecode by collections): done inside a reading, that gave back 20 MB of the host's own.
  for (let i = 0; i < 12; i++) settledRss();
  if (isolation !== "worker") return [await isolated()];
  const figures: MemoryFigure[] = [];
  for (let pair = 0; pair < WARM_PAIRS + MEMORY_PAIRS; pair++) {
    const bareFirst = pair % 2 === 0;
    const bare0 = bareFirst ? await bareWorkersKb(count) : undefined;
    const figure = await isolated();
    const bare = bare0 ?? await bareWorkersKb(count);
    if (pair >= WARM_PAIRS) figures.push({ ...figure, bare: perUnitMb(bare, count) });
  }
  return figures;
}

/** The floor of a worker extension's memory: `count` bare worker threads that answered one message, idle as long, read the same way; then ended. */
async function bareWorkersKb(count: number): Promise<MemoryKb> {
  settledRss();
  const before = smapsRollupKb();
  const workers = Array.from({ length: count }, () => new Worker(ECHO_WORKER, FLOOR_WORKER_OPTIONS));
  await Promise.all(workers.map((w) => new Promise((resolve) => { w.once("message", resolve); w.postMessage(0); })));
  await sleep(500);
  settledRss();
  const grown = subKb(smapsRollupKb(), before);
  await Promise.all(workers.map((w) => w.terminate()));
  await sleep(300);
  return grown;
}

/** Paired readings per fresh process in worker isolation (memoryInChild). */
const MEMORY_PAIRS = args.quick ? 1 : 4;
/** Pairs read first and not counted (memoryInChild). */
const WARM_PAIRS = args.quick ? 1 : 2;

function memoryInFreshProcess(isolation: Isolation, count: number): Promise<MemoryFigure[]> {
  return new Promise((resolve, reject) => {
    const script = fileURLToPath(import.meta.url);
    const child = spawn(process.execPath, [...process.execArgv, "--expose-gc", script, "--memory", isolation, "--count", String(count)], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.once("error", reject);
    child.once("exit", (code) => {
      try {
        const values = JSON.parse(out.trim().split("\n").pop()!) as MemoryFigure[];
        const read = (value: MemoryFigure) => [value.host, value.children, ...(isolation === "worker" ? [value.bare!] : [])].every((m) => [m.rss, m.pss, m.priv].every(Number.isFinite));
        if (code === 0 && values.length > 0 && values.every(read)) return resolve(values);
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
  const startGroups = (["start", "first", "twenty", "sandbox"] as const).some(wanted);
  if (netns) {
    progress(`agent start skipped: ${netns}`);
  } else if (startGroups) {
    progress(`pi -p start, extensions isolated / in-process, ${PLANS.start.iterations} alternated runs`);
    const st = agentStart(PLANS.start);
    const floor = `10 in pi's process ${spread(st.native, ms)}`;
    if (st.mirrored) rows.push(
      { key: "agent_start_ratio", value: st.mirrored.ratio, rounds: st.mirrored.rounds, unit: "x", target: { op: "<=", value: 1.5 },
        detail: `pi -p to the first model request, 10 isolated (worker) ${spread(st.mirrored.isolated, ms)} / ${floor}; no extension ${spread(st.mirrored.bare, ms)}` },
    );
    if (st.first) rows.push(
      { key: "agent_start_first_ratio", value: st.first.ratio, rounds: st.first.rounds, unit: "x", target: { op: "<=", value: 1.5 },
        detail: `the same 10 isolated at a first start (no record of the previous one: isolate() waits for every module it cannot read as registering only commands and handlers of events after the first request) ${spread(st.first.start, ms)} / ${floor}` },
      { key: "agent_start_20_first_ratio", value: st.first.twenty.ratio, rounds: st.first.twenty.rounds, unit: "x", target: { op: "<=", value: 1.5 },
        detail: `20 extensions (ten more of pi's examples) isolated at a first start ${spread(st.first.twenty.start, ms)} / 20 in pi's process ${spread(st.native20!, ms)}` },
      { key: "agent_start_changed_ratio", value: st.first.changed.ratio, rounds: st.first.changed.rounds, unit: "x",
        detail: `the 10 isolated after one of them (the guard) changed since the previous start: it is read from its source (a tool_call handler only), the nine are mirrored from their records ${spread(st.first.changed.start, ms)} / ${floor}` },
    );
    if (st.twenty) rows.push(
      { key: "agent_start_20_ratio", value: st.twenty.ratio, rounds: st.twenty.rounds, unit: "x",
        detail: `20 extensions, 20 isolated (worker) mirroring the previous start ${spread(st.twenty.isolated, ms)} / 20 in pi's process ${spread(st.native20!, ms)}` },
    );
    if (st.sandbox) rows.push(
      { key: "agent_start_sandbox_ratio", value: st.sandbox.ratio, rounds: st.sandbox.rounds, unit: "x",
        detail: `the same, 10 sandboxed ${spread(st.sandbox.start, ms)} / ${floor}` },
    );
    if (st.mirrored) rows.push(
      { key: "agent_run_isolated_ms", value: st.mirrored.isolatedTotal.median, unit: "ms",
        detail: `pi -p spawn to exit (two model turns, one bash tool call), 10 isolated ${spread(st.mirrored.isolatedTotal, ms)} / in pi's process ${spread(st.nativeTotal, ms)}` },
    );
  }
  const canSandbox = sandboxAvailability();
  if (wanted("tool_call")) await toolCallRows(pi, rows, canSandbox.ok);
  if (wanted("memory")) await memoryRows(rows, canSandbox);
  // A subset (--only) is for work on one figure: only a whole run is saved.
  report(rows, args.json, args.save && !args.quick && only === undefined ? "extension" : undefined);
}

async function toolCallRows(pi: Pi, rows: Row[], canSandbox: boolean): Promise<void> {
  progress("tool_call through pi's runner: isolated guard / the same guard in pi's process");
  const tc = await toolCall(pi, PLANS.rtt);
  rows.push({ key: "agent_tool_call_ratio", value: tc.ratio, rounds: tc.rounds, unit: "x",
    detail: `pi's emitToolCall, guard isolated (worker) ${spread(tc.isolated, us)} / the same guard in pi's process ${spread(tc.native, us)}` });
  if (canSandbox) {
    progress("tool_call through pi's runner: sandboxed guard / the same guard in process isolation");
    const sc = await sandboxToolCall(pi, { warmup: PLANS.rtt.warmup, iterations: Math.min(PLANS.rtt.iterations, 1000) });
    rows.push({ key: "agent_tool_call_sandbox_process_ratio", value: sc.ratio, rounds: sc.rounds, unit: "x", target: { op: "<=", value: 1.2 },
      detail: `pi's emitToolCall, guard sandboxed ${spread(sc.a, us)} / the same guard in process isolation ${spread(sc.b, us)}` });
  }
}

async function memoryRows(rows: Row[], canSandbox: { ok: boolean; reason?: string }): Promise<void> {
  progress(`memory per isolated extension over ${PLANS.workers} (worker) and ${PLANS.sandboxes} (process, sandbox), fresh processes`);
  const mb = (m: MemoryFigure) => `${describeMb(totalMb(m))} (host: private ${m.host.priv.toFixed(1)} MB; children: private ${m.children.priv.toFixed(1)} MB)`;
  // Paired readings in three fresh processes (memoryInChild). Read once per process, first thing, the bare floor alone
  // moved by more than a megabyte per thread, and the median of nine processes read 0.2 to 1.1 MB in runs of one build.
  const runs: MemoryFigure[] = [];
  for (let i = 0; i < (args.quick ? 1 : 3); i++) runs.push(...await memoryInFreshProcess("worker", PLANS.workers));
  const overhead = (m: MemoryFigure) => totalMb(m).priv - m.bare!.priv;
  const worker = [...runs].sort((a, b) => overhead(a) - overhead(b))[Math.floor(runs.length / 2)]!;
  const bare = worker.bare!;
  rows.push(
    { key: "extension_worker_overhead_mb", value: overhead(worker), rounds: runs.map(overhead), unit: "MB", target: { op: "<=", value: 1 },
      detail: `hookbox's own cost per worker extension: its private memory less a bare worker thread's (answers one message), both over ${PLANS.workers} in the same process, read in pairs side by side (order alternated), median of ${runs.length} pairs in ${args.quick ? 1 : 3} fresh processes: ${totalMb(worker).priv.toFixed(2)} - ${bare.priv.toFixed(2)} MB` },
    { key: "extension_worker_private_mb", value: totalMb(worker).priv, unit: "MB",
      detail: `gained per isolated extension (worker), over ${PLANS.workers}: ${mb(worker)}; a bare worker thread ${describeMb(bare)}` },
    { key: "extension_worker_pss_mb", value: totalMb(worker).pss, unit: "MB", detail: "the same, PSS" },
    { key: "extension_worker_rss_mb", value: totalMb(worker).rss, unit: "MB", target: { op: "<=", value: 15 }, detail: "the same, RSS" },
  );
  if (canSandbox.ok) {
    const [processed] = await memoryInFreshProcess("process", PLANS.sandboxes) as [MemoryFigure];
    rows.push({ key: "extension_process_private_mb", value: totalMb(processed).priv, unit: "MB",
      detail: `the same, process isolation, over ${PLANS.sandboxes}: ${mb(processed)}` });
    const [sandboxed] = await memoryInFreshProcess("sandbox", PLANS.sandboxes) as [MemoryFigure];
    rows.push(
      { key: "extension_sandbox_private_mb", value: totalMb(sandboxed).priv, unit: "MB", target: { op: "<=", value: 10 },
        detail: `the same, sandbox isolation, over ${PLANS.sandboxes}: ${mb(sandboxed)} (bwrap's monitor and init, node)` },
      { key: "extension_sandbox_pss_mb", value: totalMb(sandboxed).pss, unit: "MB", detail: "the same, PSS" },
      { key: "extension_sandbox_rss_mb", value: totalMb(sandboxed).rss, unit: "MB", target: { op: "<=", value: 50 }, detail: "the same, RSS" },
    );
  } else {
    progress(`sandbox figures skipped: ${canSandbox.reason}`);
  }
}

// Why a keep-alive: isolated workers are unref'd while idle (see bench/run.ts).
const keepAlive = setInterval(() => {}, 1 << 30);
try {
  await main();
} finally {
  clearInterval(keepAlive);
}
process.exit(0);
