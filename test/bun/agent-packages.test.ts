/**
 * oh-my-pi's own packages imported by value from an isolated module on a Bun host (bun-host
 * project): the names resolve as oh-my-pi resolves them for an extension in its process
 * (src/discovery/agent-packages.ts: its shims of `@oh-my-pi/pi-coding-agent` and `pi-ai`, the
 * legacy scopes, its TypeBox facade), loaded by the module's own Bun worker. Without the agent's
 * table (the control) the same module does not load: Bun's own import of the package root lacks
 * the shim's exports.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { prepareExtensionModules, settleModules } from "../../src/runner/loader.js";
import { ompAgentModules } from "../../src/discovery/agent-packages.js";
import type { IsolatedHook } from "../../src/runner/isolated-hook.js";
import { toolCall } from "../helpers/events.js";
import { fixture, host, ROOT } from "../helpers/host.js";
import { installOmp } from "../support/pi-run.js";
import { presets } from "../../src/policy/policy.js";
import { sandboxAvailability } from "../../src/isolation/bubblewrap/bwrap.js";

const MODULE = fixture("extensions/imports-omp-packages.ts");
const OMP_ROOT = join(installOmp(), "..", "..");

describe("an isolated module importing oh-my-pi's packages, in a trusted Bun worker", () => {
  it("gets what oh-my-pi's process gives it (the shims' exports), run in its own runtime", async () => {
    const table = ompAgentModules(OMP_ROOT);
    expect(table?.alias["@oh-my-pi/pi-coding-agent"]).toBe(join(OMP_ROOT, "src", "extensibility", "legacy-pi-coding-agent-shim.ts"));
    const { hooks, errors } = await settleModules(prepareExtensionModules([MODULE], ROOT, { isolation: "worker", policy: "trusted" }, table));
    expect(errors).toEqual([]);
    const expected = { block: true, reason: JSON.stringify({ text: "[User]: hi", getModel: "getBundledModel", type: "function", message: "function" }) };
    expect(await host(hooks).runner.emitToolCall(toolCall("ls"))).toEqual(expected);
    // A reload (the watcher's) starts the same module afresh, with the same table.
    const again = (hooks[0] as IsolatedHook).fresh();
    expect(await again.start()).toBeUndefined();
    expect(await host([again]).runner.emitToolCall(toolCall("ls"))).toEqual(expected);
  });

  it("control: without the agent's table the module does not load (load_failed)", async () => {
    const { hooks, errors } = await settleModules(prepareExtensionModules([MODULE], ROOT, { isolation: "worker", policy: "trusted" }));
    expect(hooks).toEqual([]);
    expect(errors.map((e) => e.code)).toEqual(["load_failed"]);
  });
});

describe.skipIf(!sandboxAvailability().ok)("an isolated module importing oh-my-pi's packages, in sandbox isolation (on Node)", () => {
  it("a subpath written for Node too (@oh-my-pi/pi-utils/chalk, as extensions/chalk-logger.ts) loads with the agent's table: Node does not import the agent's files natively", async () => {
    const table = ompAgentModules(OMP_ROOT);
    const policy = { ...presets.untrusted, fsRead: [join(OMP_ROOT, "..")] };
    const { hooks, errors } = await settleModules(prepareExtensionModules([fixture("extensions/imports-omp-chalk.ts")], ROOT, { isolation: "sandbox", policy }, table));
    expect(errors).toEqual([]);
    expect(await host(hooks).runner.emitToolCall(toolCall("ls"))).toEqual({ block: true, reason: "chalk function" });
  });
});
