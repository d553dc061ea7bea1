// A host of its own for one hostile fixture, run as a child process by host-transport.test.ts:
// argv: <fixture under fixtures/> <isolation> <scenario: flood | stdin | typed>. It prints one JSON
// line of what it saw, and nothing else must reach its stdout. `typed`: its stdin holds the user's
// input; after the hook's turn_start it reads what is left of it (`hostRead`).
import { createModelRegistry, createSessionManager, HookRunner, loadHooks } from "../../src/index.js";

const [rel, isolation, scenario] = process.argv.slice(2) as [string, "worker" | "process" | "sandbox", string];
const file = new URL(`../../fixtures/${rel}`, import.meta.url).pathname;
const seen = { stdout: 0, stderr: 0, bytes: 0, first: [] as string[], cut: false, dropped: false };
let maxRss = process.memoryUsage().rss;
// The host's event-loop lag: how late a 10 ms timer fires, at most (a stdout flood once lagged the host 1.6 s).
let maxLagMs = 0;
let last = performance.now();
const sampler = setInterval(() => {
  const now = performance.now();
  maxLagMs = Math.max(maxLagMs, now - last - 10);
  last = now;
  maxRss = Math.max(maxRss, process.memoryUsage().rss);
}, 10);
const { hooks, errors } = await loadHooks([file], process.cwd(), {
  isolation,
  // The Bun job's worker project runs every load `trusted`, the one policy a Bun worker runs (test/support/isolation.ts).
  ...(process.env.HOOKBOX_TEST_POLICY ? { policy: process.env.HOOKBOX_TEST_POLICY as "trusted" } : {}),
  deadlines: { default: 60_000 },
  unresponsiveMs: 60_000,
  onLog: (_hook, level, line) => {
    if (level !== "stdout" && level !== "stderr") return;
    seen[level]++;
    seen.bytes += line.length;
    if (seen.first.length < 4) seen.first.push(`${level}: ${line.slice(0, 40)}`);
    if (line.includes("[hookbox: line cut]")) seen.cut = true;
    if (line.includes("dropped")) seen.dropped = true;
  },
});
const runner = new HookRunner(hooks, process.cwd(), createSessionManager(), createModelRegistry());
const messages: unknown[] = [];
runner.initialize({ getModel: () => undefined, sendMessageHandler: (m) => messages.push(m.content), appendEntryHandler: () => {} });
const turnStart = { type: "turn_start" as const, turnIndex: 0, timestamp: Date.now() };
let disposeMs: number | undefined;
let hostRead: string | undefined;
if (scenario === "flood") {
  await runner.emit(turnStart);
  await new Promise((r) => setTimeout(r, 1_100));
  await runner.dispose();
} else if (scenario === "typed") {
  await runner.emit(turnStart);
  await runner.dispose();
  hostRead = "";
  process.stdin.setEncoding("utf8");
  for await (const chunk of process.stdin) hostRead += chunk;
} else {
  void runner.emit(turnStart).catch(() => {});
  await new Promise((r) => setTimeout(r, 500));
  const t0 = Date.now();
  await runner.dispose();
  disposeMs = Date.now() - t0;
}
clearInterval(sampler);
maxRss = Math.max(maxRss, process.memoryUsage().rss);
process.stdout.write(`${JSON.stringify({ seen, maxRssMb: Math.round(maxRss / 2 ** 20), maxLagMs: Math.round(maxLagMs), disposeMs, hostRead, messages, errors: errors.map((e) => e.code) })}\n`);
// Why exit: a worker stuck in readSync(0) keeps Node from exiting (it joins the thread); the test ends this process.
process.exit(0);
