/**
 * Each example's outcome: both runs made, observed and compared, then classified (`identical`,
 * `refused`, `refused by policy`, `differs`, or the agent cannot load it); every example, a few at a time.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AGENTS, type AgentName, type ExampleRow } from "./agents.js";
import { describeDifference, policyRefusalIn, refusalIn } from "./compare.js";
import { observe, type Observed } from "./observe.js";
import { buildHookbox, runSide, type RunOptions, type Side } from "./runs.js";

/**
 * Run A (the example in the agent's process) does not depend on B (its isolation, grant or changed
 * module): one per agent and example in this process, shared by the tables it builds (a test's
 * worker and sandbox tables, their controls). An example run once more (`retried`) runs A afresh.
 */
const inProcessRuns = new Map<string, Promise<Side>>();
function inProcessRun(agent: AgentName, file: string, fresh: boolean, run: () => Promise<Side>): Promise<Side> {
  const key = `${agent}\u0000${file}`;
  if (fresh || !inProcessRuns.has(key)) {
    const started = run();
    inProcessRuns.set(key, started);
    started.catch(() => inProcessRuns.delete(key));
  }
  return inProcessRuns.get(key)!;
}

/** Runs `file` (relative to pi's examples) in process and isolated, and classifies it. */
export async function classifyExample(file: string, options: RunOptions = {}): Promise<ExampleRow & { ms: number }> {
  const started = performance.now();
  const { agent, pkg: piDir, examples } = AGENTS[options.agent ?? "pi"].install();
  const example = join(examples, file);
  const sides = { ...options, hookbox: options.hookbox ?? buildHookbox() };
  const a = await inProcessRun(options.agent ?? "pi", file, options.retried === true, () => runSide(agent, example, false, sides, file));
  const b = await runSide(agent, example, true, sides, file);
  const which = AGENTS[options.agent ?? "pi"];
  const [oa, ob] = [observe(a, file, example, examples, piDir, sides.hookbox, which, false), observe(b, file, example, examples, piDir, sides.hookbox, which, true)];
  const ms = Math.round(performance.now() - started);
  if (options.dump) {
    mkdirSync(options.dump, { recursive: true });
    const name = file.replace(/\//g, "_");
    writeFileSync(join(options.dump, `${name}.A.json`), JSON.stringify(oa, null, 1));
    writeFileSync(join(options.dump, `${name}.B.json`), JSON.stringify(ob, null, 1));
    writeFileSync(join(options.dump, `${name}.timings.json`), JSON.stringify({ A: [a.run.elapsedMs, a.run.timings], B: [b.run.elapsedMs, b.run.timings] }));
  }
  const answered = (o: Observed) => o.events.some((e) => (e as { type?: string }).type === "response");
  if (!answered(oa)) return { file, outcome: which.cannotLoad.outcome, detail: oa.stderr[0]?.slice(0, 160) ?? `pi exited (${JSON.stringify(oa.exit)})`, ms };
  const notLoaded = which.cannotLoad.line && oa.stderr.find((line) => which.cannotLoad.line!.test(line));
  if (notLoaded) return { file, outcome: which.cannotLoad.outcome, detail: notLoaded.slice(0, 160), ms };
  const difference = describeDifference(oa, ob);
  // A module that did not load or answer in time on a busy machine says nothing of isolation: once more.
  if (difference !== "" && !options.retried && /\((?:unresponsive|timeout)\)/.test(JSON.stringify(ob.events))) {
    process.stderr.write(`examples-table: ${file}: the isolated run timed out (${difference.slice(0, 120)}); running it once more\n`);
    return classifyExample(file, { ...options, retried: true });
  }
  if (difference === "") return { file, outcome: "identical", detail: "", ms };
  const refused = refusalIn(ob);
  if (refused !== undefined) return { file, outcome: "refused", detail: refused, ms };
  const byPolicy = policyRefusalIn(ob, difference);
  if (byPolicy !== undefined) return { file, outcome: "refused by policy", detail: byPolicy, ms };
  return { file, outcome: "differs", detail: difference, ms };
}

/** Every example (or `only`), at most `parallel` at a time; rows in the examples' order. */
export async function classifyAll(options: RunOptions & { only?: string[]; parallel?: number; onRow?: (row: ExampleRow & { ms: number }) => void } = {}): Promise<Array<ExampleRow & { ms: number }>> {
  const which = AGENTS[options.agent ?? "pi"];
  const files = which.list(which.install().examples).filter((f) => !options.only || options.only.includes(f));
  const hookbox = options.hookbox ?? buildHookbox(); // once: every run of the differential loads the same build
  const rows: Array<ExampleRow & { ms: number }> = new Array(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      rows[i] = await classifyExample(files[i]!, { ...options, hookbox }).catch((err: Error) => ({ file: files[i]!, outcome: "differs" as const, detail: `the run failed: ${err.message.slice(0, 200)}`, ms: 0 }));
      options.onRow?.(rows[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.parallel ?? 2) }, worker));
  return rows;
}
