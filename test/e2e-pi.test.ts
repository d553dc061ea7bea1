/**
 * hookbox inside the real agent: pi 0.73.1 (installed by scripts/install-pi.sh), run headless in a
 * network namespace with only loopback, against a scripted fake model whose first turn asks the
 * bash tool to `rm -rf` a folder of the project.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./helpers/host.js";
import { installPi, piUnavailable, piWorld, runPi, type PiWorld } from "./support/pi-agent.js";

const unavailable = piUnavailable();
if (unavailable) console.log(`test/e2e-pi.test.ts skipped: ${unavailable}`);

let cli: string;

function victim(world: PiWorld): string {
  const dir = join(world.project, "build");
  mkdirSync(dir);
  writeFileSync(join(dir, "keep.txt"), "precious");
  return dir;
}

const EXTENSIONS = join(ROOT, "fixtures", "extensions");

/** The one-line file a user passes with -e: `export default isolate([...], options)`. */
function isolateFile(world: PiWorld, modules: string[], options: Record<string, unknown> = {}): string {
  const file = join(world.project, "isolated.ts");
  const paths = modules.map((m) => join(EXTENSIONS, m));
  writeFileSync(file, `import { isolate } from ${JSON.stringify(join(ROOT, "src", "extension.ts"))};\nexport default isolate(${JSON.stringify(paths)}, ${JSON.stringify(options)});\n`);
  return file;
}

describe.skipIf(unavailable !== undefined)("hookbox inside pi 0.73.1", { timeout: 120_000 }, () => {
  beforeAll(() => { cli = installPi(); }, 300_000);

  it("control: without hookbox the model's rm -rf really deletes the folder", () => {
    const world = piWorld();
    const dir = victim(world);
    const run = runPi(cli, world, { command: `rm -rf ${dir}` });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(dir)).toBe(false);
    expect(run.requests).toHaveLength(2);
    expect(run.stdout).toContain("TOOL RESULT:");
  });

  it("an isolated guard blocks the model's rm -rf: the folder survives and the model receives the reason", () => {
    const world = piWorld();
    const dir = victim(world);
    const run = runPi(cli, world, { command: `rm -rf ${dir}`, extensions: [isolateFile(world, ["blocks-rm-rf.ts"])] });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
    expect(run.toolResult).toContain(`guard refused: rm -rf ${dir}`);
    expect(run.stdout).toContain(`TOOL RESULT: guard refused: rm -rf ${dir}`);
  });

  it.each([
    ["throws-from-timer.ts", "crashed"],
    ["exits-in-tool-call.ts", "crashed"],
    ["hangs-in-tool-call.ts", "timeout"],
    // the loop's deadline is far: it is ended as unresponsive, not timed out
    ["loops-in-tool-call.ts", "unresponsive", { deadlines: { tool_call: 20_000 }, unresponsiveMs: 1_000 }],
  ] as Array<[string, string, Record<string, unknown>?]>)("an isolated module that faults in tool_call (%s) is contained: pi finishes its prompt, exits 0, and the call is blocked (%s)", (module, code, own) => {
    const world = piWorld();
    const dir = victim(world);
    const options = own ?? { deadlines: { tool_call: 1_500 } };
    const run = runPi(cli, world, { command: `rm -rf ${dir}`, extensions: [isolateFile(world, [module], options)] });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
    expect(run.toolResult).toContain(`failed (${code})`);
    expect(run.stdout).toContain("TOOL RESULT: ");
    expect(run.stderr).toContain(`${code} in tool_call`);
  });

  it("control: the same timer throw in pi's own process ends pi", () => {
    const world = piWorld();
    const dir = victim(world);
    const run = runPi(cli, world, { command: `rm -rf ${dir}`, extensions: [join(EXTENSIONS, "throws-from-timer.ts")] });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("thrown from a timer");
  });
});
