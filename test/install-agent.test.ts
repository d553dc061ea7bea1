/**
 * scripts/install-agent.sh, the one installer of the pinned agents the tests run (and of Bun): one
 * install of a folder at a time, into a temporary folder renamed into place once checked, and a
 * digest of the whole tree that a later call checks, so an install cut short or a file lost deep in
 * the tree is installed again instead of breaking every later run. Real npm installs of a small real
 * package (zod, at the lockfile's version, from npm's cache) into a cache folder of the test's own.
 */
import { execFile, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const SCRIPT = fileURLToPath(new URL("../scripts/install-agent.sh", import.meta.url));
const VERSION: string = (await import("zod/package.json", { with: { type: "json" } })).default.version;
const cache = mkdtempSync(join(tmpdir(), "hookbox-agent-cache-"));
afterAll(() => rmSync(cache, { recursive: true, force: true }));

function install(): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(SCRIPT, ["zod", "zod", VERSION, "package.json"], { env: { ...process.env, HOOKBOX_AGENT_CACHE: cache } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: stdout.trim(), stderr }));
  });
}
const dir = join(cache, `zod-${VERSION}`);
const deep = join(dir, "node_modules", "zod", "v4", "core", "api.cjs");

describe("the agent installer", () => {
  it("installs two callers at once one after the other, both get the folder, and the tree is whole", async () => {
    const [a, b] = await Promise.all([install(), install()]);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(a.stdout).toBe(dir);
    expect(b.stdout).toBe(dir);
    expect(existsSync(deep)).toBe(true);
    // Nothing is left of the temporary folders.
    expect(readdirSync(cache).filter((name) => name.startsWith(".zod-"))).toEqual([]);
    // Control: the next call finds the tree intact and installs nothing.
    expect(await install()).toEqual({ code: 0, stdout: dir, stderr: "" });
  }, 120_000);

  it("waits while another install of the same folder holds its lock, and only then answers", async () => {
    const lock = join(cache, `.lock-zod-${VERSION}`);
    const released = join(cache, "released");
    // Another caller holds the lock for a second, then marks its release.
    const holder = spawn("flock", [lock, "sh", "-c", `sleep 1; touch ${released}`], { stdio: "ignore" });
    const holderDone = new Promise((r) => holder.on("close", r));
    while (spawnSync("flock", ["-n", lock, "true"]).status === 0) await new Promise((r) => setTimeout(r, 10));
    const waited = await install();
    expect(waited).toEqual({ code: 0, stdout: dir, stderr: "" });
    expect(existsSync(released)).toBe(true);
    await holderDone;
  }, 120_000);

  it("installs again a tree that lost a file deep inside, and says so", async () => {
    rmSync(deep);
    const repaired = await install();
    expect(repaired.code).toBe(0);
    expect(repaired.stderr).toContain("is incomplete or changed; installing it again");
    expect(existsSync(deep)).toBe(true);
    expect(await install()).toEqual({ code: 0, stdout: dir, stderr: "" });
  }, 120_000);

  it("replaces a partial tree that has the old marker and the checked file but not the rest", async () => {
    rmSync(dir, { recursive: true });
    mkdirSync(join(dir, "node_modules", "zod"), { recursive: true });
    writeFileSync(join(dir, "node_modules", "zod", "package.json"), JSON.stringify({ name: "zod", version: VERSION }));
    writeFileSync(join(dir, ".installed"), "");
    const repaired = await install();
    expect(repaired.code).toBe(0);
    expect(repaired.stderr).toContain("is incomplete or changed; installing it again");
    expect(existsSync(deep)).toBe(true);
  }, 120_000);
});
