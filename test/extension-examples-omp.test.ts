/**
 * The differential of oh-my-pi's own examples (scripts/pi-examples.ts with agent "oh-my-pi"): each
 * of oh-my-pi 18.2.3's `examples/extensions/` (passed with `-e`) and legacy `examples/hooks/`
 * (passed with `--hook`), in oh-my-pi's process against `isolate([example], { policy: "trusted" })`,
 * through the one scripted `--mode rpc` session of pi's differential (test/support/pi-rpc-session.mjs,
 * with oh-my-pi's differences from pi's protocol), compared after the same normalizing. The outcomes
 * must be docs/omp-examples.md's table (`npm run examples-table -- --agent oh-my-pi` regenerates it).
 * A control run changes the isolated module and must be classified `differs`: the comparison can fail.
 * Each run is in its own network namespace with only loopback (`unshare -n`): root is needed.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { AGENTS, classifyAll, classifyExample, outcomesOf, tableOf, type ExampleRow } from "../scripts/pi-examples.js";
import { ROOT } from "./helpers/host.js";
import { agentUnavailable } from "./support/pi-agent.js";

const unavailable = agentUnavailable("oh-my-pi");
if (unavailable) console.log(`test/extension-examples-omp.test.ts skipped: ${unavailable}`);

const omp = AGENTS["oh-my-pi"];
/** The rows of the doc's generated table: each example's outcome. */
const committedOutcomes = () => outcomesOf(tableOf(readFileSync(join(ROOT, "docs", omp.doc), "utf8")) ?? "");

describe.skipIf(unavailable !== undefined)("oh-my-pi 18.2.3's examples: in oh-my-pi's process against isolate([example], { policy: \"trusted\" })", () => {
  let rows: ExampleRow[];
  let control: ExampleRow;

  beforeAll(async () => {
    // The control: the isolated run's legacy hook (--hook) titles its dialog otherwise than the example oh-my-pi runs.
    control = await classifyExample("hooks/permission-gate.ts", { agent: "oh-my-pi", changeB: (source) => source.replace("Dangerous command:", "Risky command:") });
    rows = await classifyAll({ agent: "oh-my-pi", parallel: 2 });
  }, 1_800_000);

  it("control: an isolated module that answers differently is classified differs, naming the difference", () => {
    expect(control.outcome).toBe("differs");
    expect(control.detail).toContain("Risky command:");
  });

  it("every example oh-my-pi ships is in the run, once: its extensions and its legacy hooks", () => {
    const examples = omp.list(omp.install().examples);
    expect(examples.filter((f) => f.startsWith("extensions/")).length).toBeGreaterThanOrEqual(9);
    expect(examples.filter((f) => f.startsWith("hooks/")).length).toBeGreaterThanOrEqual(11);
    expect(rows.map((r) => r.file)).toEqual(examples);
  });

  it("each example's outcome is docs/omp-examples.md's (npm run examples-table -- --agent oh-my-pi regenerates the table)", () => {
    expect(rows.map(({ file, outcome }) => ({ file, outcome }))).toEqual(committedOutcomes());
  });
});
