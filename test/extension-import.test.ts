/**
 * What importing `hookbox/extension` evaluates, in the built package as the agent imports it
 * (`builtHookbox`: dist/host/, scripts/bundle-host.mjs): the agent pays for every module at each
 * start, before `isolate()` runs. The package's files are chunks of many modules each: a module
 * counts as evaluated when a chunk holding it (esbuild names each module above its code) is loaded,
 * so a module that became eager, moved into a chunk the entry loads, fails here. What only
 * process and sandbox isolation use (src/isolation/child-modes.ts) and what counts a terminal's
 * cells (src/extension/output.ts), an in-process hook's handler loop and what runs a `pi.exec`
 * program load when first used; the approvals stores and what only the
 * command-hook routers use, never by `isolate()`. The control, in the same process, through the
 * package's own entries: once `hookbox` is imported (its StatusLine counts cells as the terminal
 * output does), a module in process isolation runs a pi.exec beside an in-process hook, and the
 * CLI's `trust` and `claude-hook` commands are loaded, the same modules are seen loaded.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "./helpers/files.js";
import { ROOT } from "./helpers/host.js";
import { builtHookbox } from "./support/pi-run.js";

/**
 * The files a start whose modules run in worker threads, with no terminal, does not evaluate.
 * (src/isolation/child-modes.ts, through which they load, only re-exports them: in a chunk it has no
 * code of its own, so no name.)
 */
const DEFERRED = [
  "dist/src/isolation/process-endpoint.js", "dist/src/isolation/frames.js", "dist/worker/frames.mjs",
  "dist/src/isolation/bubblewrap/bwrap.js", "dist/src/isolation/bubblewrap/cgroups.js",
  "dist/src/isolation/bubblewrap/sandbox-spec.js", "dist/src/net/proxy.js",
  "node_modules/devalue/", "node_modules/string-width/", "node_modules/get-east-asian-width/",
  // The handler loop of an in-process hook, and what runs a pi.exec program.
  "dist/worker/run.mjs", "dist/worker/transport.mjs", "dist/src/bridge/exec.js",
];
/**
 * What `isolate()` never reads: the approvals and needs stores with the fingerprints (loaded by
 * `isolateDiscovered`'s factory, `hookbox trust`), and what only the routers of `hookbox claude`,
 * `codex` and `gemini` use (src/observe/hook-recorder.ts).
 */
const NOT_ISOLATE = [
  "dist/src/approval/store.js", "dist/src/approval/needs.js", "dist/src/approval/pins.js", "dist/src/approval/fingerprint.js",
  "dist/src/approval/command-hook.js", "dist/src/approval/command-pins.js", "dist/src/approval/shell-words.js",
];
const GUARD = `export default function (pi) { pi.on("tool_call", async () => { await pi.exec("true", []); }); }\n`;

let loads: { atImport: string[]; afterUse: string[] };

beforeAll(() => {
  const built = builtHookbox("built-runtime-test");
  const dir = tempDir("hookbox-extension-import-");
  writeFileSync(join(dir, "guard.mjs"), GUARD);
  const file = join(dir, "loads.txt");
  writeFileSync(join(dir, "main.mjs"), `import { appendFileSync } from "node:fs";
await import(${JSON.stringify(join(built, "dist/host/extension.js"))});
appendFileSync(${JSON.stringify(file)}, "--imported--\\n");
const { HookRunner, createModelRegistry, createSessionManager, loadHooks } = await import(${JSON.stringify(join(built, "dist/host/index.js"))});
const { hooks, errors } = await loadHooks(["./guard.mjs"], process.cwd(), { isolation: "process", policy: { exec: { allow: ["true"] } } });
if (errors.length > 0) throw new Error(JSON.stringify(errors));
const inline = { path: "inline", resolvedPath: "inline", handlers: new Map([["tool_call", [() => undefined]]]), messageRenderers: new Map(), commands: new Map(), setSendMessageHandler() {}, setAppendEntryHandler() {} };
const runner = new HookRunner([...hooks, inline], process.cwd(), createSessionManager(), createModelRegistry());
await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "1", input: { command: "ls" } });
await runner.dispose();
const { main } = await import(${JSON.stringify(join(built, "dist/host/cli.js"))});
const quiet = { write() {}, isTTY: false };
for (const command of ["trust", "claude-hook"]) if (await main(["help", command], { stdout: quiet, stderr: quiet }) !== 0) throw new Error("hookbox help " + command);
`);
  execFileSync(process.execPath, ["--import", join(ROOT, "test/support/records-loads.mjs"), "main.mjs"], { cwd: dir, env: { ...process.env, HOOKBOX_LOADS_FILE: file }, stdio: "inherit", timeout: 60_000 });
  const [atImport = "", afterUse = ""] = readFileSync(file, "utf8").split("--imported--\n");
  const lines = (text: string) => text.split("\n").filter(Boolean).flatMap((url) => modulesOf(url, built));
  loads = { atImport: lines(atImport), afterUse: lines(afterUse) };
}, 120_000);

/**
 * The modules a loaded file evaluates, as file URLs: a file of dist/host/ holds each module under
 * the comment esbuild writes above it (its path from the package root); any other file is itself.
 */
function modulesOf(url: string, built: string): string[] {
  if (!url.startsWith(pathToFileURL(join(built, "dist", "host")).href + "/")) return [url];
  const named = readFileSync(fileURLToPath(url), "utf8").matchAll(/^\/\/ (\S+\.[cm]?js)$/gm);
  return [url, ...[...named].map((m) => pathToFileURL(resolve(built, m[1]!)).href)];
}

const seenIn = (urls: string[], files: string[]) => files.filter((d) => urls.some((u) => u.includes(`/${d}`)));

describe("importing hookbox/extension", () => {
  it("evaluates none of process and sandbox isolation's host modules, the terminal's cell counting, an in-process hook's handler loop or pi.exec's runner", () => {
    expect(loads.atImport.some((u) => u.endsWith("/dist/host/extension.js"))).toBe(true);
    expect(loads.atImport.some((u) => u.endsWith("/dist/src/extension/adapter.js"))).toBe(true);
    expect(seenIn(loads.atImport, DEFERRED)).toEqual([]);
  });

  it("evaluates neither the approvals stores nor what only the command-hook routers use (the control: hookbox trust and a router load each)", () => {
    expect(seenIn(loads.atImport, NOT_ISOLATE)).toEqual([]);
    expect(seenIn(loads.afterUse, NOT_ISOLATE)).toEqual(NOT_ISOLATE);
  });

  it("loads them once a module in process isolation runs a pi.exec beside an in-process hook and hookbox's index counts cells (the control: the recorder sees each)", () => {
    expect(seenIn(loads.afterUse, DEFERRED)).toEqual(DEFERRED);
  });
});
