/**
 * `npm run faults`: inject each fault kind into a real runner beside a healthy hook and print the
 * code reported, the time to detection, and whether the host and the other hook kept working;
 * then a soak with random faults. Figures, not assertions: the tests check the codes.
 *
 *   npm run faults -- --save     the rows, the soak and the machine saved to
 *                                bench/results/faults-<isolation>.json (npm run docs:faults)
 *   npm run faults -- 10000      a soak of 10 000 events
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { faultsTable, soakLine, type FaultResults, type FaultRow, type Soak } from "./lib/faults-table.js";
import { machine, resultsFile } from "./lib/table.js";
import { createModelRegistry, createSessionManager, HookRunner, createNoOpUIContext, loadHooks, type HookError, type ToolResultEvent } from "../src/index.js";

const f = (rel: string) => fileURLToPath(new URL(`../fixtures/${rel}`, import.meta.url));
/** `HOOKBOX_TEST_ISOLATION=process npm run faults` measures process mode (`sandbox`: inside bubblewrap). */
const ISOLATION = (process.env.HOOKBOX_TEST_ISOLATION ?? "worker") as "worker" | "process" | "sandbox";
const OPTIONS = { isolation: ISOLATION, deadlines: { default: 200 }, unresponsiveMs: 500, maxRestarts: 1_000, resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 } };
const turnStart = { type: "turn_start", turnIndex: 0, timestamp: 0 } as const;
const redact: ToolResultEvent = { type: "tool_result", toolName: "read", toolCallId: "r", input: {}, content: [{ type: "text", text: "API_KEY=k" }], isError: false };

interface Case {
  fault: string; fixture: string; fire: (r: HookRunner) => Promise<unknown>; slowUI?: boolean;
  /** Modes the case applies to (default all): a worker has no channel fd, and its host can be aborted by one giant post. */
  only?: Array<typeof ISOLATION>;
  policy?: object;
  /** Load options over the table's (a case that needs more memory to build its attack). */
  load?: object;
  /** What the hook got, for faults that are refusals rather than codes (`appended`: its pi.appendEntry calls). */
  observe?: (fired: unknown, appended: Array<[string, unknown]>) => string;
  /** How long to wait for the first report (default 3 s): a source that exhausts the transform thread's heap takes seconds of Babel first. */
  waitMs?: number;
  /** What the host paid, for faults aimed at a resource of the host (its memory). */
  measure?: () => string;
  /** Builds the hook's folder at run time (symbolic links), returning the hook's path; load failures are the code. */
  prepare?: () => string;
}
/** The host process's resident memory, its peak sampled every 5 ms from `start` to `read` (the transform thread lives in the host). */
const hostGrowth = {
  base: 0, peak: 0, timer: undefined as ReturnType<typeof setInterval> | undefined,
  start<T>(fired: T): T {
    this.base = this.peak = process.memoryUsage().rss;
    this.timer = setInterval(() => { this.peak = Math.max(this.peak, process.memoryUsage().rss); }, 5);
    return fired;
  },
  read(): string {
    clearInterval(this.timer);
    return `the host grew by at most ${Math.round((this.peak - this.base) / 2 ** 20)} MB`;
  },
};
/** A UI whose prompts take 1 ms to answer, so a flood of them queues. */
const slowUI = { ...createNoOpUIContext(), confirm: () => new Promise<boolean>((r) => setTimeout(() => r(false), 1)) };
const toolCall = (r: HookRunner) => r.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "c", input: { command: "ls" } });
/** A tool call the edit-polluting fixture answers by planting a key through `id`'s path. */
const protoCall = (id: string) => (r: HookRunner) => r.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: id, input: { command: "ls" } });
/** Whether any intrinsic gained a key (a refusal is the fault's whole effect). */
const prototype = () => [Object.prototype, Array.prototype].some((p) => Object.keys(p).length > 0) ? "a POLLUTED prototype" : "prototypes clean";
/** A hook whose node_modules links a package to a folder outside its roots, with a secret.key (test/host-linked-packages.test.ts). */
function linkedOutside(): string {
  const root = mkdtempSync(join(tmpdir(), "hookbox-faults-links-"));
  process.on("exit", () => rmSync(root, { recursive: true, force: true }));
  const hooks = join(root, "hooks");
  cpSync(f("hostile/linked-packages"), hooks, { recursive: true });
  const outside = join(root, "outside", "linked-secrets");
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, "package.json"), JSON.stringify({ name: "linked-secrets", type: "module", main: "index.js" }));
  writeFileSync(join(outside, "index.js"), "export const packageName = \"linked-secrets\";\n");
  writeFileSync(join(outside, "secret.key"), "secret");
  mkdirSync(join(hooks, "node_modules"));
  symlinkSync(outside, join(hooks, "node_modules", "linked-secrets"));
  return join(hooks, "imports-a-package-linked-outside.ts");
}
let netRecords = 0;
/** The grant of an untrusted hook's effects, without the sandbox it implies (so every mode runs it). */
const RESTRICT = { effects: "restrict" };
/** What the agent got back: its own value (nothing applied), or the hook's. */
const kept = (fired: unknown) => (fired === undefined ? "the agent's own value" : `CHANGED to ${JSON.stringify(fired).slice(0, 60)}`);
/** Messages the hooks sent to the agent in the current case. */
const sent: unknown[] = [];
const ALL_CASES: Case[] = [
  { fault: "handler throws", fixture: "faulty/throws-non-errors.ts", fire: (r) => r.emit(turnStart) },
  { fault: "sync loop in handler", fixture: "faulty/loops-forever-in-handler.ts", fire: toolCall },
  { fault: "handler never settles", fixture: "faulty/hangs-async.ts", fire: (r) => r.emit(turnStart) },
  { fault: "process.exit(7)", fixture: "faulty/exits-process.ts", fire: (r) => r.emit(turnStart) },
  { fault: "uncaught throw in timer", fixture: "faulty/throws-from-timer.ts", fire: (r) => r.emit(turnStart) },
  { fault: "unhandled rejection", fixture: "faulty/rejects-unhandled.ts", fire: (r) => r.emit(turnStart) },
  { fault: "heap exhausted", fixture: "faulty/exhausts-heap.ts", fire: (r) => r.emit(turnStart) },
  { fault: "invalid result", fixture: "hostile/returns-own-proto-key.ts", fire: toolCall },
  { fault: "refused in-place edit of a tool call's input", fixture: "hostile/edits-tool-input-to-a-string.ts", fire: toolCall },
  { fault: "oversized result", fixture: "faulty/returns-oversized-result.ts", fire: (r) => r.emit(redact) },
  { fault: "comlink walk on parentPort", fixture: "hostile/posts-comlink-walks.ts", fire: toolCall },
  { fault: "forged replies", fixture: "hostile/forges-replies.ts", fire: toolCall },
  { fault: "message flood", fixture: "hostile/floods-messages.ts", fire: (r) => r.emit(turnStart) },
  { fault: "forged manifest (4e9 handlers)", fixture: "hostile/forges-huge-manifest.ts", fire: (r) => r.emit(turnStart) },
  { fault: "forged waitForIdle to pause a deadline", fixture: "hostile/forges-deadline-pauses.ts", fire: toolCall },
  { fault: "command-only calls from tool_call", fixture: "hostile/calls-command-methods-outside-commands.ts", fire: toolCall },
  { fault: "result nested 5000 deep", fixture: "hostile/returns-non-json-results.ts", fire: (r) => r.emit({ ...redact, toolCallId: "deep" }) },
  { fault: "BigInt in a result", fixture: "hostile/returns-non-json-results.ts", fire: (r) => r.emit({ ...redact, toolCallId: "bigint" }) },
  { fault: "oversized sync argument", fixture: "hostile/sends-oversized-sync-arguments.ts", fire: toolCall },
  { fault: "5000 ui.confirm at once", fixture: "hostile/floods-prompts.ts", fire: (r) => r.emit(turnStart), slowUI: true },
  { fault: "150 000 malformed messages", fixture: "hostile/floods-malformed-messages.ts", fire: (r) => r.emit(turnStart) },
  { fault: "120 replies to a settled request", fixture: "hostile/replies-to-settled-requests.ts", fire: toolCall },
  { fault: "rewrites the transform cache", fixture: "hostile/rewrites-transform-cache.ts", fire: (r) => r.emit({ type: "session_start" }) },
  { fault: "malformed frame on the channel", fixture: "hostile/writes-malformed-frame.ts", fire: (r) => r.emit(turnStart), only: ["process", "sandbox"] },
  { fault: "frame nested 3000 deep", fixture: "hostile/writes-nested-frame.ts", fire: (r) => r.emit(turnStart), only: ["process", "sandbox"] },
  {
    fault: "one 200 MB message past the runtime", fixture: "hostile/posts-giant-message.ts", fire: (r) => r.emit(turnStart), only: ["process", "sandbox"],
    // Room to build the string: the attack is the post, not the allocation.
    load: { resourceLimits: { maxOldGenerationSizeMb: 1024, maxYoungGenerationSizeMb: 8 }, sandboxMemoryMb: 2048 },
  },
  { fault: "512 MiB to stdout", fixture: "hostile/floods-stdout.ts", fire: (r) => r.emit(turnStart) },
  { fault: "forged out-of-memory (code, stderr text)", fixture: "hostile/forges-out-of-memory.ts", fire: (r) => r.emit(turnStart) },
  { fault: "blocked in readSync(0)", fixture: "hostile/reads-stdin.ts", fire: (r) => r.emit(turnStart) },
  {
    fault: "pi.exec of `git -c alias.x=!sh` (allow: git with bounded args)", fixture: "hostile/plants-own-programs.ts",
    policy: { exec: { allow: [{ command: "git", args: ["status"] }] } },
    fire: (r) => r.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "c", input: { command: "git", args: ["-c", "alias.x=!id", "x"] } }),
    observe: (fired) => String((fired as { reason?: string } | undefined)?.reason ?? "").slice(0, 60),
  },
  // Prototype keys a hook sends, in edits, results and bridge arguments.
  { fault: "edit of tool input with own __proto__", fixture: "hostile/pollutes-prototype-through-edits.ts", fire: protoCall("proto"), observe: prototype },
  { fault: "edit of tool input with constructor.prototype", fixture: "hostile/pollutes-prototype-through-edits.ts", fire: protoCall("constructor"), observe: prototype },
  { fault: "context messages with __proto__ (chained value)", fixture: "hostile/pollutes-prototype-through-results.ts", fire: (r) => r.emitContext([{ role: "user", content: "hi", timestamp: 1 }] as never), observe: prototype },
  { fault: "result details with __proto__", fixture: "hostile/pollutes-prototype-through-results.ts", fire: (r) => r.emit({ ...redact, toolCallId: "x" }), observe: prototype },
  { fault: "bridge arguments with __proto__", fixture: "hostile/pollutes-prototype-through-bridge.ts", fire: (r) => r.emit(turnStart), observe: prototype },
  // pi.exec's working directory, and the walls of every sandbox (seccomp, processes, memory).
  {
    fault: "pi.exec in cwd / (outside its reads)", fixture: "hostile/execs-where-it-chooses.ts", policy: { exec: { allow: ["pwd"] } },
    fire: (r) => r.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "c", input: { command: "pwd", args: [], cwd: "/" } }),
    observe: reason(60),
  },
  {
    fault: "unshare -Ur in pi.exec", fixture: "hostile/breaks-its-sandbox-walls.ts", only: ["sandbox"], policy: { permissionModel: false, exec: { allow: ["unshare"] } },
    fire: (r) => r.emitToolCall(walls("unshare", ["-Ur", "true"])), observe: reason(90),
  },
  {
    fault: "fork bomb in pi.exec", fixture: "hostile/breaks-its-sandbox-walls.ts", only: ["sandbox"], policy: { permissionModel: false, exec: { allow: ["perl"] } },
    fire: (r) => r.emitToolCall(walls("perl", ["-e", "my $n = 0; my @k; while ($n < 400) { my $p = fork(); last unless defined $p; if ($p == 0) { sleep 60; exit 0 } push @k, $p; $n++ } my $e = 0 + $!; kill 9, @k; print \"forks $n errno $e\";"])),
    observe: reason(90),
  },
  {
    fault: "pi.exec fills /tmp past sandboxMemoryMb", fixture: "hostile/breaks-its-sandbox-walls.ts", only: ["sandbox"], policy: { permissionModel: false, exec: { allow: ["dd"] } },
    // Room for dd to reach the bound before the event's deadline.
    load: { sandboxMemoryMb: 128, deadlines: { default: 20_000 } },
    fire: (r) => r.emitToolCall(walls("dd", ["if=/dev/zero", "of=/tmp/fill", "bs=1M", "count=400"])), observe: reason(60)
  },
  // A package linked out of the hook's read grants, and floods of what a hook can make the host do.
  { fault: "imports a package linked out of its roots (secret.key beside it)", fixture: "hostile/linked-packages/imports-a-package-linked-outside.ts", prepare: linkedOutside, fire: toolCall },
  { fault: "stdout flood without waiting (256 MiB, 200 000 lines)", fixture: "hostile/floods-stdout-without-waiting.ts", fire: (r) => r.emit(turnStart) },
  { fault: "4000 log lines in a burst", fixture: "hostile/floods-log-lines.ts", fire: (r) => r.emit(turnStart) },
  {
    fault: "crashes paced around the short restart window", fixture: "hostile/paces-crashes-around-the-restart-window.ts",
    // Two crashes 1.6 s after each load: the second passes the short window but not the long one.
    fire: () => new Promise((r) => setTimeout(r, 4_500)),
    load: { maxRestarts: 3, restartWindowMs: 1_000, maxLongRestarts: 1, longRestartWindowMs: 60_000 },
  },
  {
    fault: "300 refused proxy requests (onNet flood)", fixture: "hostile/floods-net-records.ts", only: ["sandbox"],
    policy: { network: { allow: ["127.0.0.1:1"] } }, load: { onNet: () => { netRecords++; } },
    fire: (r) => r.emitToolCall({ type: "tool_call", toolName: "net", toolCallId: "c", input: { url: "http://127.0.0.1:9/", count: 300 } }),
    observe: () => `${netRecords} onNet records`,
  },
  // Hook text bound for the embedder's UI and terminal, renderers, transforms and the model registry.
  {
    fault: "terminal control sequences in a block reason (OSC 52, CSI 2J, C1 CSI)", fixture: "hostile/writes-terminal-control-sequences.ts", fire: toolCall,
    observe: (fired) => `reason ${JSON.stringify((fired as { reason?: string } | undefined)?.reason ?? "")}`,
  },
  { fault: "60 M characters per render, 4 renders", fixture: "hostile/renders-huge-lines.ts", fire: async (r) => render(r, "huge", 4), only: ["worker"], load: { renderTimeoutMs: 5_000 } },
  { fault: "85 ms renderer (100 ms timeout) rendered 30 times", fixture: "hostile/renders-slowly-under-the-timeout.ts", fire: async (r) => render(r, "slow", 30), only: ["worker"] },
  {
    fault: "900 K-character transforms from a timer", fixture: "hostile/floods-transform-requests.ts", fire: (r) => r.emit(turnStart),
    load: { maxMessageBytes: 16 * 1024 * 1024, transformBudget: { characters: 1_000_000 } },
  },
  {
    // The message bound at its default, so that it is the bound of one file that refuses them.
    fault: "six 7.9 M-character transforms from a timer", fixture: "hostile/floods-transform-thread-memory.ts", fire: (r) => hostGrowth.start(r.emit(turnStart)),
    load: { maxMessageBytes: 16 * 1024 * 1024 }, measure: () => hostGrowth.read(),
  },
  {
    fault: "a 1 M-character source that needs more than the transform thread's heap", fixture: "hostile/exhausts-transform-heap.ts",
    fire: (r) => hostGrowth.start(r.emit(turnStart)), load: { maxMessageBytes: 16 * 1024 * 1024 }, measure: () => hostGrowth.read(), waitMs: 30_000,
  },
  // Effects on the agent above the hook's grant (policy.effects "restrict", as the untrusted preset): refused, the agent's value kept.
  { fault: "rewrites the bash command in place (effects: restrict)", fixture: "hostile/rewrites-bash-command.ts", policy: RESTRICT, fire: toolCall, observe: (fired) => `blocked ${String((fired as { block?: boolean } | undefined)?.block)}` },
  { fault: "rewrites a tool result (effects: restrict)", fixture: "hostile/rewrites-tool-result.ts", policy: RESTRICT, fire: (r) => r.emit({ ...redact, content: [{ type: "text", text: "ok" }] }),
    // The healthy hook after it answers too (its redaction of "ok" is "ok").
    observe: (fired) => `the model reads ${JSON.stringify((fired as { content?: Array<{ text?: string }> } | undefined)?.content?.[0]?.text ?? "ok")}` },
  { fault: "adds a context message (effects: restrict)", fixture: "hostile/injects-context-message.ts", policy: RESTRICT, fire: (r) => r.emitContext([{ role: "user", content: "hi", timestamp: 1 }] as never), observe: (fired) => `${(fired as unknown[]).length} message(s)` },
  { fault: "rewrites the system prompt (effects: restrict)", fixture: "hostile/rewrites-system-prompt.ts", policy: RESTRICT, fire: (r) => r.emitBeforeAgentStart("do it", undefined, "be brief"), observe: kept },
  { fault: "transforms the user's input (effects: restrict)", fixture: "hostile/transforms-input.ts", policy: RESTRICT, fire: (r) => r.emit({ type: "input", text: "hi", source: "interactive" }), observe: (fired) => `action ${(fired as { action: string }).action}` },
  { fault: "rewrites the provider payload (effects: restrict)", fixture: "hostile/rewrites-provider-payload.ts", policy: RESTRICT, fire: (r) => r.emit({ type: "before_provider_request", payload: { model: "m", messages: [] } }), observe: kept },
  { fault: "sends a message to the agent (effects: restrict)", fixture: "hostile/sends-messages-to-the-agent.ts", policy: RESTRICT, fire: (r) => r.emit(turnStart), observe: () => `${sent.length} message(s) sent` },
  {
    fault: "reads and sets model registry keys (confined)", fixture: "hostile/reads-model-registry-keys.ts", fire: (r) => r.emit(turnStart),
    observe: (_fired, appended) => Object.entries((appended[0]?.[1] ?? {}) as Record<string, { refused?: string }>).filter(([, o]) => o.refused).map(([m]) => m).join(" ") + " refused",
  },
];

/** A program run by hostile/breaks-its-sandbox-walls.ts with pi.exec, in the hook's own folder (where it may run programs). */
function walls(command: string, args: string[]) {
  return { type: "tool_call" as const, toolName: "bash", toolCallId: "c", input: { how: "exec", command, args, cwd: f("hostile") } };
}
function reason(n: number) {
  return (fired: unknown) => String((fired as { reason?: string } | undefined)?.reason ?? "").slice(0, n);
}

/** Render a message of `customType` `times` times, as a TUI would; the lines' total length. */
function render(r: HookRunner, customType: string, times: number): number {
  const component = r.getMessageRenderer(customType)?.({ role: "custom", customType, content: "", display: true, timestamp: 0 }, { expanded: false }, createNoOpUIContext().theme);
  let chars = 0;
  for (let i = 0; i < times; i++) for (const line of component?.render(80) ?? []) chars += line.length;
  return chars;
}

/** `FAULT=<text> npm run faults` runs only the cases whose name contains it. */
const CASES = ALL_CASES.filter((c) => !process.env.FAULT || c.fault.includes(process.env.FAULT));

async function runCase(c: Case): Promise<FaultRow> {
  // The case's policy is the faulty hook's; the healthy one keeps the default.
  const faulty = await loadHooks([c.prepare?.() ?? f(c.fixture)], process.cwd(), { ...OPTIONS, maxMessageBytes: 1_000_000, ...(c.policy ? { policy: c.policy } : {}), ...c.load });
  const healthy = await loadHooks([f("valid/redacts-api-key.ts")], process.cwd(), { ...OPTIONS, maxMessageBytes: 1_000_000, ...c.load });
  const hooks = [...faulty.hooks, ...healthy.hooks];
  const loadErrors = [...faulty.errors, ...healthy.errors];
  sent.length = 0;
  // A registry holding a key, so that the model-registry case shows what a hook can (not) reach.
  const runner = new HookRunner(hooks, process.cwd(), createSessionManager(), createModelRegistry([], { openai: "sk-host" }));
  const appended: Array<[string, unknown]> = [];
  runner.initialize({ getModel: () => undefined, sendMessageHandler: (m) => { sent.push(m); }, appendEntryHandler: (t, d) => { appended.push([t, d]); }, ...(c.slowUI ? { hasUI: true, uiContext: slowUI } : {}) });
  const errors: Array<HookError & { at: number }> = [];
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const t0 = performance.now();
  runner.onError((e) => errors.push({ ...e, at: performance.now() - t0 }));
  for (const e of loadErrors) errors.push({ hookPath: e.path, event: "load", error: e.error, code: e.code, at: 0 });
  const fired = await c.fire(runner).catch(() => undefined);
  const deadline = performance.now() + (c.waitMs ?? 3_000);
  while (errors.length === 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  // Follow-up reports (a timed-out loop is then found unresponsive) come within unresponsiveMs.
  await new Promise((r) => setTimeout(r, OPTIONS.unresponsiveMs + 200));
  const other = String(JSON.stringify(await runner.emit(redact))).includes("[REDACTED]");
  lag.disable();
  const d0 = performance.now();
  await runner.dispose();
  const disposeMs = performance.now() - d0;
  const codes = [...new Set(errors.map((e) => e.code))].join(", ") || "(none)";
  const code = c.measure ? `${codes}; ${c.measure()}` : codes;
  const round = (v: number) => Math.round(v * 10) / 10;
  return {
    fault: c.fault, code: c.observe ? `${code}; hook got: ${c.observe(fired, appended)}` : code,
    detectedMs: errors[0] ? round(errors[0].at) : null, hostLagMs: round(lag.max / 1e6), otherHookOk: other, disposeMs: round(disposeMs),
  };
}

const SOAK_DEADLINE_MS = 100;
async function soak(events: number): Promise<Soak> {
  const { hooks } = await loadHooks([f("valid/sends-sequence.ts"), f("faulty/fails-on-command.ts")], process.cwd(), { ...OPTIONS, deadlines: { tool_call: SOAK_DEADLINE_MS } });
  const runner = new HookRunner(hooks, process.cwd(), createSessionManager(), {} as never);
  const sent: number[] = [];
  let faults = 0;
  const worst = { ms: 0 };
  runner.initialize({ getModel: () => undefined, sendMessageHandler: (m) => { sent.push(Number(m.content)); }, appendEntryHandler: () => {} });
  const kinds = ["throw", "hang", "exit", "invalid"];
  let settled = 0;
  for (let seq = 0; seq < events; seq++) {
    const fault = seq % 17 === 0 ? kinds[(seq / 17) % kinds.length] : undefined;
    if (fault) faults++;
    const t = performance.now();
    await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: `c${seq}`, input: { seq, fault } }).catch(() => {});
    worst.ms = Math.max(worst.ms, performance.now() - t);
    settled++;
  }
  await runner.dispose();
  const lost = events - new Set(sent).size;
  const inOrder = sent.every((v, i) => v === i);
  return { events, faultsInjected: faults, settled, lost, inOrder, worstSettleMs: Math.round(worst.ms), deadlineMs: SOAK_DEADLINE_MS };
}

const args = parseArgs({ options: { save: { type: "boolean", default: false } }, allowPositionals: true });
// A subset saved would drop the other rows from the document.
if (args.values.save && process.env.FAULT) throw new Error("--save records every case: run it without FAULT");
const rows: FaultRow[] = [];
for (const c of CASES) if (!c.only || c.only.includes(ISOLATION)) rows.push(await runCase(c));
console.log(`isolation: ${ISOLATION}\n`);
console.log(faultsTable(rows));
const s = await soak(Number(args.positionals[0] ?? 3_000));
console.log(`\n${soakLine(s)}`);
if (args.values.save) {
  const bench = `faults-${ISOLATION}`;
  const results: FaultResults = { bench, isolation: ISOLATION, machine: machine(), rows, soak: s };
  mkdirSync(dirname(resultsFile(bench)), { recursive: true });
  writeFileSync(resultsFile(bench), `${JSON.stringify(results, null, 1)}\n`);
  console.error(`saved ${resultsFile(bench)}; npm run docs:faults regenerates docs/faults.md`);
}
