/**
 * The differential of pi's own example extensions (scripts/pi-examples.ts): every example of pi
 * 0.73.1's `examples/extensions/`, in pi's process against `isolate([example], { policy: "trusted" })`,
 * through one scripted `--mode rpc` session each (a prompt with tool calls, prompts an `input` handler
 * rewrites or handles for the examples that have one, each command with no, one and two arguments
 * and a second prompt after each, dialogs answered, dismissed and timed out, a compaction, a model
 * cycle), compared after normalizing. The outcomes must be docs/pi-examples.md's table
 * (`npm run examples-table` regenerates it). The controls change the isolated module and must be
 * classified `differs`: the comparison can fail, also on a prompt an `input` handler rewrote.
 * The same differential runs again in sandbox isolation, each example under `untrusted` with what it
 * needs (SANDBOX_NEEDS): the outcomes must be the doc's sandbox table; its control runs an example
 * without its grant, which must be classified `refused by policy`, naming the field.
 * Each run is in its own network namespace with only loopback (`unshare -n`): root is needed.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_NEEDS, classifyAll, classifyExample, examplesDir, listExamples, outcomesOf, subscribesToInput, tableOf, type ExampleRow, type Isolation } from "../scripts/pi-examples.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { ROOT } from "./helpers/host.js";
import { installPiDir, piUnavailable } from "./support/pi-agent.js";

const unavailable = piUnavailable();
if (unavailable) console.log(`test/extension-examples.test.ts skipped: ${unavailable}`);

const sandbox = sandboxAvailability();

/** The rows of the doc's generated table (the sandbox table with "sandbox"): each example's outcome. */
const committedOutcomes = (isolation?: Isolation) => outcomesOf(tableOf(readFileSync(join(ROOT, "docs", "pi-examples.md"), "utf8"), isolation) ?? "");

describe.skipIf(unavailable !== undefined)("pi 0.73.1's example extensions: in pi's process against isolate([example], { policy: \"trusted\" })", () => {
  let rows: ExampleRow[];
  let control: ExampleRow;
  let inputControl: ExampleRow;

  beforeAll(async () => {
    // The controls: the isolated run's module greets differently from the example pi runs; rewrites
    // the session's `?quick ` prompt differently.
    [control, inputControl] = await Promise.all([
      classifyExample("hello.ts", { changeB: (source) => source.replace("Hello, ${params.name}!", "Howdy, ${params.name}!") }),
      classifyExample("input-transform.ts", { changeB: (source) => source.replace("Respond briefly in 1-2 sentences: ", "Respond at length: ") }),
    ]);
    rows = await classifyAll({ parallel: 2 });
  }, 1_800_000);

  it("control: an isolated module that answers differently is classified differs, naming the difference", () => {
    expect(control.outcome).toBe("differs");
    expect(control.detail).toContain("Howdy, test!");
  });

  it("control: an isolated input handler that rewrites the session's prompt differently is classified differs, naming the rewrite", () => {
    expect(inputControl.outcome).toBe("differs");
    expect(inputControl.detail).toContain("Respond at length: ");
  });

  it("every example pi ships is in the run, once; those with an input handler get the prompts it rewrites", () => {
    const examples = listExamples(examplesDir(installPiDir()));
    expect(examples.length).toBeGreaterThan(60);
    expect(rows.map((r) => r.file)).toEqual(examples);
    expect(examples.filter((f) => subscribesToInput(join(examplesDir(installPiDir()), f)))).toEqual(["inline-bash.ts", "input-transform.ts"]);
  });

  it("each example's outcome is docs/pi-examples.md's (npm run examples-table regenerates the table)", () => {
    expect(rows.map(({ file, outcome }) => ({ file, outcome }))).toEqual(committedOutcomes());
  });
});

describe.skipIf(unavailable !== undefined || !sandbox.ok)("pi 0.73.1's example extensions in sandbox isolation: each under untrusted with the grant it needs (SANDBOX_NEEDS)", () => {
  let rows: ExampleRow[];
  let control: ExampleRow;

  beforeAll(async () => {
    // The control: session-name.ts without its grant (untrusted as it is), whose setter policy.effects refuses.
    expect(SANDBOX_NEEDS["session-name.ts"]).toBeDefined();
    control = await classifyExample("session-name.ts", { isolation: "sandbox", grant: () => ({}) });
    rows = await classifyAll({ isolation: "sandbox", parallel: 2 });
  }, 1_800_000);

  it("control: an example run without its grant is classified refused by policy, naming the field", () => {
    expect(control).toMatchObject({ outcome: "refused by policy", detail: "policy.effects (pi.setSessionName)" });
  });

  it("each example's outcome is docs/pi-examples.md's sandbox table (npm run examples-table -- --isolation sandbox regenerates it)", () => {
    expect(rows.map(({ file, outcome }) => ({ file, outcome }))).toEqual(committedOutcomes("sandbox"));
  });
});
