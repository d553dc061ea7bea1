/**
 * A confined hook (the default policy) reads its resolved import graph, not only its folder, as a
 * hook written for the original expects; what is still denied is named by permission and path.
 */
import { cpSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadHooks } from "../src/index.js";
import { tempDir } from "./helpers/files.js";
import { ROOT, fixture, host } from "./helpers/host.js";
import { ISOLATION } from "./support/isolation.js";

/** A project folder with the fixture's hooks and lib, and an ESM-only package in its node_modules; no package.json anywhere. */
function project(): string {
  const dir = tempDir("hookbox-graph-");
  cpSync(join(ROOT, "fixtures/valid/outside-imports"), dir, { recursive: true });
  const pkg = join(dir, "node_modules", "@hookbox-fixtures", "shout");
  mkdirSync(join(pkg, "dist"), { recursive: true });
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "@hookbox-fixtures/shout", type: "module", exports: { ".": { import: "./dist/index.js" } } }));
  writeFileSync(join(pkg, "dist", "index.js"), "export const shout = (text) => `${text.toUpperCase()}!`;\n");
  return dir;
}

async function load(path: string, transformCacheDir?: string) {
  const { hooks, errors } = await loadHooks([path], ROOT, { isolation: ISOLATION, ...(transformCacheDir ? { transformCacheDir } : {}) });
  return { runner: host(hooks, { init: false }).runner, errors };
}
const bash = (command: string) => ({ type: "tool_call" as const, toolName: "bash", toolCallId: "c", input: { command } });

describe("imports of a confined hook", () => {
  it("a hook under the default policy imports a module outside its own folder", async () => {
    const { runner, errors } = await load(join(project(), "hooks", "blocks-banned-commands.ts"));
    expect(errors).toEqual([]);
    expect(await runner.emitToolCall(bash("rm -rf /"))).toEqual({ block: true, reason: "rm -rf is banned" });
  });

  it("a hook under the default policy imports a package whose exports have only an import condition", async () => {
    const { runner, errors } = await load(join(project(), "hooks", "shouts-block-reasons.ts"));
    expect(errors).toEqual([]);
    expect(await runner.emitToolCall(bash("ls"))).toEqual({ block: true, reason: "NO BASH TODAY!" });
  });
});

/** Transform cache entries (`<key>.js`; an entry is written before the worker gets its answer). */
const entries = (cache: string) => readdirSync(cache).filter((f) => f.endsWith(".js") && !f.startsWith("."));

describe("which imports go through the host's transform (docs/internals.md)", () => {
  // The transform cache holds one entry per distinct source the worker sent: what Node loaded natively is not there.
  it("an installed ES module package a TypeScript hook imports is loaded by Node: only the hook's own file is transformed", async () => {
    const cache = tempDir("hookbox-graph-cache-");
    const { runner, errors } = await load(join(project(), "hooks", "shouts-block-reasons.ts"), cache);
    expect(errors).toEqual([]);
    expect(await runner.emitToolCall(bash("ls"))).toEqual({ block: true, reason: "NO BASH TODAY!" });
    expect(entries(cache)).toHaveLength(1);
  });

  it("a package file with import syntax and no \"type\": \"module\" is transformed, as Node could not load it", async () => {
    const dir = project();
    const pkg = join(dir, "node_modules", "@hookbox-fixtures", "shout");
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "@hookbox-fixtures/shout", main: "./dist/index.js" }));
    const cache = tempDir("hookbox-graph-cache-");
    const { runner, errors } = await load(join(dir, "hooks", "shouts-block-reasons.ts"), cache);
    expect(errors).toEqual([]);
    expect(await runner.emitToolCall(bash("ls"))).toEqual({ block: true, reason: "NO BASH TODAY!" });
    expect(entries(cache)).toHaveLength(2);
  });
});

describe("host modules and packages Node loads", () => {
  it("a package file that imports an offered host module's name, not on disk, fails Node's load and goes to jiti, where the host module applies", async () => {
    const dir = project();
    const pkg = join(dir, "node_modules", "@hookbox-fixtures", "shout");
    writeFileSync(join(pkg, "dist", "index.js"), 'import { complete } from "@hookbox-fixtures/ai";\nexport const shout = (text) => complete(text);\n');
    const calls: unknown[] = [];
    const cache = tempDir("hookbox-graph-cache-");
    const { hooks, errors } = await loadHooks([join(dir, "hooks", "shouts-block-reasons.ts")], ROOT, {
      isolation: ISOLATION, transformCacheDir: cache,
      hostModules: { "@hookbox-fixtures/ai": { complete: (text: string) => { calls.push(text); return `host: ${text}`; } } },
    });
    expect(errors).toEqual([]);
    const { runner } = host(hooks, { init: false });
    expect(await runner.emitToolCall(bash("ls"))).toEqual({ block: true, reason: "host: no bash today" });
    expect(calls).toEqual(["no bash today"]);
    expect(entries(cache)).toHaveLength(2);
  });
});

describe("denied access", () => {
  it("a read outside the import graph in a handler fails with ERR_ACCESS_DENIED naming the permission and the path", async () => {
    const { runner } = await load(join(project(), "hooks", "blocks-banned-commands.ts"));
    const error = await runner.emitToolCall({ type: "tool_call", toolName: "read", toolCallId: "c", input: { path: "/etc/hostname" } })
      .catch((e: unknown) => e) as Error & { code: string; cause: { code: string } };
    expect(error.code).toBe("handler_threw");
    expect(error.cause.code).toBe("ERR_ACCESS_DENIED");
    expect(error.message).toContain("FileSystemRead of /etc/hostname");
  });

  it("a read outside the import graph at load fails the load naming the permission and the path", async () => {
    const { errors } = await load(fixture("faulty/reads-outside-file-at-load.ts"));
    expect(errors.map((e) => e.code)).toEqual(["load_failed"]);
    expect(errors[0]!.error).toContain("FileSystemRead of /etc/hostname");
    expect(errors[0]!.error).toContain("ERR_ACCESS_DENIED");
  });
});

describe("a package for Bun only", () => {
  it("a hook that imports one by value does not load on Node, and the failure names the package and that the hook runs on Node", async () => {
    const dir = tempDir("hookbox-bun-only-");
    const pkg = join(dir, "node_modules", "@hookbox-fixtures", "bun-only");
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "@hookbox-fixtures/bun-only", type: "module", main: "./index.js", engines: { bun: ">=1.3.7" } }));
    writeFileSync(join(pkg, "index.js"), "export const runtime = `Bun ${Bun.version}`;\n");
    writeFileSync(join(dir, "hook.ts"), `import { runtime } from "@hookbox-fixtures/bun-only";\nexport default function (pi: any) { pi.on("tool_call", () => ({ block: true, reason: runtime })); }\n`);
    const { errors } = await load(join(dir, "hook.ts"));
    expect(errors.map((e) => e.code)).toEqual(["load_failed"]);
    expect(errors[0]!.error).toContain("Bun is not defined");
    const where = ISOLATION === "worker" ? "a worker on a Node host" : `${ISOLATION} isolation`;
    expect(errors[0]!.error).toContain(`the hook imports "@hookbox-fixtures/bun-only", a package for Bun only: its package.json's engines name bun, not node, and in ${where} the hook runs on Node.`);
  });
});
