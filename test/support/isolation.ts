/**
 * `HOOKBOX_TEST_ISOLATION=process` runs the same suites with a child process per hook, `sandbox`
 * with each child inside bubblewrap (see vitest.config.ts and .ci/run).
 */
export const ISOLATION = (process.env.HOOKBOX_TEST_ISOLATION ?? "worker") as "worker" | "process" | "sandbox";
/** Whether hooks run in child processes (process and sandbox modes): no synchronous renderers, own stdin. */
export const IN_PROCESS = ISOLATION !== "worker";
/**
 * `HOOKBOX_TEST_POLICY` (the Bun job's worker project, vitest.bun.config.ts: `trusted`, the one
 * policy a Bun worker runs) is every harness load's policy unless the test names one.
 */
export const POLICY = process.env.HOOKBOX_TEST_POLICY as "trusted" | undefined;
