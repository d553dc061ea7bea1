// Run by observe-audit-log.test.ts: a runner over a real hook whose records go to the audit log in
// argv[2]; after argv[3] tool calls it says so on stdout and waits to be killed (SIGKILL).
import { join } from "node:path";
import { HookRunner, createModelRegistry, createSessionManager, loadHooks } from "../../src/index.js";
import { AuditLog } from "../../src/observe/audit-log.js";

const [dir, count] = process.argv.slice(2) as [string, string];
const root = new URL("../..", import.meta.url).pathname;
const { hooks } = await loadHooks([join(root, "fixtures/valid/blocks-rm-rf.ts")], root);
const runner = new HookRunner(hooks, root, createSessionManager(), createModelRegistry());
const log = new AuditLog({ dir });
runner.onRecord((r) => log.append(r));
for (let i = 0; i < Number(count); i++) await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: `kill-${i}`, input: { command: "rm -rf /" } });
process.stdout.write("written\n");
setInterval(() => {}, 1_000);
