/** `HOOKBOX_TEST_ISOLATION=process` runs the same suites with a child process per hook (see .ci/run). */
export const ISOLATION = (process.env.HOOKBOX_TEST_ISOLATION ?? "worker") as "worker" | "process";
