/**
 * vitest's global setup (vitest.config.ts, vitest.bun.config.ts): installs every pinned agent the
 * end-to-end tests run once, one after another, before any test file starts, so no two test files
 * install into the one cache folder at once (scripts/install-agents.sh; each install is a no-op once
 * the cache holds an intact tree). An agent that cannot be installed is named on stderr; its tests
 * fail saying so, the rest of the suite runs.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const SCRIPT = fileURLToPath(new URL("../../scripts/install-agents.sh", import.meta.url));

export default function setup(): void {
  const run = spawnSync(SCRIPT, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (run.status !== 0) process.stderr.write(`scripts/install-agents.sh: ${run.stderr || run.error?.message || `exit ${run.status}`}\n`);
}
