import { describe, expect, it } from "vitest";
import { SandboxBridge } from "../src/bridge/bridge.js";
import { presets } from "../src/policy/policy.js";
import { HostHandlers } from "../src/runner/host-handlers.js";
import { createSessionManager, createModelRegistry } from "../src/bridge/host-setup.js";

/** A sandbox's bridge as a sandbox builds it, with a real log sink and no worker behind it. */
function bridge(lines: string[]) {
  return new SandboxBridge({
    hookPath: "hook.ts", cwd: process.cwd(), gate: { policy: presets.trusted, record: () => {} },
    onLog: (_path, level, line) => lines.push(`${level} ${line}`),
    hostModules: {}, policy: presets.trusted, isolation: "worker", terminal: {},
    transform: async () => ({ code: "" }), runSetup: async () => {}, renderer: () => () => undefined, customRender: () => ({ ok: false }),
  });
}

describe("a sandbox's bridge before the runner installs its surface", () => {
  it("serves the rows marked atLoad (log) and refuses the others with the reason", async () => {
    const lines: string[] = [];
    const b = bridge(lines);
    b.post("log", ["info", "from the factory"]);
    expect(lines).toEqual(["info from the factory"]);
    await expect(b.call("confirm", ["t", "m"])).rejects.toThrow("confirm is not available before the hook runner exists");
    expect(() => b.sync("isIdle", [])).toThrow("isIdle is not available before the hook runner exists");
    expect(() => b.post("sendMessage", [{ customType: "x", content: "y", display: true }, undefined])).toThrow(/before the hook runner exists/);
  });

  it("serves every row once the runner installed its surface, log included", async () => {
    const lines: string[] = [];
    const b = bridge(lines);
    const host = new HostHandlers(process.cwd(), createSessionManager(), createModelRegistry());
    b.install(host.surface("hook.ts", (_path, level, line) => lines.push(`runner ${level} ${line}`)));
    expect(b.sync("isIdle", [])).toBe(true);
    b.post("log", ["warn", "from a handler"]);
    expect(lines).toEqual(["runner warn from a handler"]);
  });
});
