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
const READER = join(ROOT, "fixtures", "extensions", "reads-pi-packages.ts");
let cli: string;

function session(extension: (world: PiWorld) => string, command = "/peer"): PiRun {
  const world = piWorld();
  return runPi(cli, world, { command: "echo hi", extensions: [extension(world)], rpc: { steps: [{ type: "prompt", message: command }] } });
}
/** `module` through isolate() in the world's project (worker isolation, trusted). */
const isolated = (module: string) => (world: PiWorld) => {
  const file = join(world.project, "isolated.ts");
  writeFileSync(file, `import { isolate } from ${JSON.stringify(join(ROOT, "src", "extension.ts"))};\nexport default isolate(${JSON.stringify([module])}, { policy: "trusted" });\n`);
  return file;
};
const notified = (run: PiRun) => run.events.filter((e) => e.method === "notify").map((e) => e.message as string);

describe.skipIf(unavailable !== undefined)("a published extension importing pi's packages as peers", { timeout: 120_000 }, () => {
  beforeAll(() => { cli = installPi(); }, 300_000);

  it("gets pi's copies isolated (worker isolation, trusted) as in pi's process", () => {
    const control = session(() => MODULE);
    expect(control.code, control.stderr).toBe(0);
    expect(notified(control)).toEqual([expect.stringMatching(/^peer: function ─── \{"type":"string"\}$/)]);
    const run = session(isolated(MODULE));
    expect(run.code, run.stderr).toBe(0);
    expect(run.events.filter((e) => e.type === "extension_error")).toEqual([]);
    expect(notified(run)).toEqual(notified(control));
  });

  it("a TypeScript extension reads the same values of pi's packages isolated, where they are evaluated at its first read, as in pi's process, at its load and later", () => {
    const control = session(() => READER, "/seen");
    expect(control.code, control.stderr).toBe(0);
    const seen = notified(control);
    expect(seen).toHaveLength(2);
    expect(seen[0]!.replace(/^at load /, "")).toBe(seen[1]!.replace(/^later /, ""));
    expect(JSON.parse(seen[0]!.replace(/^at load /, ""))).toMatchObject({ lines: 2000, size: "120.6KB", sameType: true, hasDefault: false });
    const run = session(isolated(READER), "/seen");
    expect(run.code, run.stderr).toBe(0);
    expect(run.events.filter((e) => e.type === "extension_error")).toEqual([]);
    expect(notified(run)).toEqual(seen);
  });
});
