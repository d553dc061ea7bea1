// Loads one fixture with isolation "sandbox" where no cgroup can be made (sandbox-walls.test.ts runs
// it under an empty tmpfs over /sys/fs/cgroup) and prints what the host reports: loadHooks'
// warnings, the hook's bounds, runner.stats()'s bounds, and whether a tool_call still runs.
import { createSessionManager, HookRunner, loadHooks } from "../../src/index.js";

const fixture = new URL("../../fixtures/valid/returns-empty-result.ts", import.meta.url).pathname;
const { hooks, errors, warnings } = await loadHooks([fixture], process.cwd(), { isolation: "sandbox" });
const runner = new HookRunner(hooks, process.cwd(), createSessionManager(), {} as never);
runner.initialize({ getModel: () => undefined, sendMessageHandler: () => {}, appendEntryHandler: () => {} });
const answered = await runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 0 }).then(() => true, () => false);
process.stdout.write(JSON.stringify({ errors, warnings, bounds: hooks[0]?.sandbox?.bounds, stats: runner.stats()[0]?.bounds, answered }));
await runner.dispose();
