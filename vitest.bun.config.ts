import { defineConfig } from "vitest/config";
const FILES = ["test/host-conformance.test.ts", "test/host-conformance-examples.test.ts", "test/host-faults.test.ts", "test/host-errors.test.ts", "test/tool-wrapper.test.ts", "test/host-restarts.test.ts", "test/host-bridge.test.ts", "test/host-hostile.test.ts", "test/host-wire.test.ts", "test/host-limits.test.ts", "test/host-transport.test.ts", "test/host-confinement.test.ts", "test/host-dispose.test.ts"];
export default defineConfig({
  test: {
    testTimeout: 30_000, hookTimeout: 30_000, maxWorkers: 2,
    setupFiles: ["test/support/intrinsics.ts"],
    server: { deps: { inline: ["zod"] } },
    projects: [
      { extends: true, test: { name: "bun-process", include: FILES, env: { HOOKBOX_TEST_ISOLATION: "process" } } },
      { extends: true, test: { name: "bun-worker", include: FILES, env: { HOOKBOX_TEST_ISOLATION: "worker", HOOKBOX_TEST_POLICY: "trusted" } } },
    ],
  },
});
