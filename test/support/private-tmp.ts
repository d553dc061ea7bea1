/**
 * vitest's global setup (vitest.config.ts, vitest.bun.config.ts): every test run gets a temporary
 * folder of its own (TMPDIR, which the test files' processes inherit), removed at the end. What
 * the host keeps in the user's temporary folder (the default transform cache with its start
 * records keyed by working folder, the runtime's code cache, `once` markers) then cannot carry
 * from an earlier run at the same path (CI clones to one folder every time) into this one.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): (() => void) | undefined {
  // vitest runs a global setup once per project too: the first one's folder serves the run.
  if (process.env.HOOKBOX_TEST_TMPDIR) return undefined;
  // Short: a unix socket's path (the network proxy's, under TMPDIR) holds at most 107 bytes.
  const dir = mkdtempSync(join(tmpdir(), "hbt-"));
  process.env.TMPDIR = process.env.HOOKBOX_TEST_TMPDIR = dir;
  return () => {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    delete process.env.HOOKBOX_TEST_TMPDIR;
  };
}
