import { configDefaults, defineConfig } from "vitest/config";
import { sandboxAvailability } from "./src/isolation/bubblewrap/bwrap.js";

const sandbox = sandboxAvailability();
if (!sandbox.ok) console.log(`vitest project "sandbox" skipped: ${sandbox.reason}`);

/** The conformance and fault suites run again with a child process per hook, and with each inside a sandbox (bubblewrap). */
const BOTH_MODES = [
  "test/host-conformance.test.ts", "test/host-conformance-examples.test.ts", "test/host-errors.test.ts", "test/tool-wrapper.test.ts",
  "test/host-faults.test.ts", "test/host-hostile.test.ts", "test/host-restarts.test.ts", "test/host-bridge.test.ts",
  "test/host-limits.test.ts", "test/host-soak.test.ts", "test/host-wire.test.ts", "test/host-floods.test.ts", "test/host-exec-policy.test.ts", "test/host-exec-pins.test.ts",
  "test/host-transport.test.ts", "test/host-transform-hostile.test.ts",
  // Hooks written for the original run unchanged
  "test/host-in-place-edits.test.ts", "test/host-async-host-methods.test.ts", "test/host-abort-signals.test.ts", "test/host-command-context.test.ts", "test/host-renderer-theme.test.ts", "test/host-default-exports.test.ts", "test/host-tool-call-errors.test.ts", "test/host-import-graph.test.ts", "test/host-pi-extras.test.ts", "test/host-modules.test.ts",
  "test/host-prototype-pollution.test.ts",
  // Values cross as the contract's types (Set, Map, Date, undefined…) in every mode
  "test/host-values.test.ts",
  "test/host-linked-packages.test.ts",
  "test/host-model-registry.test.ts",
  "test/host-terminal-text.test.ts",
  // A module's own output on the agent's stderr (isolate() in pi's runner, a host process)
  "test/host-output.test.ts",
  "test/host-fuzz.test.ts",
  // What a hook may change of the agent (policy.effects)
  "test/host-effects.test.ts",
  // The host objects the original accepts
  "test/host-seed-host.test.ts",
  // One decision record and one span per hook call, in every mode
  "test/observe-records.test.ts", "test/observe-spans.test.ts", "test/observe-flood.test.ts",
  // isolate() inside pi's own loader and runner
  "test/extension.test.ts", "test/extension-registrations.test.ts", "test/extension-effects.test.ts", "test/extension-crossing.test.ts", "test/extension-early-start.test.ts", "test/extension-first-start.test.ts",
  "test/extension-published.test.ts",
  // The agent's packages a module imports, evaluated at its first read of them
  "test/agent-packages-deferred.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    // After every test: the host's intrinsics (Object.prototype, …, process.env's prototype) are untouched
    // (a polluted prototype would reach every child process the host starts).
    setupFiles: ["test/support/intrinsics.ts"],
    // Every pinned agent installed once, before any test file starts (two files installing at once broke the cache).
    // and a private temporary folder per run: nothing an earlier run left in the host's caches reaches this one.
    globalSetup: ["test/support/install-agents.ts", "test/support/private-tmp.ts"],
    hookTimeout: 30_000,
    // Tests start real workers; two cores, so two test files at a time.
    maxWorkers: 2,
    projects: [
      // test/bun/ runs with Bun as the host: vitest.bun.config.ts (the Bun job).
      { extends: true, test: { name: "worker", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, "test/bun/**"] } },
      { extends: true, test: { name: "process", include: BOTH_MODES, env: { HOOKBOX_TEST_ISOLATION: "process" } } },
      ...(sandbox.ok ? [{ extends: true as const, test: { name: "sandbox", include: BOTH_MODES, env: { HOOKBOX_TEST_ISOLATION: "sandbox" } } }] : []),
    ],
  },
});
