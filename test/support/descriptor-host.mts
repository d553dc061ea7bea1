// A host of its own for the descriptor and terminal rows of docs/confinement.md's threat table, run
// by test/threats-descriptors.test.ts as a program started with descriptors it inherited without
// close-on-exec (fd 9 and fd 30) and, under `script`, a controlling terminal.
// argv: <report file> <mode:policy,…> (policy: confined | off, Node's permission model off).
// It loads fixtures/hostile/attacks-its-host.ts in each, asks each probe and writes one JSON
// report: { "<mode>:<policy>": { <probe>: answer } }.
import { openSync, writeFileSync } from "node:fs";
import { createModelRegistry, createSessionManager, HookRunner, loadHooks } from "../../src/index.js";

const [report, runs] = process.argv.slice(2) as [string, string];
const hook = new URL("../../fixtures/hostile/attacks-its-host.ts", import.meta.url).pathname;
// A descriptor the host opened itself: Node opens every file close-on-exec.
const own = openSync(hook, "r");
const out: Record<string, Record<string, unknown>> = {};
for (const run of runs.split(",")) {
  const [isolation, policy] = run.split(":") as ["worker" | "process" | "sandbox", "confined" | "off"];
  const { hooks, errors } = await loadHooks([hook], process.cwd(), { isolation, ...(policy === "off" ? { policy: { permissionModel: false } } : {}) });
  if (errors.length) throw new Error(`${run}: ${JSON.stringify(errors)}`);
  const runner = new HookRunner(hooks, process.cwd(), createSessionManager(), createModelRegistry());
  runner.initialize({ getModel: () => undefined, sendMessageHandler: () => {}, appendEntryHandler: () => {} });
  const ask = async (probe: string, arg?: string) =>
    JSON.parse((await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: probe, input: { probe, arg } }))!.reason!);
  out[run] = {
    low: await ask("read-fd", "9"),
    high: await ask("read-fd", "30"),
    own: await ask("read-fd", String(own)),
    tty: await ask("tty"),
    isatty: await ask("isatty"),
  };
  await runner.dispose();
}
writeFileSync(report, JSON.stringify(out));
process.exit(0);
