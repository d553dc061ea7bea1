import { chmodSync, copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSessionManager, discoverAndLoadHooks, loadHooks, presets, type LoadedHook } from "../src/index.js";
import { fixture, host } from "./helpers/host.js";
import { projectAndHome } from "./support/folders.js";
import { sandboxUnavailable, sayWhySkipped } from "./support/sandbox.js";

const noSandbox = await sandboxUnavailable();
sayWhySkipped("the trust tests that load a hook in the sandbox", noSandbox);

const loaded: LoadedHook[] = [];
afterEach(async () => { await Promise.all(loaded.splice(0).map((h) => h.sandbox?.dispose())); });
beforeAll(() => { process.env.OPENAI_API_KEY = "sk-host-only"; });
afterAll(() => { delete process.env.OPENAI_API_KEY; });

function place(rel: string, dest: string, mode = 0o644) {
  mkdirSync(dirname(dest), { recursive: true });
  copyFileSync(fixture(rel), dest);
  chmodSync(dest, mode);
  return dest;
}

/** A project hook, a user hook and a configured hook, each the confinement probe. */
function threeOrigins() {
  const { cwd, home } = projectAndHome("hookbox-trust-");
  return {
    cwd, home,
    project: place("hostile/probes-confinement.ts", join(cwd, ".xcsh/hooks/pre/probe.ts")),
    user: place("hostile/probes-confinement.ts", join(home, ".claude/hooks/pre/probe-user.ts")),
    configured: place("hostile/probes-confinement.ts", join(home, "mine/probe.ts")),
  };
}

async function discover(...args: Parameters<typeof discoverAndLoadHooks>) {
  const [paths, cwd, options] = args;
  const result = await discoverAndLoadHooks(paths, cwd, { approvals: false, ...options });
  loaded.push(...result.hooks);
  return result;
}

/** What the probe hook at `path` sees of the host's secret, through a real tool_call. */
async function secretSeenBy(hooks: LoadedHook[], path: string): Promise<string | null> {
  const hook = hooks.find((h) => h.path === path)!;
  const { runner } = host([hook], { cwd: "/", sessionManager: createSessionManager({ cwd: "/" }) });
  const r = await runner.emitToolCall({ type: "tool_call", toolName: "probe", toolCallId: "c", input: { probe: "env" } });
  return JSON.parse(r!.reason!).secret;
}

describe("trust by origin", () => {
  it("project-level hooks are untrusted (the sandbox), user-level and configured hooks get the seat belt, and the report says so", async () => {
    const { cwd, home, project, user, configured } = threeOrigins();
    const result = await discover([configured], cwd, { home });
    expect(result.discovery.trust).toEqual([
      { path: project, origin: "project", policy: "untrusted", isolation: "sandbox" },
      { path: user, origin: "user", policy: "confined", isolation: "worker" },
      { path: configured, origin: "configured", policy: "confined", isolation: "worker" },
    ]);
    for (const path of [user, configured]) {
      const hook = result.hooks.find((h) => h.path === path)!;
      expect(hook.sandbox!.options.policy).toEqual(presets.confined);
      expect(await secretSeenBy(result.hooks, path)).toBeNull();
    }
  });

  it.skipIf(noSandbox)("a project-level hook loads in the sandbox by default", async () => {
    const { cwd, home, project } = threeOrigins();
    const result = await discover([], cwd, { home });
    expect(result.errors).toEqual([]);
    const hook = result.hooks.find((h) => h.path === project)!;
    expect(hook.sandbox!.options.isolation).toBe("sandbox");
    expect(hook.sandbox!.options.policy).toEqual(presets.untrusted);
    expect(await secretSeenBy(result.hooks, project)).toBeNull();
  });

  it("trust.project and trust.user replace the defaults of their level", async () => {
    const { cwd, home, project, user } = threeOrigins();
    const result = await discover([], cwd, { home, trust: { project: "confined", user: "trusted" } });
    expect(result.errors).toEqual([]);
    expect(result.discovery.trust.map((t) => [t.origin, t.policy, t.isolation])).toEqual([["project", "confined", "worker"], ["user", "trusted", "worker"]]);
    expect(await secretSeenBy(result.hooks, project)).toBeNull();
    expect(await secretSeenBy(result.hooks, user)).toBe("sk-host-only");
  });

  it("the policy option sets user-level and configured hooks, never project-level ones", async () => {
    const { cwd, home, configured } = threeOrigins();
    const result = await discover([configured], cwd, { home, policy: "trusted", trust: { byPath: {} } });
    expect(result.discovery.trust.map((t) => [t.origin, t.policy])).toEqual([["project", "untrusted"], ["user", "trusted"], ["configured", "trusted"]]);
    expect(await secretSeenBy(result.hooks, configured)).toBe("sk-host-only");
  });

  it("trust.byPath wins over the level, and perHook's policy wins over trust.byPath", async () => {
    const { cwd, home, project, user, configured } = threeOrigins();
    const result = await discover([configured], cwd, { home,
      trust: { byPath: { [project]: "trusted", [user]: "trusted", [configured]: "trusted" } },
      perHook: { [configured]: { policy: { env: ["OPENAI_API_KEY"], fsRead: ["/etc/hostname"] } } } });
    expect(result.errors).toEqual([]);
    expect(result.discovery.trust.map((t) => [t.origin, t.policy, t.isolation]))
      .toEqual([["project", "trusted", "worker"], ["user", "trusted", "worker"], ["configured", "custom", "worker"]]);
    expect(await secretSeenBy(result.hooks, project)).toBe("sk-host-only");
    const custom = result.hooks.find((h) => h.path === configured)!;
    expect(custom.sandbox!.options.policy).toMatchObject({ permissionModel: true, env: ["OPENAI_API_KEY"], fsRead: ["/etc/hostname"] });
  });

  it("a project-level hook under an explicit weaker isolation fails to load with load_failed, and the user-level hook still loads", async () => {
    const { cwd, home, project, user } = threeOrigins();
    const result = await discover([], cwd, { home, isolation: "process" });
    expect(result.hooks.map((h) => h.path)).toEqual([user]);
    expect(result.errors).toEqual([expect.objectContaining({ path: project, code: "load_failed" })]);
    expect(result.errors[0]!.error).toContain('isolation "process" was asked for, but its policy is untrusted (the OS sandbox): it needs isolation "sandbox"');
    expect(result.discovery.trust[0]).toEqual({ path: project, origin: "project", policy: "untrusted" });
  });

  it("a project-level shell hook is refused with load_failed unless trusted, and then runs as an unconfined shell hook", async () => {
    const { cwd, home } = projectAndHome("hookbox-trust-");
    const script = place("shell/blocks-rm-rf-by-exit-2.sh", join(cwd, ".xcsh/hooks/pre/bash.sh"), 0o755);
    const refused = await discover([], cwd, { home, shellHooks: true });
    expect(refused.errors).toEqual([expect.objectContaining({ path: script, code: "load_failed" })]);
    expect(refused.errors[0]!.error).toContain('project-level shell hook, and its policy (untrusted) needs the OS sandbox');
    expect(refused.errors[0]!.error).toContain('{ trust: { project: "trusted" } }');
    const trusted = await discover([], cwd, { home, shellHooks: true, trust: { byPath: { [script]: "trusted" } } });
    expect(trusted.errors).toEqual([]);
    expect(trusted.discovery.trust).toEqual([{ path: script, origin: "project", policy: "trusted", isolation: "shell" }]);
  });
});

describe("policy and isolation", () => {
  const probe = fixture("hostile/probes-confinement.ts");

  it("loadHooks without a policy gives each hook the seat belt (confined) in a worker", async () => {
    const { hooks } = await loadHooks([probe], process.cwd());
    loaded.push(...hooks);
    expect(hooks[0]!.sandbox!.options.policy).toEqual(presets.confined);
    expect(hooks[0]!.sandbox!.options.isolation).toBe("worker");
    expect(await secretSeenBy(hooks, probe)).toBeNull();
  });

  it.each(["worker", "process"] as const)("policy untrusted with isolation %s fails to load with load_failed naming both", async (isolation) => {
    const { hooks, errors } = await loadHooks([probe], process.cwd(), { policy: "untrusted", isolation });
    loaded.push(...hooks);
    expect(hooks).toEqual([]);
    expect(errors).toEqual([{ path: probe, code: "load_failed", error: expect.stringContaining(`isolation "${isolation}" was asked for, but its policy is untrusted`) }]);
  });

  it.each(["worker", "process"] as const)("a network allow-list with isolation %s fails to load with load_failed naming both: only the sandbox enforces it", async (isolation) => {
    const { hooks, errors } = await loadHooks([probe], process.cwd(), { policy: { network: { allow: ["api.example.com:443"] } }, isolation });
    loaded.push(...hooks);
    expect(errors).toEqual([{ path: probe, code: "load_failed", error: expect.stringContaining(`isolation "${isolation}" was asked for, but its policy allows network hosts (api.example.com:443), which only the sandbox enforces`) }]);
  });

  it("a malformed network allow entry fails to load with load_failed saying what is accepted; an unknown preset is the host's TypeError", async () => {
    const bad = await loadHooks([probe], process.cwd(), { policy: { network: { allow: ["*.example.com"] } } });
    expect(bad.errors).toEqual([{ path: probe, code: "load_failed", error: expect.stringContaining('"*.example.com" is not host:port') }]);
    // Options are checked at the boundary (test/options.test.ts).
    await expect(loadHooks([probe], process.cwd(), { policy: "sandboxed" as never })).rejects.toThrow(new TypeError('loadHooks: option "policy" is "sandboxed", which is not one of "trusted", "confined", "untrusted"'));
  });

  it.skipIf(noSandbox)("policy untrusted alone implies isolation sandbox", async () => {
    const { hooks, errors } = await loadHooks([probe], process.cwd(), { policy: "untrusted" });
    loaded.push(...hooks);
    expect(errors).toEqual([]);
    expect(hooks[0]!.sandbox!.options.isolation).toBe("sandbox");
  });
});
