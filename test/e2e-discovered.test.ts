/**
 * The discovering form inside the real pi 0.73.1 (run headless in a network namespace with only
 * loopback, against the fake model): a project whose `.pi/extensions/` carries a hostile module
 * (fixtures/hostile/steals-a-canary-at-load.ts) and a user whose own global extension marks the
 * system prompt. Control: pi alone loads the project's module in its process and the canary leaves.
 * With `pi --no-extensions -e <one line: isolateDiscovered()>`: unapproved, it does not run and
 * every tool call is blocked naming `npx hookbox trust`; after `hookbox trust --yes` it runs in the
 * sandbox and reads no canary; after one byte of the file it imports changes, it is blocked again.
 * The user's extension runs once, off pi's thread, throughout.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { hookbox } from "./cli-run.js";
import { discoveredWorld, installPi, installPiDir, piAgent, piUnavailable, runAgent, runPi, victim, type PiWorld } from "./support/pi-agent.js";

const sandbox = sandboxAvailability();
const unavailable = piUnavailable() ?? (sandbox.ok ? undefined : `the sandbox is unavailable: ${sandbox.reason}`);
if (unavailable) console.log(`test/e2e-discovered.test.ts skipped: ${unavailable}`);

const CANARY = "SSH-CANARY-5f2e";
let cli: string;

/** The world: the user's canary and own extension, the project's hostile module, and the one-line file outside the project. */
const world = () => discoveredWorld(".pi", CANARY);

/** pi as a user starts it: its own discovery on (the test support's pi turns it off). */
const piAlone = () => ({ ...piAgent(cli), quiet: ["--no-skills", "--no-prompt-templates", "--no-themes"] });

/** pi with its discovery off and the one line loaded. */
const discovering = (w: ReturnType<typeof world>, dir: string) =>
  runPi(cli, w, { command: `rm -rf ${dir}`, args: ["--no-extensions"], extensions: [w.line], env: w.env });

/** `hookbox trust --yes <project>` as the user runs it: their HOME, pi on PATH. */
const trust = (w: PiWorld & { env: Record<string, string> }) => hookbox(["trust", "--yes", w.project], {
  env: { ...w.env, HOME: w.home, PI_CODING_AGENT_DIR: w.agentDir, PATH: `${join(installPiDir(), "node_modules", ".bin")}${delimiter}${process.env.PATH}` },
});

const systemPrompt = (run: ReturnType<typeof runPi>) => JSON.stringify(run.requests.find((r) => r.url.endsWith("/chat/completions"))?.body.messages?.[0] ?? "");

describe.skipIf(unavailable !== undefined)("isolateDiscovered inside pi 0.73.1", { timeout: 240_000 }, () => {
  beforeAll(() => { cli = installPi(); }, 300_000);

  it("control: pi alone loads the project's module in its own process and the canary leaves", () => {
    const w = world();
    const dir = victim(w);
    const run = runAgent(piAlone(), w, { command: `rm -rf ${dir}`, env: w.env });
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(w.exfil, "utf8")).toBe(CANARY);
    expect(run.toolResult).toContain('"wrote":"yes"');
    expect(systemPrompt(run)).toContain("MINE-LOADED main=true");
  });

  it("unapproved: the project's module does not run and every tool call is blocked naming npx hookbox trust; approved: it runs in the sandbox and reads no canary; one byte changed: blocked again; the user's extension runs once, off pi's thread, throughout", async () => {
    const w = world();
    const dir = victim(w);
    const evil = join(w.project, ".pi/extensions/evil.ts");

    const unapproved = discovering(w, dir);
    expect(unapproved.code, unapproved.stderr).toBe(0);
    expect(existsSync(w.exfil)).toBe(false);
    expect(unapproved.toolResult).toContain(`hookbox: blocked because Hook "${evil}" was not loaded`);
    expect(unapproved.toolResult).toContain(`run: npx hookbox trust ${w.project}`);
    expect(unapproved.toolResult).not.toContain("EVIL");
    expect(existsSync(join(dir, "keep.txt"))).toBe(true);
    expect(systemPrompt(unapproved).match(/MINE-LOADED main=false/g)).toHaveLength(1);
    expect(systemPrompt(unapproved)).not.toContain("main=true");

    const approved = await trust(w);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain(".pi/extensions/evil.ts  [not approved]\n    origin: pi (.pi/extensions)");
    expect(approved.stdout).toContain(`approved 1 module of ${w.project}`);

    const sandboxed = discovering(w, dir);
    expect(sandboxed.code, sandboxed.stderr).toBe(0);
    const report = JSON.parse(/EVIL (\{.*?\})/.exec(sandboxed.toolResult)![1]!) as Record<string, string>;
    expect(report.ssh).toMatch(/^refused \(/);
    expect(report.wrote).toMatch(/^refused \(/);
    expect(sandboxed.toolResult).not.toContain(CANARY);
    expect(existsSync(w.exfil)).toBe(false);
    expect(systemPrompt(sandboxed).match(/MINE-LOADED main=false/g)).toHaveLength(1);

    const lib = join(w.project, ".pi/extensions/canary/steal.ts");
    writeFileSync(lib, `${readFileSync(lib, "utf8")} `);
    const changed = discovering(w, dir);
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.toolResult).toContain(`${lib} differs`);
    expect(changed.toolResult).toContain(`run: npx hookbox trust ${w.project}`);
    expect(changed.toolResult).not.toContain("EVIL");
    expect(existsSync(w.exfil)).toBe(false);
    expect(systemPrompt(changed).match(/MINE-LOADED main=false/g)).toHaveLength(1);
  });

  it("with pi's own discovery on, the one line refuses (each module would run twice, once in pi's process) and blocks every tool call", () => {
    const w = world();
    const dir = victim(w);
    const run = runAgent(piAlone(), w, { command: `rm -rf ${dir}`, extensions: [w.line], env: w.env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("it was not started with --no-extensions");
    expect(run.toolResult).toContain("hookbox: blocked because isolated extension isolateDiscovered (load_failed) did not load (fail closed)");
  });
});
