// Loads one fixture with isolation "sandbox" where no cgroup can be made (sandbox-walls.test.ts runs
// it under an empty tmpfs over /sys/fs/cgroup) and prints what the host reports: loadHooks'
// warnings, the hook's bounds, runner.stats()'s bounds, and whether a tool_call still runs; then
// what a hook of 128 MiB (Node's permission model off: the sandbox alone must hold) that writes 144 MiB into the sandbox's /dev/shm, and a byte into /dev, was given.
import { createSessionManager, HookRunner, loadHooks } from "../../src/index.js";

const fixture = new URL("../../fixtures/valid/returns-empty-result.ts", import.meta.url).pathname;
const { hooks, errors, warnings } = await loadHooks([fixture], process.cwd(), { isolation: "sandbox" });
const runner = new HookRunner(hooks, process.cwd(), createSessionManager(), {} as never);
runner.initialize({ getModel: () => undefined, sendMessageHandler: () => {}, appendEntryHandler: () => {} });
const answered = await runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 0 }).then(() => true, () => false);
await runner.dispose();

const filler = new URL("../../fixtures/hostile/fills-the-sandboxs-dev.ts", import.meta.url).pathname;
const fill = await loadHooks([filler], process.cwd(), { isolation: "sandbox", sandboxMemoryMb: 128, policy: { permissionModel: false } });
const fills = new HookRunner(fill.hooks, process.cwd(), createSessionManager(), {} as never);
fills.initialize({ getModel: () => undefined, sendMessageHandler: () => {}, appendEntryHandler: () => {} });
const filled = await fills.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "f", input: { mb: 144 } });
await fills.dispose();
process.stdout.write(JSON.stringify({ errors, warnings, bounds: hooks[0]?.sandbox?.bounds, stats: runner.stats()[0]?.bounds, answered, dev: filled?.reason ? JSON.parse(filled.reason) : { filled, errors: fill.errors } }));
