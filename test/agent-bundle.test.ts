/**
 * The agent's TypeBox as one prebuilt file (src/isolation/agent-bundle.ts): a module whose top file
 * imports it gets the host's bundle of the package in its load spec, and its isolate evaluates that
 * one file where it would have evaluated the package's 700 (worker/agent-packages.mjs). The package
 * is a copy of pi's installed TypeBox in a folder of the test (so that the test can change it); the
 * module (fixtures/extensions/builds-typebox-schemas.ts) reports the file TypeBox's code ran from
 * (a frame of a throw inside it), so which one was evaluated is a fact it reports, not a timing.
 * Each "host" is a fresh alias table: the host reads a bundle once per table and cache folder.
 */
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { prepareExtensionModules, settleModules } from "../src/runner/loader.js";
import type { LoadedHook } from "../src/runner/hook.js";
import type { IsolatedHook } from "../src/runner/isolated-hook.js";
import type { AgentModules } from "../src/contract/protocol.js";
import { agentBundleForLoad, agentBundlesFor } from "../src/isolation/agent-bundle.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/availability.js";
import { unseal } from "../src/gates/sealed.js";
import { piAgentModules } from "../src/discovery/agent-packages.js";
import { withAgentExports } from "../src/extension/agent-exports-cache.js";
import { ROOT, until } from "./helpers/host.js";
import { installPiDir } from "./support/pi-run.js";

const MODULE = join(ROOT, "fixtures", "extensions", "builds-typebox-schemas.ts");
const PI = join(installPiDir(), "node_modules", "@mariozechner", "pi-coding-agent");
const TYPEBOX = join(installPiDir(), "node_modules", "typebox");
const temps: string[] = [];
const temp = (what: string) => { const dir = mkdtempSync(join(tmpdir(), `hookbox-bundle-${what}-`)); temps.push(dir); return dir; };
/** A copy of the agent's TypeBox the test may change. */
const copyOfTypebox = () => { const dir = join(temp("pkg"), "typebox"); cpSync(TYPEBOX, dir, { recursive: true }); return dir; };
const disposing: LoadedHook[] = [];
afterEach(async () => { await Promise.all(disposing.splice(0).map((h) => h.dispose?.())); });
afterAll(() => { for (const dir of temps) rmSync(dir, { recursive: true, force: true }); });

type Isolation = "worker" | "process" | "sandbox";
const MODES: Isolation[] = sandboxAvailability().ok ? ["worker", "process", "sandbox"] : ["worker", "process"];

/** A new host's table naming `pkg` as the agent's TypeBox, as pi's table does. */
const tableOf = (pkg: string): AgentModules => ({
  alias: { typebox: join(pkg, "build", "index.mjs"), "typebox/compile": join(pkg, "build", "compile", "index.mjs"), "typebox/value": join(pkg, "build", "value", "index.mjs") },
  native: [],
});

interface Report { from: string; check: boolean[]; created: unknown; names: number; marked?: number; tag: string }

/** The module loaded by a host with `table`: what it reported, and its tool's parameters as JSON text. */
async function load(table: AgentModules, cacheDir: string | false, isolation: Isolation, pkg: string, maxMessageBytes?: number) {
  const { hooks, errors } = await settle(table, cacheDir, isolation, pkg, maxMessageBytes);
  disposing.push(...hooks);
  expect(errors).toEqual([]);
  const tool = (hooks[0] as IsolatedHook).manifest.tools![0]!;
  return { report: JSON.parse(tool.description) as Report, parameters: JSON.stringify(tool.parameters) };
}

/** The module's load by a host with `table`, its policy granting `fsRead` (the package's folder). */
async function settle(table: AgentModules, cacheDir: string | false, isolation: Isolation, fsRead: string, maxMessageBytes?: number) {
  return settleModules(prepareExtensionModules([MODULE], ROOT, { isolation, transformCacheDir: cacheDir, policy: { fsRead: [fsRead] }, ...(maxMessageBytes ? { maxMessageBytes } : {}) }, table));
}

/** Wait for the host of `table` to have built its bundle in `cacheDir`; the bundle's file. */
async function built(table: AgentModules, cacheDir: string): Promise<string> {
  const bundles = agentBundlesFor(table, cacheDir)!;
  await until(() => bundles.building !== undefined, 10_000, "the bundle's build to start");
  await bundles.building;
  expect(existsSync(bundles.file)).toBe(true);
  return bundles.file;
}

/** A copy of the agent's TypeBox, a cache folder, and the bundle a host built there after a module's first load (which had none). */
async function builtBundle(isolation: Isolation): Promise<{ pkg: string; cache: string; file: string }> {
  const pkg = copyOfTypebox();
  const cache = temp("cache");
  const table = tableOf(pkg);
  await load(table, cache, isolation, pkg);
  return { pkg, cache, file: await built(table, cache) };
}

const bundleOf = (pkg: string) => join(pkg, "hookbox-bundle.cjs");
const inPackage = (pkg: string, from: string) => from.startsWith(join(pkg, "build") + "/") && from.endsWith(".mjs");

describe.each(MODES)("the agent's TypeBox as one file (%s)", (isolation) => {
  it("a module importing it loads from the host's bundle once built, and registers the very schema the package gives", async () => {
    const pkg = copyOfTypebox();
    const cache = temp("cache");
    const first = tableOf(pkg);
    const native = await load(first, cache, isolation, pkg);
    expect(inPackage(pkg, native.report.from)).toBe(true);
    await built(first, cache);
    const bundled = await load(tableOf(pkg), cache, isolation, pkg);
    expect(bundled.report.from).toBe(bundleOf(pkg));
    expect(bundled.parameters).toBe(native.parameters);
    expect({ ...bundled.report, from: "" }).toEqual({ ...native.report, from: "" });
    expect(native.report).toMatchObject({ check: [true, false], created: { n: 3 }, tag: "[object Module]" });
  });

  it("a policy that reaches the cache folder holding the bundle is refused before the module runs (load_failed)", async () => {
    const { pkg, cache } = await builtBundle(isolation);
    const modules = prepareExtensionModules([MODULE], ROOT, { isolation, transformCacheDir: cache, policy: { fsRead: [pkg, cache] } }, tableOf(pkg));
    const { hooks, errors } = await settleModules(modules);
    disposing.push(...hooks);
    expect(hooks).toEqual([]);
    expect(errors).toEqual([{ path: MODULE, code: "load_failed", error: expect.stringContaining("which holds the host's transform cache") }]);
  });
});

describe.each(MODES)("what a module may load, bundle or not (%s)", (isolation) => {
  it("one whose policy does not grant the package's files fails as without the bundle (load_failed): the bundle changes the cost, not what loads", async () => {
    const { pkg, cache } = await builtBundle(isolation);
    expect((await load(tableOf(pkg), cache, isolation, pkg)).report.from).toBe(bundleOf(pkg));
    const elsewhere = temp("elsewhere");
    const { hooks, errors } = await settle(tableOf(pkg), cache, isolation, elsewhere);
    disposing.push(...hooks);
    expect(hooks).toEqual([]);
    expect(errors).toEqual([{ path: MODULE, code: "load_failed", error: expect.stringContaining(join(pkg, "build")) }]);
  });
});

describe("the bundle's file (worker)", () => {
  it("a cut or changed file is dropped at its read, never evaluated: that start loads the package itself, and the host builds it again", async () => {
    const { pkg, cache, file } = await builtBundle("worker");
    const good = readFileSync(file);
    const text = good.toString("utf8");
    const tampered = [
      // The text changed after it was sealed: code that would fail the module's load if it ran.
      text.replace("var __defProp = Object.defineProperty;", "throw new Error(\"the tampered bundle was evaluated\");var __defProp = Object.defineProperty;"),
      // Cut.
      text.slice(0, text.length >> 1),
      // Not a bundle.
      "garbage",
    ];
    for (const bad of tampered) {
      writeFileSync(file, bad);
      const host = tableOf(pkg);
      const { report } = await load(host, cache, "worker", pkg);
      expect(inPackage(pkg, report.from)).toBe(true);
      await built(host, cache);
      expect(unseal("hookbox-agent-bundle-1", readFileSync(file))).toBeDefined();
      expect(readFileSync(file).equals(good)).toBe(true);
    }
    expect((await load(tableOf(pkg), cache, "worker", pkg)).report.from).toBe(bundleOf(pkg));
  });

  it("a package changed in place gets a new bundle: the start after the change loads the package itself, the next one its new bundle", async () => {
    const { pkg, cache, file } = await builtBundle("worker");
    const before = (await load(tableOf(pkg), cache, "worker", pkg)).report;
    expect(before.from).toBe(bundleOf(pkg));
    expect(before.marked).toBeUndefined();
    appendFileSync(join(pkg, "build", "index.mjs"), "\nexport const HookboxMarker = 7;\n");
    const changed = tableOf(pkg);
    const after = await load(changed, cache, "worker", pkg);
    expect(inPackage(pkg, after.report.from)).toBe(true);
    expect(after.report.marked).toBe(7);
    await built(changed, cache);
    expect(readFileSync(file, "utf8")).toContain("HookboxMarker");
    expect((await load(tableOf(pkg), cache, "worker", pkg)).report).toMatchObject({ from: bundleOf(pkg), marked: 7 });
  });

  it("a maxMessageBytes below the bundle's size gives none: the package itself, in a process too (its frames are bounded by it)", async () => {
    const { pkg, cache, file } = await builtBundle("worker");
    const small = readFileSync(file).length >> 1;
    for (const isolation of ["worker", "process"] as const) {
      expect(inPackage(pkg, (await load(tableOf(pkg), cache, isolation, pkg, small)).report.from)).toBe(true);
    }
  });

  it("a top file larger than one file the hook's transform budget takes gives none: the host does not read it (a hook may write a huge one)", async () => {
    const { pkg, cache } = await builtBundle("worker");
    const table = tableOf(pkg);
    const top = join(temp("top"), "big.ts");
    writeFileSync(top, `import { Type } from "typebox";\n// ${"x".repeat(2048)}\n`);
    const size = readFileSync(top).length;
    const under = await agentBundleForLoad(table, cache, top, 1 << 20, size);
    under.settled();
    expect(under.given?.name).toBe(bundleOf(pkg));
    const over = await agentBundleForLoad(table, cache, top, 1 << 20, size - 1);
    over.settled();
    expect(over.given).toBeUndefined();
  });

  it("transformCacheDir false: no bundle, the package itself", async () => {
    const pkg = copyOfTypebox();
    const table = tableOf(pkg);
    expect(agentBundlesFor(table, false)).toBeUndefined();
    expect(inPackage(pkg, (await load(table, false, "worker", pkg)).report.from)).toBe(true);
  });
});

describe("pi's examples that build schemas with TypeBox (worker)", () => {
  const EXAMPLES = join(PI, "examples", "extensions");
  const users = ["dynamic-tools.ts", "question.ts", "questionnaire.ts", "reload-runtime.ts", "shutdown-command.ts", "structured-output.ts", "tic-tac-toe.ts",
    "todo.ts", "tool-override.ts", "truncated-tool.ts", "subagent/index.ts", "with-deps/index.ts"].map((name) => join(EXAMPLES, name));

  /**
   * What each example registered (its tools' parameters as JSON text), and what failed, by a host of
   * a new pi table; four at a time (twelve workers evaluating pi's packages at once on the shared
   * machine can pass a load deadline, which is not what this compares).
   */
  async function registered(cache: string | false) {
    // As isolate() makes it: pi's table with the map of which file defines each name (src/extension/agent-exports-cache.ts).
    const table = withAgentExports(piAgentModules(PI), cache)!;
    const tools: Record<string, string> = {};
    const errors: unknown[] = [];
    for (let i = 0; i < users.length; i += 4) {
      const settled = await settleModules(prepareExtensionModules(users.slice(i, i + 4), EXAMPLES, { isolation: "worker", transformCacheDir: cache, policy: "trusted" }, table));
      for (const h of settled.hooks) tools[h.path] = JSON.stringify((h as IsolatedHook).manifest.tools?.map((t) => [t.name, t.parameters]));
      errors.push(...settled.errors);
      await Promise.all(settled.hooks.map((h) => h.dispose?.()));
    }
    return { table, tools, errors };
  }

  it("register byte-identical tool parameters with and without the bundle", async () => {
    // Without: no cache folder, no bundle. With: a host that built it first (from question.ts's load).
    const native = await registered(false);
    const cache = temp("cache");
    const builder = withAgentExports(piAgentModules(PI), cache)!;
    const first = await settleModules(prepareExtensionModules([users[1]!], EXAMPLES, { isolation: "worker", transformCacheDir: cache, policy: "trusted" }, builder));
    disposing.push(...first.hooks);
    await built(builder, cache);
    const bundled = await registered(cache);
    expect(Object.keys(native.tools).length).toBeGreaterThanOrEqual(3);
    expect(bundled.tools).toEqual(native.tools);
    expect(bundled.errors).toEqual(native.errors);
    // pi-ai's StringEnum (todo.ts) is defined in a file that imports typebox alone: it is in the bundle, evaluated with its TypeBox.
    const body = unseal("hookbox-agent-bundle-1", readFileSync(agentBundlesFor(builder, cache)!.file))!;
    const meta = JSON.parse(body.subarray(0, body.indexOf(10)).toString("utf8")) as { entries: Record<string, string> };
    const stringEnum = Object.values(builder.exports!).map((map) => map.files[map.names.StringEnum?.[0] ?? -1]).find(Boolean)!;
    expect(stringEnum).toMatch(/pi-ai\/dist\/.*\.js$/);
    expect(Object.keys(meta.entries)).toContain(stringEnum);
    expect(bundled.tools[users[7]!]).toContain("enum");
  }, 120_000);
});
