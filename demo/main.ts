/**
 * `npm start`: a short scripted agent session over example hooks, each in its own worker thread.
 * It shows a blocked `rm -rf`, a redacted read, a filtered context, and then four hooks that
 * misbehave (throw, crash, hang, spin) while the host keeps going. Ends in a few seconds by itself.
 */
import { fileURLToPath } from "node:url";
import { HookRunner, HookToolWrapper, createModelRegistry, createSessionManager, loadHooks, type AgentMessage, type AgentTool, type HookError, type LoadedHook } from "../src/index.js";
import { statsTable } from "../src/cli/render.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const HOOKS = [
  "fixtures/valid/blocks-rm-rf.ts",
  "fixtures/valid/redacts-api-key.ts",
  "fixtures/valid/drops-debug-messages.ts",
  "demo/hooks/throws-on-agent-start.ts",
  "demo/hooks/crashes-on-turn-end.ts",
  "demo/hooks/hangs-on-compact.ts",
  "demo/hooks/spins-on-todo-reminder.ts",
];

const started = performance.now();
const elapsed = () => `${Math.round(performance.now() - started)} ms`.padStart(7);
const say = (text: string) => console.log(`[${elapsed()}] ${text}`);
const indent = (text: string) => console.log(`            ${text}`);

const errors: HookError[] = [];
const showErrors = () => {
  for (const e of errors.splice(0)) indent(`HookError ${e.code} from ${e.hookPath}: ${e.error}`);
};

/** Resolve once the hook at `path` is back to `ready` after a restart. */
function restarted(hook: LoadedHook): Promise<void> {
  return new Promise((resolve) => {
    const off = hook.sandbox!.listen({ state: (s) => { if (s === "ready") { off(); resolve(); } } });
  });
}

console.log("hookbox demo: every hook below runs in its own worker thread; the host only sees validated results.\n");

const { hooks, errors: loadErrors } = await loadHooks(HOOKS, ROOT, {
  // Small limits so the faults show up quickly (defaults: 30 s deadline, 3 s unresponsive).
  deadlines: { default: 300 },
  unresponsiveMs: 500,
});
if (loadErrors.length > 0) throw new Error(`demo hooks failed to load: ${JSON.stringify(loadErrors)}`);
say(`loaded ${hooks.length} hooks, one worker each:`);
for (const h of hooks) indent(h.path);

const runner = new HookRunner(hooks, ROOT, createSessionManager({ cwd: ROOT }), createModelRegistry());
runner.onError((e) => errors.push(e));
runner.initialize({ getModel: () => undefined, sendMessageHandler: () => {}, appendEntryHandler: () => {} });

const bash = new HookToolWrapper({
  name: "bash",
  execute: async (_id, params) => ({ content: [{ type: "text", text: `$ ${String(params.command)}\n(ran)` }] }),
} as AgentTool, runner);
const read = new HookToolWrapper({
  name: "read",
  execute: async () => ({ content: [{ type: "text", text: "API_KEY=sk-live-8f2c41 DEBUG=1" }] }),
} as AgentTool, runner);

console.log("\n-- the agent's session --");

say("agent_start: a hook throws");
await runner.emit({ type: "agent_start" });
showErrors();

say("tool call: bash `rm -rf build/`");
try {
  await bash.execute("call-1", { command: "rm -rf build/" });
  indent("ran (unexpected)");
} catch (err) {
  indent(`BLOCKED before it ran: ${(err as Error).message}`);
}

say("tool call: read .env (the file holds API_KEY=sk-live-8f2c41)");
const result = await read.execute("call-2", { path: ".env" });
indent(`the agent sees: ${JSON.stringify((result.content[0] as { text: string }).text)}`);

say("context: 3 messages before the LLM call, one of them debug-only");
const messages = await runner.emitContext([
  { role: "user", content: "clean up the build folder", timestamp: 1 },
  { role: "custom", customType: "debug-only", content: "trace: 42 tokens", display: false, timestamp: 2 },
  { role: "assistant", content: [{ type: "text", text: "I will list it first." }] } as AgentMessage,
]);
indent(`the LLM gets ${messages.length}: ${messages.map((m) => m.role).join(", ")}`);

say("turn_end: a hook calls process.exit(3)");
const crashing = hooks.find((h) => h.path.includes("crashes-on-turn-end"))!;
const back = restarted(crashing);
await runner.emit({ type: "turn_end", turnIndex: 0, message: { role: "assistant", content: [{ type: "text", text: "done" }] } as AgentMessage, toolResults: [] });
showErrors();
await back;
say(`  its worker was restarted (state ${crashing.sandbox!.state}, restarts ${crashing.sandbox!.restarts}); turn 1 runs through it:`);
await runner.emit({ type: "turn_end", turnIndex: 1, message: { role: "assistant", content: [{ type: "text", text: "done" }] } as AgentMessage, toolResults: [] });
indent(errors.length === 0 ? "no error" : `${errors.length} error(s)`);
showErrors();

say("session_before_compact: a hook never settles");
const compact = await runner.emit({
  type: "session_before_compact", branchEntries: [], signal: new AbortController().signal,
  preparation: { firstKeptEntryId: "e1", messagesToSummarize: [], turnPrefixMessages: [], recentMessages: [], isSplitTurn: false, tokensBefore: 9000, fileOps: {}, settings: {} },
});
showErrors();
indent(`compaction goes ahead (result: ${JSON.stringify(compact ?? null)})`);

say("todo_reminder: a hook spins in a synchronous loop");
const spinning = hooks.find((h) => h.path.includes("spins-on-todo-reminder"))!;
const unstuck = restarted(spinning);
await runner.emit({ type: "todo_reminder", todos: [{ id: "1", content: "write tests", status: "pending" }], attempt: 1, maxAttempts: 3 });
await unstuck;
showErrors();
indent(`its worker was terminated and restarted (state ${spinning.sandbox!.state}, restarts ${spinning.sandbox!.restarts})`);

say("tool call: bash `ls build/` (the host is still fine)");
const ls = await bash.execute("call-3", { command: "ls build/" });
indent(`ran: ${JSON.stringify((ls.content[0] as { text: string }).text)}`);

console.log("\n-- runner.stats() --");
process.stdout.write(statsTable(runner.stats()));

await runner.dispose();
say("runner disposed: every worker ended; the host never crashed.");
