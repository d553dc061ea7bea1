/**
 * The discovering form inside the real oh-my-pi 18.2.3 (on Bun, in a network namespace with only
 * loopback, against the fake model): a project whose `.omp/extensions/` carries the hostile module
 * (fixtures/hostile/steals-a-canary-at-load.ts) and a user whose own global extension marks the
 * system prompt. Control: omp alone loads the project's module and the canary leaves. With
 * `omp --no-extensions -e <one line>`: unapproved, blocked naming `npx hookbox trust`; trusted, it
 * runs in the sandbox and reads no canary; one byte changed, blocked again. The user's extension
 * runs once, in its own process, throughout.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { hookbox } from "./cli-run.js";
import { agentUnavailable, discoveredWorld, installBun, installOmp, installPiDir, ompAgent, runAgent, victim, type Agent } from "./support/pi-agent.js";

const sandbox = sandboxAvailability();
const unavailable = agentUnavailable("oh-my-pi") ?? (sandbox.ok ? undefined : `the sandbox is unavailable: ${sandbox.reason}`);
if (unavailable) console.log(`test/e2e-discovered-omp.test.ts skipped: ${unavailable}`);

const CANARY = "SSH-CANARY-77ab";
let omp: Agent;

const world = () => discoveredWorld(".omp", CANARY, omp);

const systemPrompt = (run: ReturnType<typeof runAgent>) => JSON.stringify(run.requests.find((r) => r.url.endsWith("/chat/completions"))?.body.messages?.[0] ?? "");

describe.skipIf(unavailable !== undefined)("isolateDiscovered inside oh-my-pi 18.2.3 (Bun)", { timeout: 300_000 }, () => {
  beforeAll(() => { omp = ompAgent(installOmp(), installBun()); }, 600_000);

  it("control: omp alone loads the project's module in its own process and the canary leaves", () => {
    const w = world();
    const dir = victim(w);
    const alone = { ...omp, quiet: omp.quiet.filter((f) => f !== "--no-extensions") };
    const run = runAgent(alone, w, { command: `rm -rf ${dir}`, env: w.env });
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(w.exfil, "utf8")).toBe(CANARY);
    expect(systemPrompt(run)).toContain("MINE-LOADED main=true argv1=cli.js");
  });

  it("unapproved: blocked naming npx hookbox trust; trusted: runs in the sandbox and reads no canary; one byte changed: blocked again; the user's extension runs once throughout", async () => {
    const w = world();
    const dir = victim(w);
    // The test support's omp runs with --no-extensions, as the discovering form needs.
    const discovering = () => runAgent(omp, w, { command: `rm -rf ${dir}`, extensions: [w.line], env: w.env });

    const unapproved = discovering();
    expect(unapproved.code, unapproved.stderr).toBe(0);
    expect(unapproved.toolResult).toContain(`run: npx hookbox trust ${w.project}`);
    expect(unapproved.toolResult).not.toContain("EVIL");
    expect(existsSync(w.exfil)).toBe(false);
    // Once, and in a process of its own (not omp's: its script is not omp's cli.js).
    expect(systemPrompt(unapproved).match(/MINE-LOADED main=true argv1=/g)).toHaveLength(1);
    expect(systemPrompt(unapproved)).not.toContain("argv1=cli.js");

    const trusted = await hookbox(["trust", "--yes", w.project], {
      env: { ...w.env, HOME: w.home, PATH: `${join(installPiDir(), "node_modules", ".bin")}${delimiter}${process.env.PATH}` },
    });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain(".omp/extensions/evil.ts  [not approved]\n    origin: oh-my-pi (.omp/extensions)");

    const sandboxed = discovering();
    expect(sandboxed.code, sandboxed.stderr).toBe(0);
    const report = JSON.parse(/EVIL (\{.*?\})/.exec(sandboxed.toolResult)![1]!) as Record<string, string>;
    expect(report.ssh).toMatch(/^refused \(/);
    expect(report.wrote).toMatch(/^refused \(/);
    expect(sandboxed.toolResult).not.toContain(CANARY);
    expect(existsSync(w.exfil)).toBe(false);
    expect(systemPrompt(sandboxed).match(/MINE-LOADED/g)).toHaveLength(1);

    const lib = join(w.project, ".omp/extensions/canary/steal.ts");
    writeFileSync(lib, `${readFileSync(lib, "utf8")} `);
    const changed = discovering();
    expect(changed.toolResult).toContain(`${lib} differs`);
    expect(changed.toolResult).not.toContain("EVIL");
    expect(existsSync(w.exfil)).toBe(false);
    expect(systemPrompt(changed).match(/MINE-LOADED/g)).toHaveLength(1);
  });
});
