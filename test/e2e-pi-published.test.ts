/**
 * A published extension that imports pi's own packages as peers (`@mariozechner/pi-coding-agent`,
 * `typebox`), which its folder does not have: pi's loader resolves them to pi's copies, and so does
 * hookbox inside pi (src/discovery/agent-packages.ts `piAgentModules`), in the real pi 0.73.1 in
 * `--mode rpc`, in pi's process (the control) and through `isolate()` under `trusted`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./helpers/host.js";
import { installPi, piUnavailable, piWorld, runPi, type PiRun, type PiWorld } from "./support/pi-agent.js";

const unavailable = piUnavailable();
if (unavailable) console.log(`test/e2e-pi-published.test.ts skipped: ${unavailable}`);
const MODULE = join(ROOT, "fixtures", "extensions", "imports-pi-as-a-peer.js");
let cli: string;

function session(extension: (world: PiWorld) => string): PiRun {
  const world = piWorld();
  return runPi(cli, world, { command: "echo hi", extensions: [extension(world)], rpc: { steps: [{ type: "prompt", message: "/peer" }] } });
}
const notified = (run: PiRun) => run.events.filter((e) => e.method === "notify").map((e) => e.message as string);

describe.skipIf(unavailable !== undefined)("a published extension importing pi's packages as peers", { timeout: 120_000 }, () => {
  beforeAll(() => { cli = installPi(); }, 300_000);

  it("gets pi's copies isolated (worker isolation, trusted) as in pi's process", () => {
    const control = session(() => MODULE);
    expect(control.code, control.stderr).toBe(0);
    expect(notified(control)).toEqual([expect.stringMatching(/^peer: function ─── \{"type":"string"\}$/)]);
    const run = session((world) => {
      const file = join(world.project, "isolated.ts");
      writeFileSync(file, `import { isolate } from ${JSON.stringify(join(ROOT, "src", "extension.ts"))};\nexport default isolate(${JSON.stringify([MODULE])}, { policy: "trusted" });\n`);
      return file;
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.events.filter((e) => e.type === "extension_error")).toEqual([]);
    expect(notified(run)).toEqual(notified(control));
  });
});
