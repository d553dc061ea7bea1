// Loads hooks, runs events (some failing), disposes, then prints what is still keeping the
// process alive. Run as a child process by host-soak.test.ts; it must exit by itself.
import { createSessionManager, HookRunner, loadHooks } from "../../src/index.js";

const f = (rel: string) => new URL(`../../fixtures/${rel}`, import.meta.url).pathname;
const { hooks } = await loadHooks([f("valid/sends-sequence.ts"), f("faulty/fails-on-command.ts"), f("faulty/hangs-async.ts")], process.cwd(), { deadlines: { default: 50 } });
const runner = new HookRunner(hooks, process.cwd(), createSessionManager(), {} as never);
runner.initialize({ getModel: () => undefined, sendMessageHandler: () => {}, appendEntryHandler: () => {} });
for (let seq = 0; seq < 50; seq++) {
  await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: `c${seq}`, input: { seq, fault: seq % 10 === 3 ? "exit" : seq % 10 === 5 ? "hang" : undefined } }).catch(() => {});
}
await runner.dispose();
await runner.dispose();
console.log(JSON.stringify({ states: hooks.map((h) => h.sandbox?.state), resources: process.getActiveResourcesInfo() }));
