/** loadHooks over real files and workers: path resolution, order, load failures, the factory. */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createSessionManager, HookRunner, loadHooks, type LoadOptions } from "../src/index.js";
import { MARKER } from "../fixtures/valid/waits-for-sibling-at-load.js";
import { DEFAULTS } from "../worker/wire.mjs";
import { sample } from "./helpers/events.js";
import { blocksWith, tempDir, writeHook } from "./helpers/files.js";
import { ROOT, fixture, start, track } from "./helpers/host.js";

/** Load into a runner (disposed after the test); return what the loader returned, and the runner. */
async function load(paths: string[], cwd = ROOT, options: LoadOptions = {}) {
  const result = await loadHooks(paths, cwd, options);
  return { ...result, runner: track(new HookRunner(result.hooks, cwd, createSessionManager(), {} as never)) };
}
/** The block reason of the one hook at `paths` (written with `blocksWith`). */
async function reasonOf(paths: string[], cwd = ROOT) {
  const { errors, runner } = await load(paths, cwd);
  expect(errors).toEqual([]);
  return (await runner.emitToolCall(sample("tool_call") as never))?.reason;
}

describe("path resolution", () => {
  const home = process.env.HOME;
  afterEach(() => { process.env.HOME = home; });

  it("an absolute path is used as is, and the hook keeps the path as given", async () => {
    const file = writeHook(tempDir(), "abs.ts", blocksWith("absolute"));
    const { hooks } = await load([file]);
    expect(hooks.map((h) => [h.path, h.resolvedPath])).toEqual([[file, file]]);
    expect(await reasonOf([file])).toBe("absolute");
  });

  it("a relative path resolves against the cwd given to loadHooks, not the process's", async () => {
    const dir = tempDir();
    writeHook(dir, "hooks/rel.ts", blocksWith("relative"));
    const { hooks } = await load(["hooks/rel.ts"], dir);
    expect(hooks.map((h) => [h.path, h.resolvedPath])).toEqual([["hooks/rel.ts", join(dir, "hooks/rel.ts")]]);
    expect(await reasonOf(["./hooks/rel.ts"], dir)).toBe("relative");
  });

  it("a leading ~ expands to the home folder", async () => {
    const dir = tempDir();
    writeHook(dir, "home-hook.ts", blocksWith("from home"));
    process.env.HOME = dir;
    const { hooks } = await load(["~/home-hook.ts"]);
    expect(hooks[0]?.resolvedPath).toBe(join(dir, "home-hook.ts"));
    expect(await reasonOf(["~/home-hook.ts"])).toBe("from home");
  });

  it("a leading @ before an absolute path is stripped", async () => {
    const file = writeHook(tempDir(), "at.ts", blocksWith("at prefix"));
    expect(await reasonOf([`@${file}`])).toBe("at prefix");
  });

  it("a file:// URL is turned into its path, percent-escapes included", async () => {
    const file = writeHook(tempDir(), "with space/url.ts", blocksWith("file url"));
    expect(pathToFileURL(file).href).toContain("%20");
    expect(await reasonOf([pathToFileURL(file).href])).toBe("file url");
  });

  it("unicode spaces in a path are read as plain spaces", async () => {
    const dir = tempDir();
    writeHook(dir, "my hooks/nbsp.ts", blocksWith("unicode spaces"));
    expect(await reasonOf([join(dir, "my\u00a0hooks/nbsp.ts")])).toBe("unicode spaces");
    expect(await reasonOf([join(dir, "my\u3000hooks/nbsp.ts")])).toBe("unicode spaces");
  });
});

describe("order and parallel start", () => {
  it("hooks keep the order of paths, with failed ones left out and reported in order", async () => {
    const names = ["records-call-order", "returns-block-true", "registers-two-handlers"];
    const { hooks, errors } = await load([fixture(names[0]!), "missing-one.ts", fixture(names[1]!), "missing-two.ts", fixture(names[2]!)]);
    expect(hooks.map((h) => h.path)).toEqual(names.map(fixture));
    expect(errors.map((e) => [e.path, e.code])).toEqual([["missing-one.ts", "load_failed"], ["missing-two.ts", "load_failed"]]);
  });

  it("workers start in parallel: a hook whose factory waits for a later hook's factory still loads", async () => {
    rmSync(MARKER, { force: true });
    try {
      const { hooks, errors } = await load([fixture("waits-for-sibling-at-load"), fixture("creates-sibling-marker-at-load")], ROOT, { deadlines: { load: 20_000 }, policy: { fsRead: [MARKER], fsWrite: [MARKER] } });
      expect(errors).toEqual([]);
      expect(hooks.map((h) => relative(ROOT, h.path))).toEqual(["fixtures/valid/waits-for-sibling-at-load.ts", "fixtures/valid/creates-sibling-marker-at-load.ts"]);
    } finally {
      rmSync(MARKER, { force: true });
    }
    expect(existsSync(MARKER)).toBe(false);
  });
});

describe("load failures", () => {
  const dir = tempDir();
  const cases: Array<[string, string, string | undefined, string]> = [
    ["a missing file", "does-not-exist.ts", undefined, "does-not-exist.ts"],
    ["a syntax error", "syntax-error.ts", "export default (pi) => { pi.on(\"turn_start\", () => { ;\n", ""],
    ["no default export", "no-default.ts", "export const notDefault = () => {};\n", "Hook must export a default function"],
    ["a default export that is not a function", "default-object.ts", "export default { on: 1 };\n", "Hook must export a default function"],
    ["a factory that throws", "factory-throws.ts", "export default () => { throw new Error(\"factory refused to start\"); };\n", "factory refused to start"],
    ["an async factory that rejects", "factory-rejects.ts", "export default async () => { await 0; throw new Error(\"async factory refused\"); };\n", "async factory refused"],
  ];
  for (const [what, rel, source, message] of cases) {
    it(`${what} is reported as load_failed with the original path, and loading goes on`, async () => {
      const path = source === undefined ? join(dir, rel) : writeHook(dir, rel, source);
      const { hooks, errors } = await load([fixture("records-call-order"), path, fixture("returns-block-true")]);
      expect(hooks.map((h) => h.path)).toEqual([fixture("records-call-order"), fixture("returns-block-true")]);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ path, code: "load_failed" });
      expect(errors[0]!.error).toContain(message);
      expect(errors[0]!.error).toMatch(/^Failed to load hook: /);
    });
  }

  it("a failed load is reported with the path exactly as configured, relative or not", async () => {
    const { errors } = await load(["./nope/../missing.ts"], dir);
    expect(errors).toEqual([{ path: "./nope/../missing.ts", code: "load_failed", error: expect.stringContaining(join(dir, "missing.ts")) }]);
  });
});

describe("the factory", () => {
  it("an async factory is awaited: handlers and commands registered after an await count", async () => {
    const { runner } = await start(["registers-after-await"]);
    expect(runner.hasHandlers("tool_call")).toBe(true);
    expect(runner.getCommand("late")?.description).toBe("registered after an await");
    expect(await runner.emitToolCall(sample("tool_call") as never)).toEqual({ block: true, reason: "registered after an await" });
  });

  it("the runner reports the paths as configured, and the no-UI defaults until initialize says otherwise", async () => {
    const dir = tempDir();
    writeHook(dir, "a.ts", blocksWith("a"));
    const { runner } = await load(["./a.ts", "missing.ts"], dir);
    expect(runner.getHookPaths()).toEqual(["./a.ts"]);
    expect(runner.getHasUI()).toBe(false);
    expect(await runner.getUIContext()!.confirm("t", "m")).toBe(false);
    const ui = { ...runner.getUIContext()! };
    runner.initialize({ getModel: () => undefined, sendMessageHandler: () => {}, appendEntryHandler: () => {}, hasUI: true, uiContext: ui });
    expect(runner.getHasUI()).toBe(true);
    expect(runner.getUIContext()).toBe(ui);
  });

  it("a module written against the original's type-only import loads unchanged", async () => {
    const { hooks, errors } = await load(["blocks-rm-rf", "redacts-api-key", "drops-debug-messages", "handoff-command"].map(fixture));
    expect(errors).toEqual([]);
    expect(hooks.map((h) => [[...h.handlers.keys()], [...h.commands.keys()]])).toEqual([
      [["tool_call"], []], [["tool_result"], []], [["context"], []], [[], ["handoff"]],
    ]);
  });

  it("a TypeScript module that imports nothing is evaluated without jiti, which its require still loads when called", async () => {
    // Why: jiti costs each runtime about 2 MB (docs/performance.md); only a module that reaches for it pays.
    const file = writeHook(tempDir(), "lazy-jiti.ts", [
      "declare const module: { constructor: { _cache: Record<string, unknown> } };",
      "declare const require: (id: string) => { basename(path: string): string };",
      "const jitiLoaded = (): boolean => Object.keys(module.constructor._cache).some((key) => /[\\\\/]jiti[\\\\/]/.test(key));",
      "export default function (pi: { on(event: string, handler: () => unknown): void }) {",
      "  const atLoad = jitiLoaded();",
      "  pi.on(\"tool_call\", () => ({ block: true, reason: `${atLoad} ${require(\"node:path\").basename(\"/a/b.ts\")} ${jitiLoaded()}` }));",
      "}",
    ].join("\n"));
    expect(await reasonOf([file])).toBe("false b.ts true");
  });
});

describe("pi.sendMessage and pi.appendEntry", () => {
  const NOT_INITIALIZED = "sendMessage handler not initialized | appendEntry handler not initialized | sendMessage handler not initialized | appendEntry handler not initialized";

  it("inside the factory body they throw \"... handler not initialized\", as the original", async () => {
    const { runner, sent, entries } = await start(["sends-messages-and-entries"]);
    expect((await runner.emitBeforeAgentStart("p"))?.message?.content).toBe(NOT_INITIALIZED);
    expect(sent).toEqual([]);
    expect(entries).toEqual([]);
  });

  it("in a handler before initialize they throw \"... handler not initialized\"", async () => {
    const { runner, sent } = await start(["sends-messages-and-entries"], { init: false });
    expect(await runner.emitToolCall(sample("tool_call") as never)).toEqual({ block: true, reason: NOT_INITIALIZED });
    expect(sent).toEqual([]);
  });

  it("after initialize they reach the host's handlers in the order the hook called them, with their arguments", async () => {
    const log: unknown[] = [];
    const { runner } = await start(["sends-messages-and-entries"], {
      init: {
        sendMessageHandler: (message, options) => { log.push(["send", message, options]); },
        appendEntryHandler: (customType, data) => { log.push(["entry", customType, data]); },
      },
    });
    expect(await runner.emitToolCall(sample("tool_call") as never)).toBeUndefined();
    expect(log).toEqual([
      ["send", { customType: "probe", content: "call-1 message 1", display: false }, { triggerTurn: true }],
      ["entry", "probe", { tag: "call-1", n: 1 }],
      ["send", { customType: "probe", content: "call-1 message 2", display: true, details: { n: 2 } }, undefined],
      ["entry", "probe", undefined],
    ]);
  });
});

describe("pi.exec and pi.logger", () => {
  it("pi.exec runs a program in the loader's cwd by default and resolves its result", async () => {
    const { runner } = await start(["runs-exec"], { load: { policy: { exec: { allow: [process.execPath] } } } });
    const prompt = JSON.stringify({ command: process.execPath, args: ["-e", "process.stdout.write(process.cwd()); process.exit(3)"] });
    const message = (await runner.emitBeforeAgentStart(prompt))?.message;
    expect(message?.content).toBe(ROOT);
    expect(message?.details).toEqual({ stdout: ROOT, stderr: "", code: 3, killed: false });
  });

  it("pi.exec honours a cwd option", async () => {
    const dir = tempDir();
    // The hook may read `dir` (policy.fsRead): a cwd outside what it may read is refused (test/host-exec-policy.test.ts).
    const { runner } = await start(["runs-exec"], { load: { policy: { fsRead: [dir], exec: { allow: [process.execPath] } } } });
    const prompt = JSON.stringify({ command: process.execPath, args: ["-e", "process.stdout.write(process.cwd())"], cwd: dir });
    expect((await runner.emitBeforeAgentStart(prompt))?.message?.content).toBe(dir);
  });

  it("pi.exec is bounded by policy.exec: a program past timeoutMs is killed, output past maxOutputBytes is cut with a marker (defaults 30 s and 1 MiB, as docs/confinement.md says)", async () => {
    expect([DEFAULTS.execTimeoutMs, DEFAULTS.execOutputBytes]).toEqual([30_000, 2 ** 20]);
    expect(readFileSync(join(ROOT, "docs", "confinement.md"), "utf8")).toContain("(`timeoutMs` 30 s, `maxOutputBytes` 1 MiB)");
    const { runner } = await start(["runs-exec"], { load: { policy: { exec: { allow: [process.execPath], timeoutMs: 300, maxOutputBytes: 10 } } } });
    const hangs = JSON.stringify({ command: process.execPath, args: ["-e", "setTimeout(() => {}, 20_000)"] });
    const started = Date.now();
    expect((await runner.emitBeforeAgentStart(hangs))?.message?.details).toMatchObject({ killed: true });
    expect(Date.now() - started).toBeLessThan(10_000);
    const talks = JSON.stringify({ command: process.execPath, args: ["-e", "process.stdout.write('x'.repeat(50))"] });
    expect((await runner.emitBeforeAgentStart(talks))?.message?.details).toMatchObject({ stdout: "xxxxxxxxxx\n[output cut at 10 bytes]", code: 0, killed: false });
  });

  it("pi.exec works inside the factory, before any runner exists", async () => {
    const { runner } = await start(["runs-exec-at-load"], { load: { policy: { exec: { allow: [process.execPath] } } } });
    expect((await runner.emitBeforeAgentStart("p"))?.message?.content).toBe("ran at load");
  });

  it("pi.logger lines from handlers reach the runner's onLog with the hook path and level", async () => {
    const lines: unknown[] = [];
    const { runner } = await start(["logs-with-pi-logger"], { runner: { onLog: (...l) => { lines.push(l); } } });
    await runner.emit(sample("turn_start"));
    const path = fixture("logs-with-pi-logger");
    expect(lines.slice(0, 3)).toEqual([[path, "debug", "turn 0"], [path, "info", 'state {"ok":true}'], [path, "warn", "careful"]]);
    expect(lines[3]).toEqual([path, "error", expect.stringContaining("Error: shown with its stack")]);
    expect((lines[3] as string[])[2]).toContain("logs-with-pi-logger.ts");
  });

  it("pi.logger lines written by the factory reach the onLog given to loadHooks", async () => {
    const lines: unknown[] = [];
    await load([fixture("logs-with-pi-logger")], ROOT, { onLog: (...l: unknown[]) => { lines.push(l); } });
    expect(lines).toEqual([[fixture("logs-with-pi-logger"), "info", "loading logs-with-pi-logger"]]);
  });
});
