import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claudeProvider, nativeProvider } from "../src/discovery/index.js";
import { discoverAndLoadHooks, type LoadedHook } from "../src/index.js";
import { toolCall } from "./helpers/events.js";
import { fixture, host } from "./helpers/host.js";
import { projectAndHome } from "./support/folders.js";

const loaded: LoadedHook[] = [];
afterEach(async () => {
  await Promise.all(loaded.splice(0).map((h) => h.sandbox?.dispose()));
});

const folders = () => projectAndHome("hookbox-discover-load-");

/** Copy `fixtures/<rel>` to `dest` (made executable). */
function place(rel: string, dest: string) {
  mkdirSync(dirname(dest), { recursive: true });
  copyFileSync(fixture(rel), dest);
  return dest;
}

/** Project-level hooks get the seat belt here: these tests are about order and reports (trust by origin: test/trust.test.ts). */
async function discover(paths: string[], cwd: string, options: Parameters<typeof discoverAndLoadHooks>[2] = {}) {
  const result = await discoverAndLoadHooks(paths, cwd, { trust: { project: "confined" }, approvals: false, ...options });
  loaded.push(...result.hooks);
  return result;
}

describe("discoverAndLoadHooks", () => {
  it("loads discovered paths first, then configured paths resolved against cwd, de-duplicated by absolute path, first wins", async () => {
    const { cwd, home } = folders();
    const discovered = place("valid/blocks-rm-rf.ts", join(cwd, ".xcsh/hooks/pre/bash.ts"));
    const inHome = place("valid/drops-debug-messages.ts", join(home, "my-hooks/drops-debug.ts"));
    const inProject = place("valid/redacts-api-key.ts", join(cwd, "hooks/redact.ts"));
    const result = await discover(["hooks/redact.ts", ".xcsh/hooks/pre/bash.ts", "~/my-hooks/drops-debug.ts", inProject], cwd, { home });
    expect(result.errors).toEqual([]);
    expect(result.hooks.map((h) => h.path)).toEqual([discovered, inProject, inHome]);
    expect(result.hooks.every((h) => h.sandbox)).toBe(true);
    // The discovered module hook registered what its factory registered, whatever its file name says.
    const { runner } = host(result.hooks, { cwd });
    expect(await runner.emitToolCall(toolCall("rm -rf /")))
      .toEqual({ block: true, reason: "rm -rf blocked (no UI)" });
  });

  it("carries the discovery report: each item with its provider, level and shadowed flag, and the warnings", async () => {
    const { cwd, home } = folders();
    const mine = place("valid/blocks-rm-rf.ts", join(cwd, ".xcsh/hooks/pre/bash.ts"));
    place("valid/blocks-rm-rf.ts", join(home, ".claude/hooks/pre/bash.ts"));
    const result = await discover([], cwd, { home, providers: [
      nativeProvider,
      claudeProvider,
      { id: "broken", displayName: "Broken", priority: 1, load: () => ({ items: [{ name: "x", path: "x", type: "pre", tool: "x", level: "user" }] }) },
    ] });
    expect(result.hooks.map((h) => h.path)).toEqual([mine]);
    expect(result.discovery.all.map((i) => [i.provider, i.level, i.shadowed])).toEqual([["native", "project", false], ["claude", "user", true]]);
    expect(result.discovery.warnings).toEqual(["[Broken] invalid hook at x: path: must be an absolute path"]);
  });

  it("reports a discovered shell script as load_failed by default, with a message that says how to enable shell hooks", async () => {
    const { cwd, home } = folders();
    const script = place("shell/blocks-rm-rf-by-exit-2.sh", join(cwd, ".xcsh/hooks/pre/bash.sh"));
    const module = place("valid/redacts-api-key.ts", join(cwd, ".xcsh/hooks/post/read.ts"));
    const result = await discover([], cwd, { home });
    expect(result.hooks.map((h) => h.path)).toEqual([module]);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ path: script, code: "load_failed" });
    expect(result.errors[0]!.error).toContain("looks like a shell hook");
    expect(result.errors[0]!.error).toContain('pre hook for tool "bash"');
    expect(result.errors[0]!.error).toContain("{ shellHooks: true }");
  });

  it("reports a configured path that does not exist as load_failed and loads the rest", async () => {
    const { cwd, home } = folders();
    const good = place("valid/redacts-api-key.ts", join(cwd, "redact.ts"));
    const result = await discover(["missing.ts", "redact.ts"], cwd, { home });
    expect(result.hooks.map((h) => h.path)).toEqual([good]);
    expect(result.errors).toEqual([expect.objectContaining({ path: join(cwd, "missing.ts"), code: "load_failed" })]);
  });

  it("runs no discovery at all with providers: []", async () => {
    const { cwd, home } = folders();
    place("shell/exits-1.sh", join(cwd, ".xcsh/hooks/pre/bash.sh"));
    const result = await discover([], cwd, { home, providers: [] });
    expect(result).toEqual({ hooks: [], errors: [], discovery: { items: [], all: [], warnings: [], providers: [], trust: [] } });
  });
});
