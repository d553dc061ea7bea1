/**
 * Test support: why the OS sandbox cannot be built here, or undefined when it can. Checked once;
 * the tests that need it skip with this reason printed, and only then.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadHooks } from "../../src/index.js";

/** Why `bwrap` cannot start a process with its own user and network namespaces, or undefined. */
export function bwrapUnavailable(): string | undefined {
  const r = spawnSync("bwrap", ["--unshare-user", "--unshare-net", "--ro-bind", "/", "/", "true"], { encoding: "utf8" });
  if (r.error) return `bwrap cannot run (${(r.error as NodeJS.ErrnoException).code}): install it with apt-get install -y bubblewrap`;
  if (r.status !== 0) return `bwrap --unshare-user --unshare-net failed (${r.stderr.trim()}): enable unprivileged user namespaces`;
  return undefined;
}

let checked: Promise<string | undefined> | undefined;

/** Why hookbox's `isolation: "sandbox"` cannot run a hook here, or undefined when it can. */
export function sandboxUnavailable(): Promise<string | undefined> {
  return checked ??= (async () => {
    const bwrap = bwrapUnavailable();
    if (bwrap) return bwrap;
    const cwd = mkdtempSync(join(tmpdir(), "hookbox-sandbox-probe-"));
    try {
      const hook = fileURLToPath(new URL("../../fixtures/valid/blocks-rm-rf.ts", import.meta.url));
      const { hooks, errors } = await loadHooks([hook], cwd, { isolation: "sandbox" });
      await Promise.all(hooks.map((h) => h.sandbox?.dispose()));
      // Only the build's own "not available" is a reason to skip; any other failure is a bug to see.
      const missing = errors.find((e) => /is not available in this build/.test(e.error));
      return missing?.error;
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  })();
}

/** Print why a sandbox test is skipped (once per reason). */
export function sayWhySkipped(what: string, reason: string | undefined): void {
  if (reason) console.warn(`skipping ${what}: ${reason}`);
}
