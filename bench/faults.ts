/**
 * `npm run faults`: inject each fault kind into a real runner beside a healthy hook and print the
 * code reported, the time to detection, and whether the host and the other hook kept working;
 * then a soak with random faults. Figures, not assertions: the tests check the codes.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createSessionManager, HookRunner, createNoOpUIContext, loadHooks, type HookError, type ToolResultEvent } from "../src/index.js";

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
  /** What the hook got, for faults that are refusals rather than codes. */
  observe?: (fired: unknown) => string;
}
/** A UI whose prompts take 1 ms to answer, so a flood of them queues. */
const slowUI = { ...createNoOpUIContext(), confirm: () => new Promise<boolean>((r) => setTimeout(() => r(false), 1)) };
const toolCall = (r: HookRunner) => r.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "c", input: { command: "ls" } });
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
];

/** `FAULT=<text> npm run faults` runs only the cases whose name contains it. */
const CASES = ALL_CASES.filter((c) => !process.env.FAULT || c.fault.includes(process.env.FAULT));

async function runCase(c: Case) {
  const { hooks } = await loadHooks([f(c.fixture), f("valid/redacts-api-key.ts")], process.cwd(), { ...OPTIONS, maxMessageBytes: 1_000_000, ...(c.policy ? { policy: c.policy } : {}), ...c.load });
  const runner = new HookRunner(hooks, process.cwd(), createSessionManager(), {} as never);
  runner.initialize({ getModel: () => undefined, sendMessageHandler: () => {}, appendEntryHandler: () => {}, ...(c.slowUI ? { hasUI: true, uiContext: slowUI } : {}) });
  const errors: Array<HookError & { at: number }> = [];
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const t0 = performance.now();
  runner.onError((e) => errors.push({ ...e, at: performance.now() - t0 }));
  const fired = await c.fire(runner).catch(() => undefined);
  const deadline = performance.now() + 3_000;
  while (errors.length === 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  // Follow-up reports (a timed-out loop is then found unresponsive) come within unresponsiveMs.
  await new Promise((r) => setTimeout(r, OPTIONS.unresponsiveMs + 200));
  const other = String(JSON.stringify(await runner.emit(redact))).includes("[REDACTED]");
  lag.disable();
  const d0 = performance.now();
  await runner.dispose();
  const disposeMs = performance.now() - d0;
  const code = [...new Set(errors.map((e) => e.code))].join(", ") || "(none)";
  return { fault: c.fault, code: c.observe ? `${code}; hook got: ${c.observe(fired)}` : code, detectedMs: errors[0]?.at ?? NaN, hostLagMs: lag.max / 1e6, otherHookOk: other, disposeMs };
}

async function soak(events: number) {
  const { hooks } = await loadHooks([f("valid/sends-sequence.ts"), f("faulty/fails-on-command.ts")], process.cwd(), { ...OPTIONS, deadlines: { tool_call: 100 } });
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
  return { events, faultsInjected: faults, settled, lost, inOrder, worstSettleMs: Math.round(worst.ms) };
}

const rows = [];
for (const c of CASES) if (!c.only || c.only.includes(ISOLATION)) rows.push(await runCase(c));
console.log(`isolation: ${ISOLATION}\n`);
console.log("| fault | code reported | detected after | host's worst event-loop lag | other hook answered after | dispose took |");
console.log("| --- | --- | --- | --- | --- | --- |");
for (const r of rows) console.log(`| ${r.fault} | \`${r.code}\` | ${Number.isNaN(r.detectedMs) ? "-" : `${r.detectedMs.toFixed(0)} ms`} | ${r.hostLagMs.toFixed(0)} ms | ${r.otherHookOk ? "yes" : "no"} | ${r.disposeMs.toFixed(0)} ms |`);
const s = await soak(Number(process.argv[2] ?? 3_000));
console.log(`\nsoak: ${s.events} events, ${s.faultsInjected} faults injected, ${s.settled} settled, lost = ${s.lost}, in order: ${s.inOrder ? "yes" : "no"}, slowest emit ${s.worstSettleMs} ms (tool_call deadline 100 ms)`);
