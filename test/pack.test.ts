/**
 * The package as users get it: build, `npm pack`, install the tarball into a fresh project outside
 * this checkout, and there load a TypeScript hook and fire tool_call using only node_modules.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "./helpers/files.js";
import { ROOT } from "./helpers/host.js";
import { agentUnavailable, installBun, installOmp, installPi, installPiDir, ompAgent, piUnavailable, piWorld, runAgent, runPi, runReadmeGuard } from "./support/pi-agent.js";

const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
let project: string;

function run(cmd: string, args: string[], cwd: string) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", env: { ...process.env, npm_config_update_notifier: "false" } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const HOOK = `import type { HookAPI, ToolCallEventResult } from "hookbox/hooks";

export default function (pi: HookAPI): void {
  pi.on("tool_call", (event): ToolCallEventResult | undefined => {
    const command: string = String(event.input.command ?? "");
    return command.includes("rm -rf") ? { block: true, reason: \`blocked: \${command}\` } : undefined;
  });
}
`;

const MAIN = `import { HookRunner, createModelRegistry, createSessionManager, loadHooks } from "hookbox";
const { hooks, errors } = await loadHooks(["./hook.ts"], process.cwd());
const runner = new HookRunner(hooks, process.cwd(), createSessionManager(), createModelRegistry());
const blocked = await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "1", input: { command: "rm -rf /" } });
const allowed = await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "2", input: { command: "ls" } });
await runner.dispose();
console.log(JSON.stringify({ errors, blocked, allowed: allowed ?? null, entry: import.meta.resolve("hookbox") }));
`;

/** README "Use it in pi": the file a pi user writes (the README must show exactly this). */
const ISOLATED = `import { isolate } from "hookbox/extension";
export default isolate(["./guard.ts"]);
`;

/** README "Use it in pi", the discovering form: the one line a pi user keeps beside their hookbox install. */
const DISCOVERED = `import { isolateDiscovered } from "hookbox/extension";
export default isolateDiscovered();
`;

/** README "Use it in oh-my-pi": the file an oh-my-pi user writes, the same as pi's (the README must show exactly this). */
const ISOLATED_OMP = ISOLATED;

const TSCONFIG = JSON.stringify({
  compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, types: [] },
  files: ["hook.ts"],
});

beforeAll(() => {
  rmSync(join(ROOT, "dist"), { recursive: true, force: true });
  execFileSync("npm", ["run", "build"], { cwd: ROOT, stdio: "pipe" });
  const out = tempDir("hookbox-pack-");
  const packed = JSON.parse(execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", out], { cwd: ROOT, encoding: "utf8" })) as Array<{ filename: string }>;
  project = join(out, "project");
  execFileSync("mkdir", ["-p", project]);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "pack-probe", private: true, type: "module" }));
  const install = run("npm", ["install", join(out, packed[0]!.filename), "--no-audit", "--no-fund", "--prefer-offline"], project);
  if (install.code !== 0) throw new Error(`npm install failed: ${install.stderr}`);
  writeFileSync(join(project, "hook.ts"), HOOK);
  writeFileSync(join(project, "main.mjs"), MAIN);
  writeFileSync(join(project, "tsconfig.json"), TSCONFIG);
}, 240_000);

describe("the packed package", () => {
  it("installs with its runtime dependencies and without the source tree", () => {
    const installed = join(project, "node_modules", "hookbox");
    for (const dep of ["comlink", "jiti", "zod"]) expect(existsSync(join(project, "node_modules", dep, "package.json"))).toBe(true);
    expect(existsSync(join(installed, "dist", "worker", "entry.mjs"))).toBe(true);
    expect(existsSync(join(installed, "dist", "src", "index.js"))).toBe(true);
    expect(existsSync(join(installed, "dist", "host", "extension.js"))).toBe(true);
    expect(existsSync(join(installed, "src"))).toBe(false);
    expect(existsSync(join(installed, "test"))).toBe(false);
    const pkg = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
    expect(pkg.bin).toEqual({ hookbox: "./bin/hookbox.mjs" });
  });

  it("loads a TypeScript hook and blocks a tool_call with only the installed package", () => {
    const r = run("node", ["main.mjs"], project);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.errors).toEqual([]);
    expect(out.blocked).toEqual({ block: true, reason: "blocked: rm -rf /" });
    expect(out.allowed).toBeNull();
    expect(out.entry).toBe(`file://${join(project, "node_modules", "hookbox", "dist", "host", "index.js")}`);
  });

  it("gives hook authors the whole authoring surface as types from hookbox/hooks", () => {
    const ok = run("node", [TSC, "-p", "."], project);
    expect(ok.stdout + ok.stderr).toBe("");
    expect(ok.code).toBe(0);
  });

  it("gives the oh-my-pi line hookbox/hooks/omp: a module narrowing on its message roles type-checks under nodenext and node10", () => {
    copyFileSync(join(ROOT, "test", "types", "omp-messages.ts"), join(project, "omp-messages.ts"));
    writeFileSync(join(project, "tsconfig.omp.json"), TSCONFIG.replace('"hook.ts"', '"omp-messages.ts"'));
    const nodenext = run("node", [TSC, "-p", "tsconfig.omp.json"], project);
    expect(nodenext.stdout + nodenext.stderr).toBe("");
    const node10 = run("node", [TSC, "--noEmit", "--strict", "--moduleResolution", "node10", "--module", "commonjs", "--target", "es2022", "--skipLibCheck", "omp-messages.ts"], project);
    expect(node10.stdout + node10.stderr).toBe("");
  });

  it("rejects a hook that misuses the types, so the type check above is real", () => {
    writeFileSync(join(project, "bad.ts"), `import type { HookAPI, ToolCallEventResult } from "hookbox/hooks";\nconst r: ToolCallEventResult = { block: "yes" };\nexport default (pi: HookAPI) => { pi.sendMessage({ customType: 1, content: "x", display: true }); return r; };\n`);
    writeFileSync(join(project, "tsconfig.bad.json"), TSCONFIG.replace('"hook.ts"', '"bad.ts"'));
    const bad = run("node", [TSC, "-p", "tsconfig.bad.json"], project);
    expect(bad.code).not.toBe(0);
    expect(bad.stdout).toMatch(/bad\.ts\(2,\d+\): error TS2322/);
    expect(bad.stdout).toMatch(/bad\.ts\(3,\d+\): error TS2322/);
  });

  it("runs the hookbox bin from dist: check lists what the hook registered", () => {
    const r = run(join(project, "node_modules", ".bin", "hookbox"), ["check", "hook.ts", "--json"], project);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, agent: "hooks", hooks: [{ path: "hook.ts", ok: true, warnings: [], events: { tool_call: 1 }, commands: [], renderers: [] }] });
  });

  it("ships the LICENSE, the examples the CLI help names, and no source map pointing at files it lacks", () => {
    const installed = join(project, "node_modules", "hookbox");
    expect(readFileSync(join(installed, "LICENSE"), "utf8")).toMatch(/^MIT License/);
    for (const f of ["hooks/confirm-destructive.ts", "hooks/redact-secrets.ts", "hooks/git-dirty-guard.ts", "hooks/notes-command.ts", "session.jsonl"]) {
      expect(existsSync(join(installed, "examples", f))).toBe(true);
    }
    const files = execFileSync("find", [installed, "-name", "*.map"], { encoding: "utf8" });
    expect(files).toBe("");
    const r = run(join(project, "node_modules", ".bin", "hookbox"), ["replay", "node_modules/hookbox/examples/hooks/confirm-destructive.ts",
      "node_modules/hookbox/examples/hooks/redact-secrets.ts", "--events", "node_modules/hookbox/examples/session.jsonl", "--json"], project);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).summary).toMatchObject({ malformed: 0, blocked: 1, errors: 0 });
  });

  it("declares its dependencies with caret ranges (the lockfile pins them for the project itself)", () => {
    const pkg = JSON.parse(readFileSync(join(project, "node_modules", "hookbox", "package.json"), "utf8")) as { dependencies: Record<string, string> };
    for (const [name, range] of Object.entries(pkg.dependencies)) expect(`${name}@${range}`).toMatch(/@\^\d+\.\d+\.\d+$/);
  });

  it("resolves hookbox/hooks under moduleResolution node10 (tsc's default without a tsconfig) through typesVersions", () => {
    writeFileSync(join(project, "node10.ts"), HOOK.replace("export default function", "export function hook"));
    const r = run("node", [TSC, "--noEmit", "--strict", "--moduleResolution", "node10", "--module", "commonjs", "--target", "es2022", "--skipLibCheck", "node10.ts"], project);
    expect(r.stdout + r.stderr).toBe("");
    expect(r.code).toBe(0);
  });

  it("is ESM-only, and a CommonJS host can still require() it on a Node that allows require(esm)", () => {
    writeFileSync(join(project, "host.cjs"), `const { HookRunner, createSessionManager } = require("hookbox");\nconsole.log(typeof HookRunner, typeof createSessionManager);\n`);
    const r = run("node", ["host.cjs"], project);
    const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
    const allowed = major > 22 || (major === 22 && minor >= 12) || (major === 20 && minor >= 19);
    if (allowed) {
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("function function\n");
    } else {
      expect(r.stderr).toMatch(/ERR_REQUIRE_ESM/);
    }
  });

  it("exports hookbox/extension: isolate returns pi's extension factory", () => {
    writeFileSync(join(project, "ext-probe.mjs"), `import { isolate } from "hookbox/extension";\nconsole.log(typeof isolate, typeof isolate([]), import.meta.resolve("hookbox/extension"));\n`);
    const r = run("node", ["ext-probe.mjs"], project);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`function function file://${join(project, "node_modules", "hookbox", "dist", "host", "extension.js")}\n`);
  });

  it("README \"Use it in pi\" works as written with the installed package: pi -e ./isolated.ts blocks the model's rm -rf", (ctx) => {
    expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain("```ts\n// isolated.ts\n" + ISOLATED + "```");
    const why = piUnavailable();
    if (why) {
      console.log(`test/pack.test.ts: the pi run skipped: ${why}`);
      ctx.skip();
    }
    const { build, run: r } = runReadmeGuard(installPi(), project, ISOLATED);
    expect(r.code, r.stderr).toBe(0);
    expect(r.toolResult).toBe(`guard refused: rm -rf ${build}`);
    expect(existsSync(join(build, "keep.txt"))).toBe(true);
  }, 120_000);

  it("README \"Use it in pi\" (the discovering form) works as written with the installed package: a project's extension is blocked until `hookbox trust`, then runs", (ctx) => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(readme).toContain("```ts\n// ~/hookbox/pi.ts\n" + DISCOVERED + "```");
    expect(readme).toContain("alias pi='pi --no-extensions -e ~/hookbox/pi.ts'");
    const why = piUnavailable();
    if (why) {
      console.log(`test/pack.test.ts: the pi run skipped: ${why}`);
      ctx.skip();
    }
    const cli = installPi();
    const world = piWorld();
    const line = join(project, "pi.ts");
    writeFileSync(line, DISCOVERED);
    mkdirSync(join(world.project, ".pi", "extensions"), { recursive: true });
    copyFileSync(join(ROOT, "fixtures", "extensions", "blocks-rm-rf.ts"), join(world.project, ".pi", "extensions", "guard.ts"));
    mkdirSync(join(world.project, "build"));
    writeFileSync(join(world.project, "build", "keep.txt"), "precious");
    const env = { XDG_CONFIG_HOME: join(world.home, ".config") };
    const command = `rm -rf ${join(world.project, "build")}`;
    // The test support's pi already runs with --no-extensions, as the alias does.
    const before = runPi(cli, world, { command, extensions: [line], env });
    expect(before.code, before.stderr).toBe(0);
    expect(before.toolResult).toContain(`run: npx hookbox trust ${world.project}`);
    const trust = spawnSync(process.execPath, [join(project, "node_modules", "hookbox", "bin", "hookbox.mjs"), "trust", "--yes", world.project], {
      encoding: "utf8", env: { ...process.env, ...env, HOME: world.home, PI_CODING_AGENT_DIR: world.agentDir, PATH: `${join(installPiDir(), "node_modules", ".bin")}${delimiter}${process.env.PATH}` },
    });
    expect(trust.status, trust.stderr).toBe(0);
    const after = runPi(cli, world, { command, extensions: [line], env });
    expect(after.code, after.stderr).toBe(0);
    expect(after.toolResult).toBe(`guard refused: ${command}`);
    expect(existsSync(join(world.project, "build", "keep.txt"))).toBe(true);
  }, 180_000);

  it.for(["-e", "--hook"])("README \"Use it in oh-my-pi\" works as written with the installed package: omp %s ./isolated.ts (on Bun) blocks the model's rm -rf", { timeout: 600_000 }, (flag, ctx) => {
    expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain("```ts\n// isolated.ts (omp -e ./isolated.ts, or omp --hook ./isolated.ts)\n" + ISOLATED_OMP + "```");
    const why = agentUnavailable("oh-my-pi");
    if (why) {
      console.log(`test/pack.test.ts: the oh-my-pi run skipped: ${why}`);
      ctx.skip();
    }
    const omp = ompAgent(installOmp(), installBun());
    const world = { ...piWorld(omp), project };
    copyFileSync(join(ROOT, "fixtures", "extensions", "blocks-rm-rf.ts"), join(project, "guard.ts"));
    writeFileSync(join(project, "isolated.ts"), ISOLATED_OMP);
    mkdirSync(join(project, "build"), { recursive: true });
    writeFileSync(join(project, "build", "keep.txt"), "precious");
    const files = ["./isolated.ts"];
    const r = runAgent(omp, world, { command: `rm -rf ${join(project, "build")}`, ...(flag === "-e" ? { extensions: files } : { hooks: files }) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("Extension error");
    expect(r.toolResult).toBe(`guard refused: rm -rf ${join(project, "build")}`);
    expect(existsSync(join(project, "build", "keep.txt"))).toBe(true);
  });
});
