/**
 * pi's own example extensions (pi 0.73.1's `examples/extensions/`), each through `isolate([example])`
 * in pi's own loader and runner, must have the outcomes docs/pi-examples.md's table says, and none
 * may be broken. The examples run in a child (`scripts/examples-table.ts --json`) inside a network
 * namespace with only loopback, in a fresh folder and HOME; `npm run examples-table` regenerates
 * the table from the same code when members start to cross.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { examplesDir, listExamples, renderTable, tableLabel, tableOf, type ExampleRow } from "../scripts/pi-examples.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { RENDERER_NEEDS_WORKER } from "../src/extension/adapter.js";
import { TOOL_RENDERER_NEEDS_WORKER } from "../worker/extension-members.mjs";
import { ROOT } from "./helpers/host.js";
import { installPiDir, piUnavailable } from "./support/pi-agent.js";

const unavailable = piUnavailable();
if (unavailable) console.log(`test/extension-examples.test.ts skipped: ${unavailable}`);

let rows: ExampleRow[];
let install: string;
const sandbox = sandboxAvailability();
if (!sandbox.ok) console.log(`test/extension-examples.test.ts: the sandbox pass skipped: ${sandbox.reason}`);

/** Every example's row, run by scripts/examples-table.ts (in its network namespace) with `isolation`. */
async function classifyAll(isolation: string): Promise<ExampleRow[]> {
  const { stdout } = await promisify(execFile)("npx", ["tsx", "scripts/examples-table.ts", "--json", "--isolation", isolation], {
    cwd: ROOT, maxBuffer: 64 * 1024 * 1024, timeout: 570_000,
  });
  return JSON.parse(stdout.trim().split("\n").pop()!) as ExampleRow[];
}

describe.skipIf(unavailable !== undefined)("pi 0.73.1's example extensions through isolate (worker isolation)", () => {
  beforeAll(async () => {
    install = installPiDir();
    rows = await classifyAll("worker");
  }, 600_000);

  it("every example pi ships is in the run, once", () => {
    const examples = listExamples(examplesDir(install));
    expect(examples.length).toBeGreaterThan(60);
    expect(rows.map((r) => r.file)).toEqual(examples);
  });

  it("no example is broken (a broken one is a hookbox bug)", () => {
    expect(rows.filter((r) => r.outcome === "broken")).toEqual([]);
  });

  it("the outcomes are docs/pi-examples.md's table (npm run examples-table regenerates it)", () => {
    const doc = readFileSync(join(ROOT, "docs", "pi-examples.md"), "utf8");
    expect(tableOf(doc)).toBe(renderTable(rows, tableLabel("worker")));
  });

  it.skipIf(!sandbox.ok)("in sandbox isolation every example has the same outcome as in a worker, but a message or tool renderer, which only worker isolation carries", async () => {
    const inSandbox = await classifyAll("sandbox");
    const renderers = inSandbox.filter((r) => r.detail === "pi.registerMessageRenderer (at load)" || /^pi\.registerTool's (renderCall|renderResult|prepareArguments) \(at load\)$/.test(r.detail ?? ""));
    for (const r of renderers) {
      expect(r.outcome).toBe("refused");
      // The table's why is the refusal's first clause.
      expect(r.why && [RENDERER_NEEDS_WORKER, TOOL_RENDERER_NEEDS_WORKER].some((why) => why.startsWith(r.why!))).toBe(true);
    }
    // The examples that draw their own messages (message-renderer.ts at least) differ; every other row is the worker's.
    expect(renderers.map((r) => r.file)).toContain("message-renderer.ts");
    const differs = new Set(renderers.map((r) => r.file));
    expect(inSandbox.filter((r) => !differs.has(r.file))).toEqual(rows.filter((r) => !differs.has(r.file)));
  }, 600_000);

  it("the guards run unchanged and answer tool_call as they do natively in pi", () => {
    for (const file of ["permission-gate.ts", "protected-paths.ts"]) {
      expect(rows.find((r) => r.file === file)).toEqual({ file, outcome: "runs unchanged", detail: "exercised: tool_call (as natively)" });
    }
  });
});
