/**
 * A project module under a `node_modules` too large to walk whole (a large JavaScript project's
 * root install: more than `MAX_ROOT_ENTRIES` entries) loads in worker and process modes: that root
 * is granted package by package, the packages the module reaches (its import, and that package's
 * dependency), each walked for links (src/policy/link-walk.ts). What a link planted in that tree
 * can do is what it could before: in a package the module reaches, the load fails naming the link
 * and its target, as under a root walked whole (test/read-grants.test.ts); elsewhere it is not
 * granted, so the secret behind it stays unreadable. A package's undeclared dependency is denied,
 * named, until `policy.fsRead` grants it; the bounds that remain fail the load naming the folder.
 * The tree is built once at test time (hard links to one empty file per folder: ~2 s for 100 000
 * entries) and removed after the file; the whole file takes ~6 s on the shared 2-core machine.
 */
import { cpSync, linkSync, mkdirSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { HookFailure, loadHooks } from "../src/index.js";
import { MAX_ROOT_ENTRIES, hookReads } from "../src/policy/read-grants.js";
import { tempDir, writeHook } from "./helpers/files.js";
import { ROOT, host } from "./helpers/host.js";
import { refusal } from "./helpers/read-refusal.js";

const SECRET = "hunter2-large-tree";
const FOLDERS = 11;

let project: string, nodeModules: string, outside: string, guard: string, plantedUser: string, linkedUser: string, installed: string, heavyUser: string, phantomUser: string, pnpmUser: string;
const importer = (pkg: string) => `import { greeting } from "${pkg}";\nexport default (pi: any) => { pi.on("tool_call", () => ({ block: true, reason: greeting })); };\n`;

/** `dir/package.json` and `dir/index.js` (an ES module), with `deps` declared and `source` as its code. */
function packageAt(dir: string, name: string, source: string, deps: string[] = []): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, type: "module", main: "index.js", dependencies: Object.fromEntries(deps.map((d) => [d, "1.0.0"])) }));
  writeFileSync(join(dir, "index.js"), source);
}

function count(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((n, e) => n + 1 + (e.isDirectory() ? count(join(dir, e.name)) : 0), 0);
}

beforeAll(() => {
  const root = tempDir("hookbox-large-tree-");
  project = join(root, "project");
  nodeModules = join(project, "node_modules");
  outside = join(root, "outside");
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.key"), SECRET);
  // Why hard links: a link is a directory entry, not a new inode (~5x faster to make than empty files); ext4 allows 65 000 per file, so one file per folder.
  const perFolder = Math.ceil(MAX_ROOT_ENTRIES / FOLDERS) + 10;
  for (let d = 0; d < FOLDERS; d++) {
    const dir = join(nodeModules, `filler-${d}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "0"), "");
    for (let i = 1; i < perFolder; i++) linkSync(join(dir, "0"), join(dir, String(i)));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `filler-${d}` }));
  }
  // Depends on every filler: what a module importing it reaches holds more than the bound.
  packageAt(join(nodeModules, "heavy"), "heavy", `export const greeting = "heavy";\n`, Array.from({ length: FOLDERS }, (_, d) => `filler-${d}`));
  heavyUser = writeHook(project, ".pi/heavy/imports-heavy.ts", importer("heavy"));
  // Imports a package it does not declare (hoisted beside it, as npm installs it).
  packageAt(join(nodeModules, "phantom-dep"), "phantom-dep", `import { name } from "big-tree-child";\nexport const greeting = "phantom with " + name;\n`);
  phantomUser = writeHook(project, ".pi/phantom/imports-phantom.ts", importer("phantom-dep"));
  // pnpm's layout: each package a link into .pnpm/, where its dependencies are links beside it.
  const store = (name: string) => join(nodeModules, ".pnpm", `${name}@1.0.0`, "node_modules");
  packageAt(join(store("pnpm-dep"), "pnpm-dep"), "pnpm-dep", `import { name } from "pnpm-child";\nexport const greeting = "pnpm-dep with " + name;\n`, ["pnpm-child"]);
  packageAt(join(store("pnpm-child"), "pnpm-child"), "pnpm-child", `export const name = "pnpm-child";\n`);
  symlinkSync("../../pnpm-child@1.0.0/node_modules/pnpm-child", join(store("pnpm-dep"), "pnpm-child"));
  symlinkSync(".pnpm/pnpm-dep@1.0.0/node_modules/pnpm-dep", join(nodeModules, "pnpm-dep"));
  pnpmUser = writeHook(project, ".pi/pnpm/imports-pnpm.ts", importer("pnpm-dep"));
  packageAt(join(nodeModules, "big-tree-dep"), "big-tree-dep", `import { name } from "big-tree-child";\nexport const greeting = "dep with " + name;\n`, ["big-tree-child"]);
  packageAt(join(nodeModules, "big-tree-child"), "big-tree-child", `export const name = "child";\n`);
  // Planted where the module reaches nothing: not granted, so it opens nothing.
  symlinkSync(outside, join(nodeModules, "stray"));
  // Planted in a package a module reaches.
  packageAt(join(nodeModules, "planted-dep"), "planted-dep", `export const greeting = "planted";\n`);
  symlinkSync(outside, join(nodeModules, "planted-dep", "notes"));
  plantedUser = writeHook(project, ".pi/planted/imports-planted.ts", importer("planted-dep"));
  // A folder of that node_modules reached only through a link inside the imported package, with a link out in it.
  packageAt(join(nodeModules, "linked-dep"), "linked-dep", `export const greeting = "linked";\n`);
  symlinkSync("../assets", join(nodeModules, "linked-dep", "assets"));
  mkdirSync(join(nodeModules, "assets"));
  symlinkSync(join(outside, "secret.key"), join(nodeModules, "assets", "key"));
  linkedUser = writeHook(project, ".pi/linked/imports-linked.ts", importer("linked-dep"));
  // An installed package's own extension, inside the large node_modules.
  installed = writeHook(nodeModules, "pi-ext/index.ts", importer("big-tree-dep"));
  const extensions = join(project, ".pi", "extensions");
  cpSync(join(ROOT, "fixtures/hostile/large-node-modules"), extensions, { recursive: true });
  guard = join(extensions, "reads-beside-its-package.ts");
  expect(count(nodeModules)).toBeGreaterThan(MAX_ROOT_ENTRIES);
}, 60_000);

const call = (input: Record<string, unknown> = {}) => ({ type: "tool_call" as const, toolName: "read", toolCallId: "c", input });

describe.each(["worker", "process"] as const)("a project module under a node_modules of more than 100 000 entries, in %s mode", (isolation) => {
  it("loads and runs its handler with the package it imports and that package's dependency", async () => {
    const { hooks, errors } = await loadHooks([guard], ROOT, { isolation });
    expect(errors).toEqual([]);
    const { runner } = host(hooks, { init: false });
    expect(await runner.emitToolCall(call())).toEqual({ block: true, reason: "dep with child" });
    expect((await runner.emitToolCall(call({ path: "node_modules/big-tree-child/index.js" })))!.reason).toContain("child");
  });

  it("a module importing a package installed by pnpm (links into .pnpm/) loads with that package's dependency", async () => {
    const { hooks, errors } = await loadHooks([pnpmUser], ROOT, { isolation });
    expect(errors).toEqual([]);
    expect(await host(hooks, { init: false }).runner.emitToolCall(call())).toEqual({ block: true, reason: "pnpm-dep with pnpm-child" });
  });

  it("a link planted in that node_modules out of the roots, in no package the module reaches, leaves the secret unreadable, as is every package there it does not reach", async () => {
    const { hooks, errors } = await loadHooks([guard], ROOT, { isolation });
    expect(errors).toEqual([]);
    const { runner } = host(hooks, { init: false });
    const error = await runner.emitToolCall(call({ path: "node_modules/stray/secret.key" })).catch((e: unknown) => e) as HookFailure;
    expect(error).toBeInstanceOf(HookFailure);
    expect(error.code).toBe("handler_threw");
    expect(error.message).toContain("ERR_ACCESS_DENIED");
    expect(error.message).not.toContain(SECRET);
    // The control: a package there the module does not reach is not granted either.
    const unreached = await runner.emitToolCall(call({ path: "node_modules/linked-dep/index.js" })).catch((e: unknown) => e) as HookFailure;
    expect([unreached.code, unreached.message]).toEqual(["handler_threw", expect.stringContaining("ERR_ACCESS_DENIED")]);
  });

  it("a link planted in a package the module imports, leading out of the roots, fails the load naming the link, its target and policy.fsRead", async () => {
    const { errors } = await loadHooks([plantedUser], ROOT, { isolation });
    expect(errors.map((e) => e.code)).toEqual(["load_failed"]);
    expect(errors[0]!.error).toContain(`${join(nodeModules, "planted-dep", "notes")} -> ${outside}`);
    expect(errors[0]!.error).toContain("policy.fsRead");
  });

  it("a module whose reached packages hold more than 100 000 entries together fails the load, naming the module, the folder and what to do", async () => {
    const { errors } = await loadHooks([heavyUser], ROOT, { isolation });
    expect(errors.map((e) => [e.path, e.code])).toEqual([[heavyUser, "load_failed"]]);
    expect(errors[0]!.error).toContain(`the packages the module ${heavyUser} reaches in ${nodeModules} (those its imports name and their dependencies) hold more than ${MAX_ROOT_ENTRIES} entries`);
    expect(errors[0]!.error).toContain(`run it with isolation "sandbox"`);
  });

  it("a package that imports another it does not declare fails the load, naming the read denied, and loads once policy.fsRead grants that package", async () => {
    const denied = await loadHooks([phantomUser], ROOT, { isolation });
    expect(denied.errors.map((e) => e.code)).toEqual(["load_failed"]);
    expect(denied.errors[0]!.error).toContain(`FileSystemRead of ${join(nodeModules, "big-tree-child")}/`);
    expect(denied.errors[0]!.error).toContain("ERR_ACCESS_DENIED; grant it with policy.fsRead");
    const granted = await loadHooks([phantomUser], ROOT, { isolation, policy: { fsRead: [join(nodeModules, "big-tree-child")] } });
    expect(granted.errors).toEqual([]);
    expect(await host(granted.hooks, { init: false }).runner.emitToolCall(call())).toEqual({ block: true, reason: "phantom with child" });
  });

  it("a module in the project's folder itself (whose own folder holds the node_modules) fails the load, naming the module, the folder and what to do", async () => {
    const top = writeHook(project, "at-the-top.ts", importer("big-tree-dep"));
    const { errors } = await loadHooks([top], ROOT, { isolation });
    expect(errors.map((e) => [e.path, e.code])).toEqual([[top, "load_failed"]]);
    expect(errors[0]!.error).toContain(`the module ${top} lies in ${project}, which holds more than ${MAX_ROOT_ENTRIES} entries`);
    expect(errors[0]!.error).toContain(`move the module into a folder of its own, or run it with isolation "sandbox"`);
  });
});

describe("what a module is granted under a node_modules too large to walk whole", () => {
  const reads = (path: string, readable: string[] = []) => hookReads(path, { readable, walkRoots: true });

  it("is the package it imports and that package's dependency, not the node_modules folder nor anything else in it", () => {
    const grants = reads(guard);
    expect(grants).toEqual(expect.arrayContaining([`${join(nodeModules, "big-tree-dep")}/`, `${join(nodeModules, "big-tree-child")}/`, join(project, ".pi", "extensions")]));
    expect(grants.filter((g) => g.startsWith(nodeModules) && !/\/big-tree-(dep|child)\/$/.test(g))).toEqual([]);
  });

  it("a link planted in a package it imports is granted as before when policy.fsRead names the link's target", () => {
    expect(refusal(() => reads(plantedUser))).toContain(`${join(nodeModules, "planted-dep", "notes")} -> ${outside}`);
    expect(() => reads(plantedUser, [outside])).not.toThrow();
  });

  it("a folder of that node_modules reached through a link in an imported package is walked too: a link out in it fails the load", () => {
    expect(refusal(() => reads(linkedUser))).toContain(`${join(nodeModules, "assets", "key")} -> ${join(outside, "secret.key")}`);
    expect(reads(linkedUser, [outside])).toEqual(expect.arrayContaining([`${join(nodeModules, "linked-dep")}/`, `${join(nodeModules, "assets")}/`]));
  });

  it("a module inside that node_modules (an installed package's extension) is granted its own folder whole and the packages it imports", () => {
    const grants = reads(installed);
    expect(grants).toEqual(expect.arrayContaining([join(nodeModules, "pi-ext"), `${join(nodeModules, "big-tree-dep")}/`, `${join(nodeModules, "big-tree-child")}/`]));
    expect(grants).not.toContain(nodeModules);
  });
});

// Last: it empties the large node_modules.
describe("a node_modules found too large to walk whole, across starts", () => {
  it("is remembered (by real path, device, inode and modification time) until a package is added to or removed from it, and granted package by package meanwhile, never wider", () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    try {
      const facts = join(tempDir("hookbox-large-roots-"), "walks");
      // The links planted above lead to `outside`: readable here, so a root walked whole loads too.
      const reads = () => hookReads(guard, { readable: [outside], walkRoots: true, factsDir: facts });
      const stamp = new Date(Math.floor(Date.now() / 1000) * 1000);
      utimesSync(nodeModules, stamp, stamp);
      expect(reads()).not.toContain(nodeModules);
      expect(readdirSync(join(facts, "large"))).toHaveLength(1);
      // Small now, as if emptied deep down: the record still matches, so no walk, and package by package.
      for (let d = 0; d < FOLDERS; d++) rmSync(join(nodeModules, `filler-${d}`), { recursive: true, force: true });
      utimesSync(nodeModules, stamp, stamp);
      vi.setSystemTime(Date.now() + 2_001);
      expect(reads()).not.toContain(nodeModules);
      // A package added at its top: walked again, small, granted whole as any small root.
      packageAt(join(nodeModules, "added"), "added", "export {};\n");
      vi.setSystemTime(Date.now() + 2_001);
      expect(reads()).toContain(nodeModules);
    } finally {
      vi.useRealTimers();
    }
  });
});
