/**
 * src/opencode/unit.ts with real processes: each hostile opencode plugin run by hookbox's runner
 * (src/opencode/child.mjs on Bun: the opencode 1.18.33 binary with BUN_BE_BUN=1), as the user and
 * in the sandbox, and the exact code each fault gets; what each mode lets a plugin read.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { HookFailure } from "../src/contract/errors.js";
import { OpencodeUnit, PLUGIN_SANDBOX_MEMORY_MB } from "../src/opencode/unit.js";
import { sandboxAvailability, sandboxLauncher } from "../src/isolation/bubblewrap/bwrap.js";
import { findCgroupHost } from "../src/isolation/bubblewrap/cgroups.js";
import { SANDBOX_PATH, SYSTEM_READS } from "../src/isolation/bubblewrap/system-reads.js";
import { SANDBOX_MEMORY_MB } from "../src/agents/sandbox.js";
import { installOpencode } from "./support/opencode-run.js";
import { tempDir } from "./helpers/files.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CHILD = join(ROOT, "src", "opencode", "child.mjs");
const H = join(ROOT, "fixtures", "hostile", "opencode");
const sandbox = sandboxAvailability();
const units: OpencodeUnit[] = [];
afterAll(() => { for (const u of units) u.kill(); });

const modes = [{ mode: "as the user", sandboxed: false }, ...(sandbox.ok ? [{ mode: "in the sandbox", sandboxed: true }] : [])];
const INPUT = { project: {}, directory: "/p", worktree: "/p", serverUrl: "http://localhost:4096" };

async function failure(p: Promise<unknown>): Promise<HookFailure> {
  try { await p; } catch (e) { return e as HookFailure; }
  throw new Error("it settled");
}

describe("opencode plugin processes", { timeout: 60_000 }, () => {
  const bun = installOpencode();
  const project = tempDir("hookbox-opencode-unit-");
  mkdirSync(join(project, "victim"));
  const start = (fixture: string, sandboxed: boolean) => {
    const unit = new OpencodeUnit({ path: fixture, name: fixture.split("/").pop()!, sandboxed, bun, child: CHILD, project, reads: [H], log: () => {} });
    units.push(unit);
    return unit;
  };
  const call = (unit: OpencodeUnit, ms = 2000) => unit.request("call", "tool.execute.before", { input: { tool: "bash", sessionID: "s", callID: "c" }, output: { args: { command: "rm -rf ./victim" } } }, ms);

  for (const { mode, sandboxed } of modes) {
    it(`a plugin whose tool.execute.before never settles gets timeout at its deadline, ${mode}`, async () => {
      const unit = start(join(H, "hangs-in-tool-execute.ts"), sandboxed);
      expect(await unit.request("load", "load", { path: join(H, "hangs-in-tool-execute.ts"), input: INPUT }, 20_000)).toEqual({ hooks: ["tool.execute.before"] });
      expect((await failure(call(unit, 500))).code).toBe("timeout");
    });

    it(`a plugin that calls process.exit in its hook crashes its own process only (crashed), and every later call fails the same, ${mode}`, async () => {
      const unit = start(join(H, "exits-in-tool-execute.ts"), sandboxed);
      await unit.request("load", "load", { path: join(H, "exits-in-tool-execute.ts"), input: INPUT }, 20_000);
      const first = await failure(call(unit));
      expect(first.code).toBe("crashed");
      expect(first.message).toContain("exit code 7");
      expect((await failure(call(unit))).code).toBe("crashed");
    });

    it(`a plugin that throws from a timer after loading crashes its own process (crashed), ${mode}`, async () => {
      const unit = start(join(H, "throws-from-a-timer.ts"), sandboxed);
      await unit.request("load", "load", { path: join(H, "throws-from-a-timer.ts"), input: INPUT }, 20_000);
      await new Promise((r) => setTimeout(r, 500));
      expect((await failure(call(unit))).code).toBe("crashed");
    });

    it(`a plugin's rewrite of output.args comes back as data for the host to judge, ${mode}`, async () => {
      const unit = start(join(H, "rewrites-bash-command.ts"), sandboxed);
      await unit.request("load", "load", { path: join(H, "rewrites-bash-command.ts"), input: INPUT }, 20_000);
      expect(await call(unit)).toEqual({ args: { command: "echo REWRITTEN-BY-PLUGIN > rewritten.txt" } });
    });
  }

  it("as the user a plugin reads your files but gets no secret-looking variable; in the sandbox it reads neither", async () => {
    const home = tempDir("hookbox-opencode-unit-home-");
    mkdirSync(join(home, ".ssh"));
    writeFileSync(join(home, ".ssh", "id_ed25519"), "UNIT-SSH-KEY");
    const saved = { HOME: process.env.HOME, SECRET_TOKEN: process.env.SECRET_TOKEN };
    process.env.HOME = home;
    process.env.SECRET_TOKEN = "UNIT-SECRET";
    try {
      const fixture = join(H, "reads-user-secrets.ts");
      const read = async (sandboxed: boolean) => {
        const unit = start(fixture, sandboxed);
        await unit.request("load", "load", { path: fixture, input: INPUT }, 20_000);
        return (await failure(call(unit))).message;
      };
      expect(await read(false)).toMatch(/^the plugin read: ssh=UNIT-SSH-KEY auth= secret=$/);
      if (sandbox.ok) expect(await read(true)).toBe("the plugin read: ssh= auth= secret=");
    } finally {
      for (const [k, v] of Object.entries(saved)) { if (v === undefined) delete process.env[k]; else process.env[k] = v; }
    }
  });

  it.skipIf(!sandbox.ok)("a plugin's sandbox is bounded so that Bun starts where the bound is RLIMIT_DATA (no cgroup): under a command hook's bound (512 MiB) the opencode binary dies at start (control), under the plugin's it runs", () => {
    const noCgroups = findCgroupHost(tempDir("hookbox-opencode-unit-no-cgroups-"), "0::/\n", process.pid);
    expect(noCgroups.bounds.memory).toBe("rlimit");
    const start = (memoryMb: number) => {
      const launcher = sandboxLauncher({ readOnly: [...SYSTEM_READS, dirname(realpathSync(bun))], env: { PATH: SANDBOX_PATH, LANG: "C.UTF-8", BUN_BE_BUN: "1" }, chdir: "/", memoryMb }, noCgroups);
      const line = launcher.wrap([realpathSync(bun), "-e", "console.log('bun ran')"]);
      return spawnSync(line.command, line.args, { env: line.env, encoding: "utf8", timeout: 20_000 });
    };
    const under = start(SANDBOX_MEMORY_MB);
    expect(under.stdout).not.toContain("bun ran");
    expect(under.status === 0 && under.signal === null).toBe(false);
    const plugin = start(PLUGIN_SANDBOX_MEMORY_MB);
    expect(plugin.stdout.trim(), plugin.stderr).toBe("bun ran");
  });
});
