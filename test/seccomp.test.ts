/**
 * The seccomp filter's blobs cannot drift from their generator: where python3-seccomp is
 * installed, scripts/seccomp_filter.py is run again and its output compared byte for byte with
 * the checked-in src/isolation/bubblewrap/seccomp/. An architecture without a blob has no sandbox.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { seccompFilter } from "../src/isolation/bubblewrap/availability.js";
import { ROOT } from "./helpers/host.js";

const PYTHON = "/usr/bin/python3";
const hasLibseccomp = spawnSync(PYTHON, ["-c", "import seccomp"]).status === 0;
if (!hasLibseccomp) console.log("seccomp drift test skipped: python3-seccomp is not installed (apt-get install python3-seccomp)");
const BLOBS = join(ROOT, "src", "isolation", "bubblewrap", "seccomp");

describe("the seccomp filter", () => {
  it.skipIf(!hasLibseccomp)("the checked-in blobs are exactly what scripts/seccomp_filter.py makes", () => {
    const out = mkdtempSync(join(tmpdir(), "hookbox-seccomp-"));
    try {
      execFileSync(PYTHON, [join(ROOT, "scripts", "seccomp_filter.py"), "--out", out]);
      const made = readdirSync(out).sort();
      expect(made).toEqual(["aarch64.bpf", "manifest.json", "x86_64.bpf"]);
      expect(readdirSync(BLOBS).sort()).toEqual(made);
      for (const file of made) expect(readFileSync(join(out, file)).equals(readFileSync(join(BLOBS, file))), file).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it("each blob is a whole number of BPF instructions (8 bytes) that checks the architecture first", () => {
    for (const [name, audit] of [["x86_64", 0xc000003e], ["aarch64", 0xc00000b7]] as const) {
      const blob = readFileSync(join(BLOBS, `${name}.bpf`));
      expect(blob.length % 8).toBe(0);
      // ld [4] (seccomp_data.arch), then jeq AUDIT_ARCH_<name>.
      expect(blob.readUInt16LE(0)).toBe(0x20);
      expect(blob.readUInt32LE(4)).toBe(4);
      expect(blob.readUInt32LE(12)).toBe(audit);
    }
  });

  it("an architecture without a blob has no filter, so no sandbox (never a sandbox without its filter)", () => {
    expect(seccompFilter("x64")).toEqual({ path: join(BLOBS, "x86_64.bpf") });
    expect(seccompFilter("arm64")).toEqual({ path: join(BLOBS, "aarch64.bpf") });
    expect(seccompFilter("s390x")).toEqual({ reason: `isolation "sandbox" has no seccomp filter for the s390x architecture (x64 and arm64 only); a sandbox is never started without one` });
  });
});
