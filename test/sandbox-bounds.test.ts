/**
 * A sandbox module's bounds are right from their first read: a fresh host (its own process) that
 * prepares a module in sandbox mode reads them before the module starts, and gets what this
 * machine's sandboxes are bounded by, while process and sandbox modes' modules
 * (src/isolation/child-modes.ts, bubblewrap's command line and groups) are still not loaded. The
 * control: once the module started, they are loaded, and its bounds read the same.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sandboxAvailability } from "../src/isolation/bubblewrap/availability.js";
import { tempDir } from "./helpers/files.js";
import { fixture, ROOT } from "./helpers/host.js";

const available = sandboxAvailability();
if (!available.ok) console.log(`sandbox bounds test skipped: ${available.reason}`);

const CHILD_MODES = ["src/isolation/child-modes.ts", "src/isolation/bubblewrap/bwrap.ts", "src/isolation/bubblewrap/cgroups.ts"];

describe.skipIf(!available.ok)("a sandbox module's bounds", () => {
  it("a fresh host reads them before the module's first start and gets this machine's real bounds, without loading process and sandbox modes' modules", () => {
    if (!available.ok) return;
    const loads = join(tempDir("hookbox-bounds-"), "loads.txt");
    writeFileSync(loads, "");
    const stdout = execFileSync(process.execPath, ["--import", "tsx", "--import", join(ROOT, "test/support/records-loads.mjs"), join(ROOT, "test/support/bounds-before-start.mts"), fixture("valid/blocks-rm-rf.ts")],
      { cwd: ROOT, encoding: "utf8", env: { ...process.env, HOOKBOX_LOADS_FILE: loads }, timeout: 60_000 });
    const { before, after, failure } = JSON.parse(stdout) as { before: unknown; after: unknown; failure?: string };
    const real = { ...available.bounds, seccomp: true, ...(available.weaker ? { weaker: available.weaker } : {}) };
    expect(failure).toBeUndefined();
    expect(before).toEqual(real);
    expect(after).toEqual(real);
    const [atRead = "", afterStart = ""] = readFileSync(loads, "utf8").split("--started--\n");
    const seen = (text: string) => CHILD_MODES.filter((f) => text.includes(`${ROOT}/${f}`));
    expect(seen(atRead)).toEqual([]);
    expect(seen(afterStart)).toEqual(CHILD_MODES);
  }, 90_000);
});
