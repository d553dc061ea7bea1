/**
 * hookbox inside the real agent: pi 0.73.1 (installed by scripts/install-pi.sh), run headless in a
 * network namespace with only loopback, against a scripted fake model whose first turn asks the
 * bash tool to `rm -rf` a folder of the project.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
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
});
