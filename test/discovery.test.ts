import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  HookRegistry, claudeProvider, defaultHookProviders, discoverHooks, hookKey, nativeProvider, validateHookItem, xcshHomeProvider,
  type HookItem, type HookProvider,
} from "../src/discovery/index.js";
import { projectAndHome } from "./support/folders.js";


const folders = () => projectAndHome("hookbox-discovery-");

function touch(path: string, text = "#!/bin/sh\nexit 0\n") {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text, { mode: 0o755 });
  return path;
}

const item = (over: Partial<HookItem> = {}): HookItem =>
  ({ name: "bash.sh", path: "/hooks/pre/bash.sh", type: "pre", tool: "bash", level: "project", ...over });
const fixed = (id: string, priority: number, items: HookItem[], warnings: string[] = []): HookProvider =>
  ({ id, displayName: `Provider ${id}`, priority, load: () => ({ items, warnings }) });
const ctx = { cwd: "/p", home: "/h", sortEntries: false };

describe("the capability registry", () => {
  it("runs providers by priority, higher first, and keeps registration order for equal priorities", () => {
    const registry = new HookRegistry([fixed("low", 10, []), fixed("high", 100, []), fixed("mid-a", 50, []), fixed("mid-b", 50, [])]);
    expect(registry.providers().map((p) => p.id)).toEqual(["high", "mid-a", "mid-b", "low"]);
  });

  it("keys items by type, tool and name", () => {
    expect(hookKey(item())).toBe("pre:bash:bash.sh");
  });

  it("keeps the first item per key and marks a lower-priority duplicate as shadowed, out of the effective list", async () => {
    const winner = item({ path: "/a/pre/bash.sh" });
    const loser = item({ path: "/b/pre/bash.sh", level: "user" });
    const other = item({ path: "/b/post/read.sh", name: "read.sh", tool: "read", type: "post" });
    const report = await new HookRegistry([fixed("b", 10, [loser, other]), fixed("a", 90, [winner])]).load(ctx);
    expect(report.items.map((i) => [i.path, i.provider])).toEqual([["/a/pre/bash.sh", "a"], ["/b/post/read.sh", "b"]]);
    expect(report.all.map((i) => [i.path, i.shadowed])).toEqual([["/a/pre/bash.sh", false], ["/b/pre/bash.sh", true], ["/b/post/read.sh", false]]);
    expect(report.all[1]).toMatchObject({ provider: "b", providerName: "Provider b", level: "user", key: "pre:bash:bash.sh" });
    expect(report.providers).toEqual(["a", "b"]);
  });

  it("turns invalid items into warnings, and an invalid item never shadows a valid one", async () => {
    const bad = [
      item({ type: "during" as never }),
      item({ path: "relative/bash.sh" }),
      item({ name: "" }),
      item({ tool: "" }),
      { ...item(), extra: 1 } as HookItem,
      "not an item" as unknown as HookItem,
    ];
    const good = item({ path: "/low/pre/bash.sh" });
    const report = await new HookRegistry([fixed("bad", 100, bad), fixed("good", 1, [good])]).load(ctx);
    expect(report.items.map((i) => i.path)).toEqual(["/low/pre/bash.sh"]);
    expect(report.items[0]!.shadowed).toBe(false);
    expect(report.warnings).toHaveLength(bad.length);
    expect(report.warnings[0]).toMatch(/^\[Provider bad\] invalid hook at \/hooks\/pre\/bash\.sh: type:/);
    expect(report.warnings[1]).toContain("path: must be an absolute path");
    expect(report.warnings[5]).toContain("(no path)");
    expect(validateHookItem(item())).toBeUndefined();
  });

  it("reports a provider that throws as a warning and still loads the others", async () => {
    const broken: HookProvider = { id: "broken", displayName: "Broken", priority: 100, load: () => { throw new Error("disk on fire"); } };
    const report = await new HookRegistry([broken, fixed("ok", 1, [item()], ["one note"])]).load(ctx);
    expect(report.warnings).toEqual(["[Broken] failed to load: disk on fire", "[Provider ok] one note"]);
    expect(report.items).toHaveLength(1);
  });

  it("replaces a provider registered with an existing id, and unregisters by id", () => {
    const registry = new HookRegistry(defaultHookProviders());
    registry.register({ ...nativeProvider, priority: 1 });
    expect(registry.providers().map((p) => [p.id, p.priority])).toEqual([["xcsh-home", 80], ["claude", 60], ["native", 1]]);
    expect(registry.unregister("claude")).toBe(true);
    expect(registry.unregister("claude")).toBe(false);
    expect(registry.providers().map((p) => p.id)).toEqual(["xcsh-home", "native"]);
  });
});

describe("the default providers", () => {
  it("are native (100), xcsh-home (80) and claude (60)", () => {
    expect(defaultHookProviders().map((p) => [p.id, p.priority])).toEqual([["native", 100], ["xcsh-home", 80], ["claude", 60]]);
    expect([nativeProvider, xcshHomeProvider, claudeProvider].map((p) => p.displayName)).toEqual(["xcsh", "xcsh (home folder)", "Claude Code"]);
  });

  it("read project before user and pre before post, under the home folder given as an option", async () => {
    const { cwd, home } = folders();
    const userPost = touch(join(home, ".xcsh/agent/hooks/post/read.sh"));
    const userPre = touch(join(home, ".xcsh/agent/hooks/pre/write.sh"));
    const projPost = touch(join(cwd, ".xcsh/hooks/post/read.sh"));
    const projPre = touch(join(cwd, ".xcsh/hooks/pre/bash.sh"));
    const result = await nativeProvider.load({ cwd, home, sortEntries: false });
    expect(result.items.map((i) => [i.path, i.level, i.type])).toEqual([
      [projPre, "project", "pre"], [projPost, "project", "post"], [userPre, "user", "pre"], [userPost, "user", "post"],
    ]);
    expect(result.warnings).toEqual([]);
  });

  it("make tool the file name without its extension, with * for every tool", async () => {
    const { cwd, home } = folders();
    touch(join(cwd, ".claude/hooks/pre/*.sh"));
    touch(join(cwd, ".claude/hooks/pre/bash"));
    touch(join(cwd, ".claude/hooks/post/read.py"));
    const result = await claudeProvider.load({ cwd, home, sortEntries: true });
    expect(result.items.map((i) => [i.type, i.tool, i.name])).toEqual([["pre", "*", "*.sh"], ["pre", "bash", "bash"], ["post", "read", "read.py"]]);
  });

  it("skip dotfiles, folders and dangling links, and follow links to files", async () => {
    const { cwd, home } = folders();
    const pre = join(cwd, ".xcsh/hooks/pre");
    touch(join(pre, ".hidden.sh"));
    mkdirSync(join(pre, "folder.sh"), { recursive: true });
    symlinkSync(join(pre, "missing.sh"), join(pre, "dangling.sh"));
    const target = touch(join(cwd, "elsewhere/real.sh"));
    symlinkSync(target, join(pre, "linked.sh"));
    const result = await nativeProvider.load({ cwd, home, sortEntries: false });
    expect(result.items.map((i) => i.name)).toEqual(["linked.sh"]);
  });

  it("keep readdir order by default and sort by name when sortEntries is on", async () => {
    const { cwd, home } = folders();
    for (const n of ["zeta.sh", "alpha.sh", "mid.sh"]) touch(join(cwd, ".xcsh/hooks/pre", n));
    const { readdirSync } = await import("node:fs");
    const raw = readdirSync(join(cwd, ".xcsh/hooks/pre"));
    const unsorted = await nativeProvider.load({ cwd, home, sortEntries: false });
    expect(unsorted.items.map((i) => i.name)).toEqual(raw);
    const sorted = await nativeProvider.load({ cwd, home, sortEntries: true });
    expect(sorted.items.map((i) => i.name)).toEqual(["alpha.sh", "mid.sh", "zeta.sh"]);
  });

  it("shadow across providers: native project over user, native over xcsh-home over claude", async () => {
    const { cwd, home } = folders();
    const projBash = touch(join(cwd, ".xcsh/hooks/pre/bash.sh"));
    const userBash = touch(join(home, ".xcsh/agent/hooks/pre/bash.sh"));
    const legacyUserBash = touch(join(home, ".xcsh/hooks/pre/bash.sh"));
    const legacyUserWrite = touch(join(home, ".xcsh/hooks/pre/write.sh"));
    const claudeBash = touch(join(cwd, ".claude/hooks/pre/bash.sh"));
    const claudeRead = touch(join(home, ".claude/hooks/post/read.sh"));
    const report = await discoverHooks(cwd, { home });
    expect(report.items.map((i) => [i.path, i.provider, i.level])).toEqual([
      [projBash, "native", "project"], [legacyUserWrite, "xcsh-home", "user"], [claudeRead, "claude", "user"],
    ]);
    expect(report.all.filter((i) => i.shadowed).map((i) => [i.path, i.provider])).toEqual([
      [userBash, "native"], [projBash, "xcsh-home"], [legacyUserBash, "xcsh-home"], [claudeBash, "claude"],
    ]);
    expect(report.providers).toEqual(["native", "xcsh-home", "claude"]);
  });

  it("find nothing, with no warnings, when no hook folder exists", async () => {
    const { cwd, home } = folders();
    expect(await discoverHooks(cwd, { home })).toEqual({ items: [], all: [], warnings: [], providers: [] });
  });

  // Root reads every folder, so the rule cannot be shown when tests run as root.
  it.skipIf(process.getuid?.() === 0)("warn about a hook folder that exists but cannot be read", async () => {
    const { cwd, home } = folders();
    const pre = join(cwd, ".xcsh/hooks/pre");
    touch(join(pre, "bash.sh"));
    const { chmodSync } = await import("node:fs");
    chmodSync(pre, 0o000);
    try {
      const result = await nativeProvider.load({ cwd, home, sortEntries: false });
      expect(result.warnings?.[0]).toContain(`cannot read ${pre}`);
    } finally {
      chmodSync(pre, 0o755);
    }
  });
});
