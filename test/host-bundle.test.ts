/**
 * The built package's host side is bundled (scripts/bundle-host.mjs: dist/host/, what package.json's
 * exports and bin/hookbox.mjs load), and behaves as tsc's dist/src/ did: one instance of each module
 * whichever entry loaded it, and every import.meta.url lookup resolving to the file it resolved to
 * before. Loaded as an agent or a program loads it: by the package's name from a project whose
 * node_modules/hookbox is the build (`builtHookbox`, what `npm run build` makes), on Node and on Bun.
 * test/built-runtime.test.ts loads a guard in each isolation mode from the same build;
 * test/extension-import.test.ts says what importing hookbox/extension evaluates.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { tempDir } from "./helpers/files.js";
import { builtHookbox, installBun } from "./support/pi-run.js";

const GUARD = `export default function (pi) { pi.on("tool_call", (e) => e.input.command === "rm -rf /" ? { block: true, reason: "blocked" } : undefined); }\n`;

/**
 * The program both runtimes run, importing hookbox by its name: whether `hookbox`'s HookFailure is
 * the class of the one file of dist/host/ that holds src/contract/errors.ts (`holder`), which
 * hookbox/extension loads too; the same question of a second copy of the modules (the control:
 * dist/src/, another instance of each); and a guard's answer in each of `modes`.
 */
const MAIN = (holder: string, hooks: string, modes: Array<{ isolation: string; policy?: string }>) => `import { HookFailure, HookRunner, createModelRegistry, createSessionManager, loadHooks } from "hookbox";
import "hookbox/extension";
const out = { extension: import.meta.resolve("hookbox/extension") };
out.sameClass = Object.values(await import(${JSON.stringify(holder)})).includes(HookFailure);
out.secondCopy = (await import(new URL("./dist/src/contract/errors.js", import.meta.resolve("hookbox/package.json")).href)).HookFailure === HookFailure;
for (const options of ${JSON.stringify(modes)}) {
  const { hooks, errors } = await loadHooks(["./guard.mjs"], ${JSON.stringify(hooks)}, options);
  const runner = new HookRunner(hooks, process.cwd(), createSessionManager(), createModelRegistry());
  out[options.isolation] = { errors: errors.map((e) => e.code), blocked: await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "1", input: { command: "rm -rf /" } }) ?? null };
  await runner.dispose();
}
console.log(JSON.stringify(out));
process.exit(0);
`;

let built: string;
let project: string;
/** The modules, outside the project: a hook's reads stop at its folder and the node_modules above it, and node_modules/hookbox links out of them. */
let hooks: string;
const sandbox = sandboxAvailability().ok;

beforeAll(() => {
  built = builtHookbox("built-runtime-test");
  project = tempDir("hookbox-host-bundle-");
  mkdirSync(join(project, "node_modules"));
  symlinkSync(built, join(project, "node_modules", "hookbox"));
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "host-bundle-probe", private: true, type: "module" }));
  hooks = tempDir("hookbox-host-bundle-hooks-");
  writeFileSync(join(hooks, "guard.mjs"), GUARD);
}, 120_000);

/** The files of dist/host/ and, for each, the modules it holds (esbuild names each above its code) and the files it imports statically. */
function hostFiles(): Map<string, { modules: Set<string>; imports: string[] }> {
  const host = join(built, "dist", "host");
  return new Map(readdirSync(host).map((file) => {
    const text = readFileSync(join(host, file), "utf8");
    const modules = new Set([...text.matchAll(/^\/\/ (dist\/\S+\.m?js)$/gm)].map((m) => m[1]!));
    const imports = [...text.matchAll(/^(?:import|export) (?:[^;]*? from )?"\.\/([\w-]+\.js)";$/gm)].map((m) => m[1]!);
    return [file, { modules, imports }];
  }));
}

/** What `entry` (a file of dist/host/) loads at import: itself and every file its static imports reach. */
function staticallyLoaded(files: ReturnType<typeof hostFiles>, entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => { if (!seen.has(file)) { seen.add(file); files.get(file)!.imports.forEach(visit); } };
  visit(entry);
  return seen;
}

/** Runs `MAIN` with `program` (node, or bun) in the project; its JSON. */
function run(program: string, modes: Array<{ isolation: string; policy?: string }>): Record<string, unknown> {
  const holder = [...hostFiles()].find(([, f]) => f.modules.has("dist/src/contract/errors.js"))![0];
  writeFileSync(join(project, "main.mjs"), MAIN(join(built, "dist", "host", holder), hooks, modes));
  return JSON.parse(execFileSync(program, ["main.mjs"], { cwd: project, encoding: "utf8", timeout: 90_000 }).trim().split("\n").pop()!);
}

const GUARDED = { errors: [], blocked: { block: true, reason: "blocked" } };

describe("the built package's bundled host", { timeout: 120_000 }, () => {
  it("holds each of hookbox's modules in one file of dist/host/, and the entries load the one holding HookFailure's", () => {
    const files = hostFiles();
    const holders = new Map<string, string[]>();
    for (const [file, { modules }] of files) for (const m of modules) holders.set(m, [...(holders.get(m) ?? []), file]);
    expect(holders.size).toBeGreaterThan(150);
    expect([...holders].filter(([, at]) => at.length > 1)).toEqual([]);
    const errors = holders.get("dist/src/contract/errors.js")![0]!;
    for (const entry of ["index.js", "extension.js"]) expect(staticallyLoaded(files, entry).has(errors), entry).toBe(true);
    // The control: a module loaded with import() is in a file no entry loads at import.
    const childModes = holders.get("dist/src/isolation/process-endpoint.js")![0]!;
    for (const entry of ["index.js", "extension.js", "cli.js"]) expect(staticallyLoaded(files, entry).has(childModes), entry).toBe(false);
  });

  it("gives each module that reads import.meta.url the URL of the file tsc wrote for it, and each such file is there", () => {
    const host = join(built, "dist", "host");
    const urls = readdirSync(host).flatMap((file) => [...readFileSync(join(host, file), "utf8").matchAll(/__hookboxFileUrl\d* = new URL\("([^"]+)", import\.meta\.url\)/g)].map((m) => m[1]!));
    expect(urls.length).toBeGreaterThanOrEqual(12);
    for (const rel of urls) expect(existsSync(fileURLToPath(new URL(rel, `file://${host}/`))), rel).toBe(true);
    expect(urls).toEqual(expect.arrayContaining(["../src/isolation/spawn.js", "../src/isolation/bubblewrap/availability.js", "../src/policy/paths.js", "../src/cli/main.js"]));
  });

  it("gives hookbox's HookFailure as the class of the one file hookbox/extension loads, and loads a guard in a worker and a sandbox, on Node (the control: a second copy of the modules has another class)", () => {
    const out = run(process.execPath, [{ isolation: "worker" }, ...(sandbox ? [{ isolation: "sandbox" }] : [])]);
    expect(out.extension).toBe(`file://${join(built, "dist", "host", "extension.js")}`);
    expect(out.sameClass).toBe(true);
    expect(out.secondCopy).toBe(false);
    expect(out.worker).toEqual(GUARDED);
    if (sandbox) expect(out.sandbox).toEqual(GUARDED);
  });

  it("loads on Bun: hookbox's HookFailure is the one file's class, a guard runs in a worker (policy trusted: Bun has no permission model) and in a sandbox", () => {
    const out = run(installBun(), [{ isolation: "worker", policy: "trusted" }, ...(sandbox ? [{ isolation: "sandbox" }] : [])]);
    expect(out.sameClass).toBe(true);
    expect(out.secondCopy).toBe(false);
    expect(out.worker).toEqual(GUARDED);
    if (sandbox) expect(out.sandbox).toEqual(GUARDED);
  });

  it("runs the CLI from dist/host/cli.js, which finds the package's version beside dist/", () => {
    const version = JSON.parse(readFileSync(join(built, "package.json"), "utf8")).version as string;
    const cli = join(built, "dist", "host", "cli.js");
    expect(execFileSync(process.execPath, ["--input-type=module", "-e", `const { main } = await import(${JSON.stringify(cli)}); process.exitCode = await main(["--version"]);`], { encoding: "utf8" })).toBe(`${version}\n`);
  });
});
