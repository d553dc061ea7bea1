/**
 * hookbox inside the real oh-my-pi: @oh-my-pi/pi-coding-agent 18.2.3 (scripts/install-omp.sh), a
 * Bun program run by Bun 1.3.14, headless (`-p`) in a network namespace with only loopback,
 * against the scripted fake model whose first turn asks the bash tool to `rm -rf` a folder of the
 * project (test/support/pi-agent.ts, pi-netns-run.mjs: the same runner as pi's tests). The
 * isolating file is passed with `-e` and with `--hook` (oh-my-pi loads both through its extension
 * loader); the isolated guard is a pi extension or a legacy hook module (the seed's HookAPI).
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./helpers/host.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { EVENT_TYPES } from "../src/contract/events.js";
import {
  CARRIED_MEMBERS, OMP_CARRIED_MEMBERS, OMP_NOTIFY_EVENTS, OMP_REFUSED_EVENTS, OMP_REFUSED_MEMBERS, OMP_RESULT_EVENTS, PI_ONLY_EVENTS, REFUSED_MEMBERS,
} from "../worker/extension-members.mjs";
import { carriedEvents } from "../src/extension/adapter.js";
import { agentUnavailable, installBun, installOmp, installPi, ompAgent, piWorld, runAgent, victim, type Agent, type PiWorld } from "./support/pi-agent.js";

const unavailable = agentUnavailable("oh-my-pi");
if (unavailable) console.log(`test/e2e-omp.test.ts skipped: ${unavailable}`);
const sandbox = sandboxAvailability();
if (!sandbox.ok) console.log(`test/e2e-omp.test.ts: the untrusted (sandbox) test skipped: ${sandbox.reason}`);

let omp: Agent;

/** The one-line file a user passes with -e or --hook: `export default isolate([...], options)`. */
function isolateFile(world: PiWorld, modules: string[], options: Record<string, unknown>): string {
  const file = join(world.project, "isolated.ts");
  writeFileSync(file, `import { isolate } from ${JSON.stringify(join(ROOT, "src", "extension.ts"))};\nexport default isolate(${JSON.stringify(modules)}, ${JSON.stringify(options)});\n`);
  return file;
}

const GUARD = join(ROOT, "fixtures", "extensions", "blocks-rm-rf.ts");
/** The contract's example 1, a legacy hook module written against the original's import. */
const LEGACY = join(ROOT, "fixtures", "valid", "blocks-rm-rf.ts");
/** A legacy hook module that also subscribes to the seed's events pi lacks and oh-my-pi has. */
const LEGACY_OMP = join(ROOT, "fixtures", "extensions", "legacy-hook-omp-events.ts");
const TIMER = join(ROOT, "fixtures", "extensions", "throws-from-timer.ts");
/** A module that marks the system prompt with where it runs (oh-my-pi's own process: argv1=cli.js). */
const MARKS = join(ROOT, "fixtures", "extensions", "marks-system-prompt.ts");
const importIsolate = `import { isolate } from ${JSON.stringify(join(ROOT, "src", "extension.ts"))};`;

describe.skipIf(unavailable !== undefined)("hookbox inside oh-my-pi 18.2.3 (a Bun host)", { timeout: 180_000 }, () => {
  beforeAll(() => { omp = ompAgent(installOmp(), installBun()); }, 600_000);

  it("control: without hookbox the model's rm -rf really deletes the folder", () => {
    const world = piWorld(omp);
    const dir = victim(world);
    const run = runAgent(omp, world, { command: `rm -rf ${dir}` });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(dir)).toBe(false);
    expect(run.requests.filter((r) => r.url.endsWith("/chat/completions"))).toHaveLength(2);
    expect(run.outside).toBe("ENETUNREACH");
    expect(run.stdout).toContain("TOOL RESULT:");
  });

  it.each([
    ["worker mode, policy trusted (Bun's worker: what Bun cannot enforce is reported)", { policy: "trusted" }],
    ["process mode, the default policy (the hook runs on Node, confined)", { isolation: "process" }],
  ])("-e: an isolated guard in %s blocks the model's rm -rf; the folder survives and the model receives the reason", (_how, options) => {
    const world = piWorld(omp);
    const dir = victim(world);
    const run = runAgent(omp, world, { command: `rm -rf ${dir}`, extensions: [isolateFile(world, [GUARD], options)] });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
    expect(run.toolResult).toBe(`guard refused: rm -rf ${dir}`);
    expect(run.stdout).toContain(`TOOL RESULT: guard refused: rm -rf ${dir}`);
  });

  it.skipIf(!sandbox.ok)("-e: the same guard under policy untrusted (the bubblewrap sandbox, on Node) blocks", () => {
    const world = piWorld(omp);
    const dir = victim(world);
    const run = runAgent(omp, world, { command: `rm -rf ${dir}`, extensions: [isolateFile(world, [GUARD], { policy: "untrusted" })] });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
    expect(run.toolResult).toBe(`guard refused: rm -rf ${dir}`);
  });

  it("-e: the README's isolate([\"./guard.ts\"]) with no options runs the guard on Node in its own process (said once, naming why and how to choose): it blocks the model's rm -rf and lets another call through", () => {
    const world = piWorld(omp);
    const dir = victim(world);
    copyFileSync(GUARD, join(world.project, "guard.ts"));
    const file = join(world.project, "isolated.ts");
    writeFileSync(file, `${importIsolate}\nexport default isolate(["./guard.ts"]);\n`);
    const guard = join(world.project, "guard.ts");
    const said = `hookbox: ${guard}: isolation "process" was chosen (a child process on Node`;
    const blocked = runAgent(omp, world, { command: `rm -rf ${dir}`, extensions: [file] });
    expect(blocked.code, blocked.stderr).toBe(0);
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
    expect(blocked.toolResult).toBe(`guard refused: rm -rf ${dir}`);
    expect(blocked.stderr.split(said)).toHaveLength(2);
    expect(blocked.stderr).toContain(`the default worker cannot enforce what this hook's policy asks (Node's permission model (file, child-process and worker limits), a restricted environment). Set isolation "process" to keep this without the warning, "sandbox" for the OS sandbox, or policy "trusted"`);
    const made = join(world.project, "made.txt");
    const other = runAgent(omp, world, { command: `echo made > ${made}`, extensions: [file] });
    expect(other.code, other.stderr).toBe(0);
    expect(readFileSync(made, "utf8")).toBe("made\n");
    expect(other.toolResult).not.toContain("blocked");
  });

  it("-e: isolation \"worker\" asked with the default (confined) policy is still refused by name on Bun, and every tool call is blocked (fail closed)", () => {
    const world = piWorld(omp);
    const dir = victim(world);
    const file = isolateFile(world, [GUARD], { isolation: "worker" });
    const run = runAgent(omp, world, { command: `rm -rf ${dir}`, extensions: [file] });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
    expect(run.stderr).toContain(`Extension error (${file}): hookbox: ${GUARD} did not load (load_failed): Failed to load hook: isolation "worker" on a Bun host`);
    expect(run.toolResult).toBe(`hookbox: blocked because isolated extension ${GUARD} (load_failed) did not load (fail closed)`);
  });

  /** oh-my-pi with its own discovery on (no --no-extensions): it loads every module of the project's .omp/extensions/. */
  const discovering = () => ({ ...omp, quiet: omp.quiet.filter((f) => f !== "--no-extensions") });
  const systemPrompt = (run: ReturnType<typeof runAgent>) => JSON.stringify(run.requests.find((r) => r.url.endsWith("/chat/completions"))?.body.messages?.[0] ?? "");

  it("a guard placed beside isolated.ts in .omp/extensions/ (oh-my-pi loads it itself, unisolated) is reported naming the folder, not loaded again, and every tool call is blocked", () => {
    const world = piWorld(omp);
    const folder = join(world.project, ".omp", "extensions");
    mkdirSync(folder, { recursive: true });
    copyFileSync(MARKS, join(folder, "guard.ts"));
    writeFileSync(join(folder, "isolated.ts"), `${importIsolate}\nexport default isolate(["./guard.ts"]);\n`);
    const run = runAgent(discovering(), world, { command: "ls" });
    expect(run.code, run.stderr).toBe(0);
    const guard = join(folder, "guard.ts");
    expect(run.stderr).toContain(`${guard} did not load (load_failed): Failed to load hook: oh-my-pi also loads it by itself, in its own process: oh-my-pi's discovery (discoverExtensionPaths) finds it in .omp/extensions/`);
    expect(run.toolResult).toBe(`hookbox: blocked because isolated extension ${guard} (load_failed) did not load (fail closed)`);
    // Once, in oh-my-pi's own process (its script is omp's cli.js): hookbox did not run it again.
    expect(systemPrompt(run).match(/MINE-LOADED main=true argv1=/g)).toHaveLength(1);
    expect(systemPrompt(run)).toContain("MINE-LOADED main=true argv1=cli.js");
  });

  it("control: the same module also isolated from a copy where oh-my-pi does not look runs twice, once in oh-my-pi's process, and nothing is reported", () => {
    const world = piWorld(omp);
    const folder = join(world.project, ".omp", "extensions");
    mkdirSync(folder, { recursive: true });
    mkdirSync(join(world.project, ".omp", "hookbox"));
    copyFileSync(MARKS, join(folder, "guard.ts"));
    copyFileSync(MARKS, join(world.project, ".omp", "hookbox", "guard.ts"));
    writeFileSync(join(folder, "isolated.ts"), `${importIsolate}\nexport default isolate(["../hookbox/guard.ts"]);\n`);
    const run = runAgent(discovering(), world, { command: "ls" });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("also loads it");
    expect(run.toolResult).not.toContain("blocked");
    expect(systemPrompt(run).match(/MINE-LOADED main=true argv1=/g)).toHaveLength(2);
    expect(systemPrompt(run)).toContain("MINE-LOADED main=true argv1=cli.js");
  });

  it("a throw from a timer in an isolated module (process mode) is contained: oh-my-pi finishes its prompt, exits 0, and the call is blocked (crashed)", () => {
    const world = piWorld(omp);
    const dir = victim(world);
    const run = runAgent(omp, world, { command: `rm -rf ${dir}`, extensions: [isolateFile(world, [TIMER], { isolation: "process" })] });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
    expect(run.toolResult).toContain(`Blocked because hook "${TIMER}" failed (crashed)`);
    expect(run.stdout).toContain("TOOL RESULT: ");
  });

  it("control: the same module in oh-my-pi's own process ends oh-my-pi (exit 1) before its prompt is done", () => {
    const world = piWorld(omp);
    const dir = victim(world);
    const run = runAgent(omp, world, { command: `rm -rf ${dir}`, extensions: [TIMER] });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("[Uncaught Exception] Error: thrown from a timer");
    expect(run.toolResult).toBe("");
  });

  it("a module subscribing to an oh-my-pi event hookbox does not carry (user_python) does not load silently: refused by name with why, every tool call blocked", () => {
    const world = piWorld(omp);
    const dir = victim(world);
    const module = join(ROOT, "fixtures", "extensions", "subscribes-omp-user-python.ts");
    const file = isolateFile(world, [module], { isolation: "process" });
    const run = runAgent(omp, world, { command: `rm -rf ${dir}`, extensions: [file] });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
    expect(run.stderr).toContain(`hookbox: ${module} did not load (load_failed): Failed to load hook: pi.on("user_python") is refused by hookbox/extension: ${OMP_REFUSED_EVENTS.user_python}`);
    expect(run.toolResult).toBe(`hookbox: blocked because isolated extension ${module} (load_failed) did not load (fail closed)`);
  });

  it.each([
    ["a pi extension", GUARD, `guard refused: rm -rf <dir>`],
    ["a legacy hook module (the contract's example 1, unchanged)", LEGACY, "rm -rf blocked (no UI)"],
    ["a legacy hook module subscribing to the seed's events oh-my-pi has and pi lacks", LEGACY_OMP, "legacy hook refused: rm -rf <dir> (hasUI false, logger function)"],
  ])("--hook: the isolating file passed as a hook, isolating %s, blocks the model's rm -rf", (_what, module, reason) => {
    const world = piWorld(omp);
    const dir = victim(world);
    const run = runAgent(omp, world, { command: `rm -rf ${dir}`, hooks: [isolateFile(world, [module], { isolation: "process" })] });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("Extension error");
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
    expect(run.toolResult).toBe(reason.replace("<dir>", dir));
  });
});

describe("the oh-my-pi line's events", () => {
  it("the events carried only in the oh-my-pi line are oh-my-pi's and not pi's, with a rule in hookbox's runner; pi's events it lacks are not mirrored there; every event of the seed's hook API that oh-my-pi has crosses there", () => {
    const ompTypes = readFileSync(join(installOmp(), "..", "..", "src", "extensibility", "extensions", "types.ts"), "utf8");
    const ompApi = ompTypes.slice(ompTypes.indexOf("export interface ExtensionAPI {"));
    const ompEvents = new Set([...ompApi.slice(0, ompApi.indexOf("\n}\n")).matchAll(/^\ton\(\s*event: "([\w.]+)"/gm)].map((m) => m[1]));
    const piTypes = readFileSync(join(installPi(), "..", "core", "extensions", "types.d.ts"), "utf8");
    const piApi = piTypes.slice(piTypes.indexOf("export interface ExtensionAPI {"));
    const piEvents = new Set([...piApi.slice(0, piApi.indexOf("\n}\n")).matchAll(/^ {4}on\(event: "([\w.]+)"/gm)].map((m) => m[1]));
    expect(ompEvents.size).toBeGreaterThan(30);
    const ompOnly = [...OMP_RESULT_EVENTS, ...OMP_NOTIFY_EVENTS];
    expect(ompOnly.filter((e) => !ompEvents.has(e) || piEvents.has(e) || !(EVENT_TYPES as string[]).includes(e))).toEqual([]);
    expect(PI_ONLY_EVENTS.filter((e) => ompEvents.has(e) || !piEvents.has(e))).toEqual([]);
    const { results, notified } = carriedEvents("omp");
    const carried = new Set([...results, ...notified]);
    // every event mirrored in oh-my-pi is one it has, and every event of the seed's hook API it has is mirrored
    expect([...carried].filter((e) => !ompEvents.has(e))).toEqual([]);
    expect(EVENT_TYPES.filter((e) => ompEvents.has(e) && !carried.has(e))).toEqual([]);
    // every event of oh-my-pi is carried or refused by name, and the refused ones are oh-my-pi's, not pi's, nor carried
    const refused = Object.keys(OMP_REFUSED_EVENTS);
    expect([...ompEvents].filter((e) => !carried.has(e) && !refused.includes(e))).toEqual([]);
    expect(refused.filter((e) => !ompEvents.has(e) || piEvents.has(e) || carried.has(e))).toEqual([]);
  });

  it("every member of oh-my-pi's ExtensionAPI type is classified (pi's table plus oh-my-pi's), and oh-my-pi's table names nothing it does not have nor anything of pi's", () => {
    const ompTypes = readFileSync(join(installOmp(), "..", "..", "src", "extensibility", "extensions", "types.ts"), "utf8");
    const ompApi = ompTypes.slice(ompTypes.indexOf("export interface ExtensionAPI {"));
    const members = new Set([...ompApi.slice(0, ompApi.indexOf("\n}\n")).matchAll(/^\t(?:readonly )?(\w+)[<(:?]/gm)].map((m) => m[1]!));
    expect(members.size).toBeGreaterThan(30);
    const piClassified = [...CARRIED_MEMBERS, ...Object.keys(REFUSED_MEMBERS)];
    const ompClassified = [...OMP_CARRIED_MEMBERS, ...Object.keys(OMP_REFUSED_MEMBERS)];
    expect([...members].filter((m) => !piClassified.includes(m) && !ompClassified.includes(m))).toEqual([]);
    expect([...piClassified, ...ompClassified].filter((m) => !members.has(m))).toEqual([]);
    expect(ompClassified.filter((m) => piClassified.includes(m))).toEqual([]);
  });
});
