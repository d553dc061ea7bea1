/**
 * The Bun job (.ci/run, `npm run test:bun`): hookbox's conformance and fault suites with Bun as the
 * host (`bun --bun node_modules/.bin/vitest run --config vitest.bun.config.ts`; vitest 4 runs under
 * Bun). Process and sandbox hooks run on Node (the `runtime` option's default on Bun: node on PATH);
 * worker hooks run in Bun's own workers with policy `trusted`, the one policy a Bun worker runs
 * (src/policy/runtime.ts). test/bun/ asserts the refusals and the confinement under a Bun host.
 */
import { configDefaults, defineConfig } from "vitest/config";
import { sandboxAvailability } from "./src/isolation/bubblewrap/bwrap.js";

const sandbox = sandboxAvailability();
if (!sandbox.ok) console.log(`vitest project "bun-sandbox" skipped: ${sandbox.reason}`);

/** The conformance and fault suites (a subset of vitest.config.ts's BOTH_MODES). */
const SUITES = [
  "test/host-conformance.test.ts", "test/host-conformance-examples.test.ts", "test/host-errors.test.ts", "test/tool-wrapper.test.ts",
  "test/host-faults.test.ts", "test/host-hostile.test.ts", "test/host-restarts.test.ts", "test/host-bridge.test.ts",
  "test/host-limits.test.ts", "test/host-wire.test.ts", "test/host-transport.test.ts", "test/host-values.test.ts",
  // What a hook may change of the agent (policy.effects; in the worker project the trusted cases only)
  "test/host-effects.test.ts",
  // A module's own output on the agent's stderr (isolate() in pi's runner, a Bun host process)
  "test/host-output.test.ts",
  // The host objects the original accepts (the conformance files above also run over a seed-shaped host)
  "test/host-seed-host.test.ts",
];

/**
 * Tests of those suites that do not apply to a Bun worker, each with why: a limit a Bun worker does
 * not enforce (src/policy/runtime.ts BUN_WORKER_UNENFORCED), which its load report says, or a worker
 * named with a policy it cannot enforce, which a Bun host refuses by name (test/bun/bun-host.test.ts).
 * A test that names no isolation runs everywhere: on Bun its confined hook runs in a child process on Node.
 */
const NOT_IN_A_BUN_WORKER: Record<string, string> = {
  "every synchronous member works, including modelRegistry methods and the theme": "a worker named with the default policy (confined): refused on Bun",
  "an error claiming ERR_WORKER_OUT_OF_MEMORY and V8's fatal text on stderr are reported as crashed, not out_of_memory": "output capture: a Bun worker writes to the host's streams",
  "heap exhaustion is reported as out_of_memory and the host keeps running": "memory: Bun ignores a worker's resourceLimits (it would take the host's memory)",
  "a tool_call whose handler fails with out_of_memory is blocked (fail closed), the reason naming the hook and the code": "memory: Bun ignores a worker's resourceLimits (it would take the host's memory)",
  "a stdout flood written without waiting (256 MiB, then 200 000 lines) lags the host's event loop under 1 s": "output capture: a Bun worker writes to the host's streams",
  "console output and a 512 MiB stdout flood reach onLog bounded, never the host's stdout, and the host's memory stays bounded": "output capture: a Bun worker writes to the host's streams",
  // test/host-values.test.ts: the frames of process and sandbox modes carry these values on Bun too.
  "a hook sees session_before_compact's Sets, Map, Date, BigInt, undefined keys, holes, NaN and -0 as the host built them": "Bun 1.3.14's structured clone resolves an object shared after a BigInt to the wrong object (structuredClone({ b: 1n, n: [1], x: s, y: s }).y is [1])",
  "what the hook returns, sends and appends comes back as it built it": "the same Bun structured clone fault, on the event the hook echoes",
  "a hook that hands back the Sets, Map and Date it was given has no effect": "a worker named with a policy over confined (effects restrict): refused on Bun",
  "a module's own output reaches the agent's stderr": "output capture: a Bun worker writes to the host's streams",
  "a module's output and its answers arrive in order": "output capture: a Bun worker writes to the host's streams",
};
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const skipping = (names: string[]) => new RegExp(`^(?!.*(${names.map(escape).join("|")}))`);

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    setupFiles: ["test/support/intrinsics.ts"],
    // Every pinned agent installed once, before any test file starts (two files installing at once broke the cache).
    // and a private temporary folder per run: nothing an earlier run left in the host's caches reaches this one.
    globalSetup: ["test/support/install-agents.ts", "test/support/private-tmp.ts"],
    maxWorkers: 2,
    // Why inline: vitest's external-module interop under Bun loses zod's named exports.
    server: { deps: { inline: ["zod"] } },
    exclude: [...configDefaults.exclude],
    projects: [
      // The approvals store (fingerprints, the store file) with Bun as the host: oh-my-pi runs isolateDiscovered on Bun.
      { extends: true, test: { name: "bun-host", include: ["test/bun/**/*.test.ts", "test/approval.test.ts"] } },
      { extends: true, test: { name: "bun-worker", include: SUITES, testNamePattern: skipping(Object.keys(NOT_IN_A_BUN_WORKER)), env: { HOOKBOX_TEST_ISOLATION: "worker", HOOKBOX_TEST_POLICY: "trusted" } } },
      { extends: true, test: { name: "bun-process", include: SUITES, env: { HOOKBOX_TEST_ISOLATION: "process" } } },
      ...(sandbox.ok ? [{ extends: true as const, test: { name: "bun-sandbox", include: SUITES, env: { HOOKBOX_TEST_ISOLATION: "sandbox" } } }] : []),
    ],
  },
});
