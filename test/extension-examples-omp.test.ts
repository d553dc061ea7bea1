/**
 * The differential of oh-my-pi's own examples (scripts/pi-examples.ts with agent "oh-my-pi"): each
 * of oh-my-pi 18.2.3's `examples/extensions/` (passed with `-e`) and legacy `examples/hooks/`
 * (passed with `--hook`), in oh-my-pi's process against `isolate([example], { policy: "trusted" })`,
 * through the one scripted `--mode rpc` session of pi's differential (test/support/pi-rpc-session.mjs,
 * with oh-my-pi's differences from pi's protocol), compared after the same normalizing. The outcomes
 * must be docs/omp-examples.md's table (`npm run examples-table -- --agent oh-my-pi` regenerates it).
 * A control run changes the isolated module and must be classified `differs`: the comparison can fail.
 * Another delays the isolated plan-mode example's agent_end handler by a second before it opens its
 * dialog (longer than the session's quiet time, as a starved machine can): it must stay `identical`,
 * as the session settles each step on every agent_end handler having returned, not on quiet time.
 * The same differential runs again in sandbox isolation (the module on Node inside bubblewrap, a Bun
 * host), each example under `untrusted` with what it needs (SANDBOX_NEEDS): the outcomes must be the
 * doc's sandbox table; its control runs extensions/chalk-logger.ts without its grant, whose lines
 * then arrive prefixed: it must be classified `refused by policy`, naming policy.terminal.
 * Each run is in its own network namespace with only loopback (`unshare -n`): root is needed.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { AGENTS, SANDBOX_NEEDS, classifyAll, classifyExample, outcomesOf, tableOf, type ExampleRow, type Isolation } from "../scripts/pi-examples.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { ROOT } from "./helpers/host.js";
import { agentUnavailable } from "./support/pi-agent.js";

const unavailable = agentUnavailable("oh-my-pi");
if (unavailable) console.log(`test/extension-examples-omp.test.ts skipped: ${unavailable}`);

const omp = AGENTS["oh-my-pi"];
const sandbox = sandboxAvailability();
/** The rows of the doc's generated table (the sandbox table with "sandbox"): each example's outcome. */
const committedOutcomes = (isolation?: Isolation) => outcomesOf(tableOf(readFileSync(join(ROOT, "docs", omp.doc), "utf8"), isolation) ?? "");

describe.skipIf(unavailable !== undefined)("oh-my-pi 18.2.3's examples: in oh-my-pi's process against isolate([example], { policy: \"trusted\" })", () => {
  let rows: ExampleRow[];
  let control: ExampleRow;
  let late: ExampleRow;

  beforeAll(async () => {
    // The control: the isolated run's legacy hook (--hook) titles its dialog otherwise than the example oh-my-pi runs.
    const [changed, delayed] = await Promise.all([
      classifyExample("hooks/permission-gate.ts", { agent: "oh-my-pi", changeB: (source) => source.replace("Dangerous command:", "Risky command:") }),
      classifyExample("extensions/plan-mode.ts", { agent: "oh-my-pi", changeB: (source) => {
        const handler = 'pi.on("agent_end", async (event, ctx) => {';
        expect(source).toContain(handler);
        return source.replace(handler, `${handler}\n\t\tawait new Promise((resolve) => setTimeout(resolve, 1000));`);
      } }),
    ]);
    [control, late] = [changed, delayed];
    rows = await classifyAll({ agent: "oh-my-pi", parallel: 2 });
  }, 1_800_000);

  it("control: an isolated module that answers differently is classified differs, naming the difference", () => {
    expect(control.outcome).toBe("differs");
    expect(control.detail).toContain("Risky command:");
  });

  it("an isolated module whose agent_end handler opens its dialog a second late (past any quiet time) is still identical: a step settles once every agent_end handler returned", () => {
    expect(late).toMatchObject({ outcome: "identical", detail: "" });
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

describe.skipIf(unavailable !== undefined || !sandbox.ok)("oh-my-pi 18.2.3's examples in sandbox isolation: each under untrusted with the grant it needs (SANDBOX_NEEDS), on Node inside bubblewrap", () => {
  let rows: ExampleRow[];
  let control: ExampleRow;

  beforeAll(async () => {
    // The control: chalk-logger.ts without its grant (untrusted as it is): its lines arrive prefixed with its name.
    expect(SANDBOX_NEEDS["extensions/chalk-logger.ts"]).toBeDefined();
    control = await classifyExample("extensions/chalk-logger.ts", { agent: "oh-my-pi", isolation: "sandbox", grant: () => ({}) });
    rows = await classifyAll({ agent: "oh-my-pi", isolation: "sandbox", parallel: 2 });
  }, 1_800_000);

  it("control: an example run without its grant is classified refused by policy, naming the field", () => {
    expect(control).toMatchObject({ outcome: "refused by policy", detail: "policy.terminal (its output prefixed and gated)" });
  });

  it("each example's outcome is docs/omp-examples.md's sandbox table (npm run examples-table -- --agent oh-my-pi --isolation sandbox regenerates it)", () => {
    expect(rows.map(({ file, outcome }) => ({ file, outcome }))).toEqual(committedOutcomes("sandbox"));
  });
});
