/**
 * hookbox with Bun as the host (vitest.bun.config.ts runs this file under `bun --bun`; the Node
 * suite excludes it). Every mode × policy either runs with its limits enforced or is refused by
 * name: a Bun worker has no permission model, so `confined` and `untrusted` are refused there;
 * process and sandbox hooks run on Node, confined exactly as on a Node host.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HookFailure, loadHooks, type LoadOptions } from "../../src/index.js";
import { ancestors, dependencyDir } from "../../src/policy/paths.js";
import { BUN_WORKER_UNENFORCED, childRuntime, HOST_BUN, nodeOnPath } from "../../src/policy/runtime.js";
import { sandboxAvailability } from "../../src/isolation/bubblewrap/bwrap.js";
import { toolCall } from "../helpers/events.js";
import { expectHeapExhaustionContained } from "../helpers/contained.js";
import { fixture, host, ROOT, start } from "../helpers/host.js";

const PROBES = fixture("hostile/probes-confinement.ts");
const outside = join(tmpdir(), `hookbox-bun-outside-${process.pid}.txt`);
const probe = (p: string, path?: string) => ({ ...toolCall(), input: { probe: p, path } });
const sandbox = sandboxAvailability();

beforeAll(() => { writeFileSync(outside, "secret file"); process.env.OPENAI_API_KEY = "sk-host-only"; });
afterAll(() => { delete process.env.OPENAI_API_KEY; });

async function thrown(promise: Promise<unknown>): Promise<HookFailure> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(HookFailure);
  return err as HookFailure;
}

async function loadFails(options: LoadOptions): Promise<{ code: string; error: string }> {
  const { hooks, errors } = await loadHooks([PROBES], ROOT, options);
  await Promise.all(hooks.map((h) => h.sandbox?.dispose()));
  expect(hooks).toEqual([]);
  expect(errors).toHaveLength(1);
  return errors[0]!;
}

/** Run `fn` with the host's PATH set to `path` (how "no Node here" is simulated). */
async function withPath<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const saved = process.env.PATH;
  process.env.PATH = path;
  try {
    return await fn();
  } finally {
    process.env.PATH = saved;
  }
}

describe("a Bun host", () => {
  it("is Bun: this file runs under `bun --bun` (vitest.bun.config.ts)", () => {
    expect(HOST_BUN).toMatch(/^1\.\d+\.\d+/);
    expect(process.versions.bun).toBe(HOST_BUN);
  });

  it("finds hookbox's dependencies by their package.json, where walking up from Bun's built-in undici never ended", () => {
    // Under Bun require.resolve("undici") is the bare built-in name; its dirname is "." for ever.
    expect(dependencyDir("undici")).toBe(join(ROOT, "node_modules/undici"));
    expect([...ancestors(".")]).toEqual(["."]);
    expect([...ancestors("undici")]).toEqual(["undici", "."]);
  });

  it("runs process- and sandbox-mode hooks on node from PATH, asked for its own version (Bun reports Node 24.3.0)", () => {
    const runtime = childRuntime(undefined);
    if (typeof runtime === "string") throw new Error(runtime);
    const own = execFileSync(runtime.path, ["-p", "process.versions.node"], { encoding: "utf8" }).trim();
    expect(runtime.node).toBe(own);
    expect(runtime.path).not.toBe(process.execPath);
    const hasPermission = execFileSync(runtime.path, ["-p", "process.allowedNodeEnvironmentFlags.has('--permission')"], { encoding: "utf8" }).trim();
    expect(runtime.permissionFlag).toBe(hasPermission === "true" ? "--permission" : "--experimental-permission");
  });

  it("takes no node on PATH that is another copy of Bun (Bun's /tmp/bun-node-<revision>/node shim points at whichever copy of that revision made it)", () => {
    const dir = mkdtempSync(join(tmpdir(), "hookbox-bun-copy-"));
    const copy = join(dir, "copy", "bun");
    mkdirSync(join(dir, "copy"));
    mkdirSync(join(dir, "shim"));
    try { linkSync(process.execPath, copy); } catch { copyFileSync(process.execPath, copy); chmodSync(copy, 0o755); }
    symlinkSync(copy, join(dir, "shim", "node"));
    const saved = process.env.PATH;
    process.env.PATH = `${join(dir, "shim")}:${saved}`;
    try {
      const found = nodeOnPath();
      expect(found).toBeDefined();
      expect(realpathSync(found!)).not.toBe(realpathSync(copy));
      expect(execFileSync(found!, ["-p", "typeof Bun"], { encoding: "utf8" }).trim()).toBe("undefined");
    } finally {
      process.env.PATH = saved;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("worker mode on a Bun host", () => {
  it("refuses a confined hook by name (load_failed): Bun has no permission model", async () => {
    const e = await loadFails({ isolation: "worker", policy: "confined" });
    expect(e.code).toBe("load_failed");
    expect(e.error).toContain('isolation "worker" on a Bun host');
    expect(e.error).toContain("Node's permission model");
    expect(e.error).toContain('Use isolation "process" or "sandbox"');
    expect(e.error).toContain('policy "trusted"');
  });

  it("refuses a partial policy that only narrows the environment, when the worker is named", async () => {
    const narrowed = await loadFails({ isolation: "worker", policy: { permissionModel: false, env: [] } });
    expect(narrowed.code).toBe("load_failed");
    expect(narrowed.error).toContain("a restricted environment");
  });

  it("refuses an untrusted hook by name (load_failed)", async () => {
    const e = await loadFails({ isolation: "worker", policy: "untrusted" });
    expect(e.code).toBe("load_failed");
    expect(e.error).toContain('it needs isolation "sandbox"');
  });

  it("loads a trusted hook and says which limits Bun does not enforce: load warnings, the sandbox view, runner.stats()", async () => {
    const { hooks, errors, warnings } = await loadHooks([PROBES], ROOT, { isolation: "worker", policy: "trusted" });
    expect(errors).toEqual([]);
    expect(warnings).toEqual([{ path: PROBES, warning: expect.stringContaining("not enforced on this host's runtime (Bun, worker mode)") }]);
    for (const limit of ["memory", "environment", "output capture"]) expect(warnings![0]!.warning).toContain(limit);
    expect(hooks[0]!.sandbox!.unenforced).toEqual(BUN_WORKER_UNENFORCED);
    const { runner } = host(hooks);
    expect(await runner.emitToolCall(probe("read", outside))).toEqual({ block: true, reason: "secret file" });
    expect(runner.stats()[0]!.unenforced).toEqual(BUN_WORKER_UNENFORCED);
  });

  it("dispose() returns (Bun's MessagePort never emits close): well within the bound, every hook disposed", async () => {
    const { hooks } = await loadHooks([PROBES, fixture("records-call-order")], ROOT, { isolation: "worker", policy: "trusted" });
    const { runner } = host(hooks);
    const t0 = performance.now();
    await runner.dispose();
    expect(performance.now() - t0).toBeLessThan(1_000);
    expect(hooks.map((h) => h.sandbox?.state)).toEqual(["disposed", "disposed"]);
  });
});

const childModes = sandbox.ok ? (["process", "sandbox"] as const) : (["process"] as const);
describe("the default isolation on a Bun host (none named)", () => {
  const chosen = 'isolation "process" was chosen (a child process on Node';

  it("runs a hook with the default policy (confined) in a child process on Node, said once in the load warnings naming why and how to choose, confined as asked", async () => {
    const { hooks, errors, warnings } = await loadHooks([PROBES], ROOT, {});
    expect(errors).toEqual([]);
    expect(hooks[0]!.sandbox!.options.isolation).toBe("process");
    expect(warnings).toEqual([{ path: PROBES, warning: expect.stringContaining(chosen) }]);
    const said = warnings![0]!.warning;
    expect(said).toContain(`no isolation was given, and on a Bun host (Bun ${HOST_BUN}) the default worker cannot enforce what this hook's policy asks (Node's permission model`);
    expect(said).toContain('Set isolation "process" to keep this without the warning, "sandbox" for the OS sandbox, or policy "trusted" for a Bun worker');
    const { runner } = host(hooks);
    const err = await thrown(runner.emitToolCall(probe("read", outside)));
    expect(err.code).toBe("handler_threw");
    expect(err.message).toContain("ERR_ACCESS_DENIED");
  });

  it("does the same for a partial policy that only narrows the environment, and the secret is not in the hook's environment", async () => {
    const { hooks, errors, warnings } = await loadHooks([PROBES], ROOT, { policy: { permissionModel: false, env: [] } });
    expect(errors).toEqual([]);
    expect(hooks[0]!.sandbox!.options.isolation).toBe("process");
    expect(warnings![0]!.warning).toContain("(a restricted environment)");
    const { runner } = host(hooks);
    expect(JSON.parse((await runner.emitToolCall(probe("env")))!.reason!)).toMatchObject({ secret: null });
  });

  it("keeps a trusted hook in a Bun worker (nothing to upgrade for), saying what it does not enforce, and says nothing of a named process", async () => {
    const trusted = await loadHooks([PROBES], ROOT, { policy: "trusted" });
    expect(trusted.hooks[0]!.sandbox!.options.isolation).toBe("worker");
    expect(trusted.warnings).toEqual([{ path: PROBES, warning: expect.stringContaining("not enforced on this host's runtime (Bun, worker mode)") }]);
    const named = await loadHooks([PROBES], ROOT, { isolation: "process" });
    expect(named.errors).toEqual([]);
    expect(named.warnings).toBeUndefined();
    await host([...trusted.hooks, ...named.hooks]).runner.dispose();
  });

  it("without Node it stays a worker and is refused by name, saying no Node was found (fail closed, never silently weaker)", async () => {
    const e = await withPath("/nonexistent", () => loadFails({}));
    expect(e.code).toBe("load_failed");
    expect(e.error).toContain('isolation "worker" on a Bun host');
    expect(e.error).toContain("no Node was found here");
  });
});

describe.each(childModes)("%s mode on a Bun host (the hook runs on Node)", (isolation) => {
  const policy = isolation === "sandbox" ? "untrusted" : "confined";

  it(`a hook with policy ${policy} reading outside its folder gets ERR_ACCESS_DENIED (handler_threw), as on Node`, async () => {
    const { runner } = await start([PROBES], { load: { isolation, policy } });
    const err = await thrown(runner.emitToolCall(probe("read", outside)));
    expect(err.code).toBe("handler_threw");
    expect(err.message).toContain("ERR_ACCESS_DENIED");
  });

  it(`a hook with policy ${policy} cannot start a child process, and the host's secret is not in its environment`, async () => {
    const { runner } = await start([PROBES], { load: { isolation, policy } });
    const err = await thrown(runner.emitToolCall(probe("spawn")));
    expect(err.code).toBe("handler_threw");
    expect(err.message).toContain("ERR_ACCESS_DENIED");
    expect(JSON.parse((await runner.emitToolCall(probe("env")))!.reason!)).toEqual({ secret: null, path: true });
  });

  it("a hook that exhausts its heap is out_of_memory (the child's own limit), and the host keeps running", async () => {
    await expectHeapExhaustionContained({ isolation, policy });
  }, 60_000);

  it("dispose() returns well within the bound", async () => {
    const { hooks } = await loadHooks([PROBES], ROOT, { isolation, policy });
    const { runner } = host(hooks);
    const t0 = performance.now();
    await runner.dispose();
    expect(performance.now() - t0).toBeLessThan(1_000);
  });
});

describe("a Bun host without Node", () => {
  it.each([["process", "confined"], ["sandbox", "untrusted"]] as const)(`refuses %s mode with policy %s (load_failed) saying to install Node or use policy "trusted"`, async (isolation, policy) => {
    const e = await withPath("/nonexistent", () => loadFails({ isolation, policy }));
    expect(e.code).toBe("load_failed");
    expect(e.error).toContain('no "node" was found on PATH');
    expect(e.error).toContain("install Node");
    expect(e.error).toContain('policy "trusted"');
  });

  it("refuses a confined worker saying no Node was found, and still loads a trusted worker", async () => {
    const e = await withPath("/nonexistent", () => loadFails({ isolation: "worker", policy: "confined" }));
    expect(e.code).toBe("load_failed");
    expect(e.error).toContain("no Node was found here");
    const { hooks, errors } = await withPath("/nonexistent", () => loadHooks([PROBES], ROOT, { isolation: "worker", policy: "trusted" }));
    expect(errors).toEqual([]);
    await host(hooks).runner.dispose();
  });

  it(`refuses a "runtime" that is Bun itself, by name`, async () => {
    const e = await loadFails({ isolation: "process", policy: "confined", runtime: process.execPath });
    expect(e.code).toBe("load_failed");
    expect(e.error).toContain(`is Bun ${HOST_BUN}`);
  });
});
