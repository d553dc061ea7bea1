/**
 * What importing `hookbox/extension` evaluates, in the built package as the agent imports it
 * (`builtHookbox`): the agent pays for every file at each start, before `isolate()` runs. What only
 * process and sandbox isolation use (src/isolation/child-modes.ts) and what counts a terminal's
 * cells (src/extension/output.ts) load when first used; the approvals stores and what only the
 * command-hook routers use, never by `isolate()`. The control, in the same process: once a module
 * starts in process isolation, output goes to a terminal and `hookbox trust` and a router are
 * imported, the same files are seen loaded.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "./helpers/files.js";
import { ROOT } from "./helpers/host.js";
import { builtHookbox } from "./support/pi-run.js";

/** The files a start whose modules run in worker threads, with no terminal, does not evaluate. */
const DEFERRED = [
  "dist/src/isolation/child-modes.js", "dist/src/isolation/process-endpoint.js", "dist/src/isolation/frames.js", "dist/worker/frames.mjs",
  "dist/src/isolation/bubblewrap/bwrap.js", "dist/src/isolation/bubblewrap/seccomp.js", "dist/src/isolation/bubblewrap/cgroups.js",
  "dist/src/isolation/bubblewrap/sandbox-spec.js", "dist/src/net/proxy.js",
  "node_modules/devalue/", "node_modules/string-width/", "node_modules/get-east-asian-width/",
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
const GUARD = `export default function (pi) { pi.on("tool_call", () => undefined); }\n`;

let loads: { atImport: string[]; afterUse: string[] };

beforeAll(() => {
  const built = builtHookbox("built-runtime-test");
  const dir = tempDir("hookbox-extension-import-");
  writeFileSync(join(dir, "guard.mjs"), GUARD);
  const file = join(dir, "loads.txt");
  writeFileSync(join(dir, "main.mjs"), `import { appendFileSync } from "node:fs";
await import(${JSON.stringify(join(built, "dist/src/extension.js"))});
appendFileSync(${JSON.stringify(file)}, "--imported--\\n");
const { loadHooks } = await import(${JSON.stringify(join(built, "dist/src/index.js"))});
const { hooks, errors } = await loadHooks(["./guard.mjs"], process.cwd(), { isolation: "process" });
if (errors.length > 0) throw new Error(JSON.stringify(errors));
await Promise.all(hooks.map((h) => h.dispose?.()));
const { AgentOutput } = await import(${JSON.stringify(join(built, "dist/src/extension/output.js"))});
await new AgentOutput(() => "text", "/", () => {}, () => 80).ready;
await import(${JSON.stringify(join(built, "dist/src/agents/router.js"))});
await import(${JSON.stringify(join(built, "dist/src/cli/trust.js"))});
`);
  execFileSync(process.execPath, ["--import", join(ROOT, "test/support/records-loads.mjs"), "main.mjs"], { cwd: dir, env: { ...process.env, HOOKBOX_LOADS_FILE: file }, stdio: "inherit", timeout: 60_000 });
  const [atImport = "", afterUse = ""] = readFileSync(file, "utf8").split("--imported--\n");
  const lines = (text: string) => text.split("\n").filter(Boolean);
  loads = { atImport: lines(atImport), afterUse: lines(afterUse) };
}, 120_000);

const seenIn = (urls: string[], files: string[]) => files.filter((d) => urls.some((u) => u.includes(`/${d}`)));

describe("importing hookbox/extension", () => {
  it("evaluates none of process and sandbox isolation's host modules nor the terminal's cell counting", () => {
    expect(loads.atImport.some((u) => u.endsWith("/dist/src/extension.js"))).toBe(true);
    expect(seenIn(loads.atImport, DEFERRED)).toEqual([]);
  });

  it("evaluates neither the approvals stores nor what only the command-hook routers use (the control: hookbox trust and a router load each)", () => {
    expect(seenIn(loads.atImport, NOT_ISOLATE)).toEqual([]);
    expect(seenIn(loads.afterUse, NOT_ISOLATE)).toEqual(NOT_ISOLATE);
  });

  it("loads them once a module starts in process isolation and output goes to a terminal (the control: the recorder sees each)", () => {
    expect(seenIn(loads.afterUse, DEFERRED)).toEqual(DEFERRED);
  });
});
