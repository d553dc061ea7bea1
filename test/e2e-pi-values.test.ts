/**
 * Values cross into an isolated pi extension as pi made them (pi 0.73.1 headless, in a network
 * namespace with only loopback, against the scripted fake model): the model reads a file, then
 * `/compact-observed` compacts, and fixtures/extensions/observes-compaction-values.ts records
 * what session_before_compact gave it. In pi's own process (the control: what pi gives) and through
 * `isolate` in process and sandbox isolation, `preparation.fileOps.read` is the same Set and the
 * event has its `customInstructions` key (undefined). Before the frames kept them, process and
 * sandbox isolation gave `{}` and no key.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./helpers/host.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { installPi, piUnavailable, piWorld, runPi } from "./support/pi-agent.js";

const unavailable = piUnavailable();
if (unavailable) console.log(`test/e2e-pi-values.test.ts skipped: ${unavailable}`);
const sandbox = sandboxAvailability();

const FIXTURE = join(ROOT, "fixtures", "extensions", "observes-compaction-values.ts");
/** What pi's own process gives the extension (the control run checks pi still gives it). */
const PI_GIVES = { read: { Set: ["notes.txt"] }, writtenIsSet: true, editedIsSet: true, hasCustomInstructions: true, customInstructions: "undefined" };

let cli: string;

/** One run: the model reads notes.txt, then /compact-observed; what the extension recorded, or undefined. */
function observe(isolation?: "process" | "sandbox"): unknown {
  const world = piWorld();
  // Keep almost nothing: the turn that read the file is summarized, so its read lands in fileOps.
  writeFileSync(join(world.agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
  writeFileSync(join(world.project, "notes.txt"), "some notes\n");
  let extension = FIXTURE;
  if (isolation) {
    extension = join(world.project, "isolated.ts");
    // The sandbox lets the extension write its record in the project, and nothing else.
    const policy = isolation === "sandbox" ? { fsWrite: [world.project] } : "trusted";
    writeFileSync(extension, `import { isolate } from ${JSON.stringify(join(ROOT, "src", "extension.ts"))};\nexport default isolate(${JSON.stringify([FIXTURE])}, ${JSON.stringify({ policy, isolation })});\n`);
  }
  const run = runPi(cli, world, { command: "", tool: { name: "read", arguments: { path: "notes.txt" } }, extensions: [extension], prompts: ["/compact-observed"], timeoutMs: 120_000 });
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain("TOOL RESULT: some notes");
  const seen = join(world.project, "compaction-seen.json");
  return existsSync(seen) ? JSON.parse(readFileSync(seen, "utf8")) : undefined;
}

describe.skipIf(unavailable !== undefined)("session_before_compact's values in pi 0.73.1", { timeout: 180_000 }, () => {
  beforeAll(() => { cli = installPi(); }, 300_000);

  it("control: in pi's own process the extension sees fileOps.read as a Set holding the file the model read, and customInstructions as a key", () => {
    expect(observe()).toEqual(PI_GIVES);
  });

  it("through isolate in process isolation the extension sees the same", () => {
    expect(observe("process")).toEqual(PI_GIVES);
  });

  it.skipIf(!sandbox.ok)("through isolate in sandbox isolation the extension sees the same", () => {
    expect(observe("sandbox")).toEqual(PI_GIVES);
  });
});
