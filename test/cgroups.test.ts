/**
 * The sandbox bounds of src/isolation/bubblewrap/cgroups.ts. cgroup v2 cannot be exercised on the test machine
 * (v1 only), so its logic runs here against a fake cgroupfs tree in a temporary folder: the files
 * the host must read and write, checked by their contents. The resource-limit fallback runs in a
 * real sandbox, its limits read from /proc/self/limits inside.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runtimeFiles, sandboxAvailability, sandboxLauncher } from "../src/isolation/bubblewrap/bwrap.js";
import { ADDRESS_SPACE_ALLOWANCE_MB, createV2Group, findCgroupHost, SANDBOX_MAX_TASKS } from "../src/isolation/bubblewrap/cgroups.js";
import { ownCgroupV2, v2Parent, weakerBounds } from "../src/isolation/bubblewrap/availability.js";

const roots: string[] = [];
afterAll(() => { for (const r of roots) rmSync(r, { recursive: true, force: true }); });

/** A fake cgroupfs: `files` maps relative paths to contents (folders made as needed). */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "hookbox-fake-cgroupfs-"));
  roots.push(root);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(root, rel, ".."), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}
const read = (root: string, rel: string) => readFileSync(join(root, rel), "utf8");
const SELF = "12:pids:/\n4:memory:/\n0::/user.slice/app.scope\n";
const PID = 4242;

describe("cgroup v2 (a delegated subtree), on a fake cgroupfs", () => {
  it("the host's own group comes from the 0:: line of /proc/self/cgroup", () => {
    expect(ownCgroupV2(SELF)).toBe("/user.slice/app.scope");
    expect(ownCgroupV2("0::/\n")).toBe("/");
    expect(ownCgroupV2("4:memory:/x\n")).toBeUndefined();
  });

  it("a group offered memory and pids: the host moves itself into a leaf, enables both for children, and each sandbox gets memory.max, memory.swap.max and pids.max", () => {
    const root = tree({
      "cgroup.controllers": "cpu io memory pids",
      "user.slice/app.scope/cgroup.controllers": "cpu memory pids",
      "user.slice/app.scope/cgroup.subtree_control": "",
      "user.slice/app.scope/cgroup.procs": String(PID),
    });
    const own = join(root, "user.slice/app.scope");
    expect(v2Parent(root, SELF, PID)).toBe(own);
    expect(read(root, "user.slice/app.scope/hookbox-host/cgroup.procs")).toBe(String(PID));
    expect(read(root, "user.slice/app.scope/cgroup.subtree_control")).toBe("+memory +pids");
    const group = createV2Group(own, 64, 128);
    expect(group.startsWith(join(own, "hookbox-"))).toBe(true);
    expect(readFileSync(join(group, "memory.max"), "utf8")).toBe(String(64 * 1024 * 1024));
    expect(readFileSync(join(group, "memory.swap.max"), "utf8")).toBe("0");
    expect(readFileSync(join(group, "pids.max"), "utf8")).toBe("128");
  });

  it("a group that already hands both to its children is used as is (the host is not moved)", () => {
    const root = tree({
      "cgroup.controllers": "memory pids",
      "user.slice/app.scope/cgroup.controllers": "memory pids",
      "user.slice/app.scope/cgroup.subtree_control": "memory pids",
    });
    expect(v2Parent(root, SELF, PID)).toBe(join(root, "user.slice/app.scope"));
    expect(existsSync(join(root, "user.slice/app.scope/hookbox-host"))).toBe(false);
  });

  it("a controller not delegated, no 0:: line, or no v2 mount: refused with the reason", () => {
    const root = tree({ "cgroup.controllers": "memory pids", "user.slice/app.scope/cgroup.controllers": "cpu memory" });
    expect(v2Parent(root, SELF, PID)).toEqual({ reason: `the host's cgroup ${join(root, "user.slice/app.scope")} is not delegated the pids controller (cgroup.controllers: cpu memory)` });
    expect(v2Parent(root, "4:memory:/\n", PID)).toEqual({ reason: "no cgroup v2 line (0::) in /proc/self/cgroup" });
    const none = tree({});
    expect(v2Parent(none, SELF, PID)).toEqual({ reason: `no cgroup v2 hierarchy at ${none}` });
  });

  it("findCgroupHost picks v2 on a unified mount: one group, its procs file for the launcher, OOM kills from memory.events", () => {
    const root = tree({
      "cgroup.controllers": "memory pids",
      "user.slice/app.scope/cgroup.controllers": "memory pids",
      "user.slice/app.scope/cgroup.subtree_control": "memory pids",
    });
    const host = findCgroupHost(root, SELF, PID);
    expect(host.bounds).toEqual({ memory: "cgroup-v2", processes: "cgroup-v2" });
    expect(weakerBounds(host)).toBeUndefined();
    const groups = host.create(96, 64)!;
    expect(groups.procs).toHaveLength(1);
    const group = join(groups.procs[0]!, "..");
    expect(readFileSync(join(group, "pids.max"), "utf8")).toBe("64");
    expect(groups.oomKills()).toBe(0);
    writeFileSync(join(group, "memory.events"), "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n");
    expect(groups.oomKills()).toBe(1);
  });
});

describe("cgroup v1 and the fallback, on a fake cgroupfs", () => {
  it("v1: a memory group with memory.limit_in_bytes and a pids group with pids.max, both joined by the launcher", () => {
    const root = tree({ "memory/cgroup.procs": "", "pids/cgroup.procs": "" });
    const host = findCgroupHost(root, "0::/\n", PID);
    expect(host.bounds).toEqual({ memory: "cgroup-v1", processes: "cgroup-v1" });
    const groups = host.create(64, 128)!;
    expect(groups.procs.map((p) => p.slice(root.length).split("/").slice(0, 3).join("/"))).toEqual(["/memory/hookbox", "/pids/hookbox"]);
    expect(readFileSync(join(groups.procs[0]!, "..", "memory.limit_in_bytes"), "utf8")).toBe(String(64 * 1024 * 1024));
    expect(readFileSync(join(groups.procs[1]!, "..", "pids.max"), "utf8")).toBe("128");
  });

  it("neither: resource limits, and the weaker bound is said, with why", () => {
    const root = tree({ "memory/cgroup.procs": "" });
    const host = findCgroupHost(root, "0::/\n", PID);
    expect(host.bounds).toEqual({ memory: "cgroup-v1", processes: "rlimit" });
    expect(weakerBounds(host)).toBe(`sandbox bounds are weaker here: memory by cgroup-v1, processes by RLIMIT_NPROC (per user, not per sandbox; root is exempt) (no cgroup v1 pids hierarchy at ${join(root, "pids")})`);
    const bare = findCgroupHost(tree({}), "0::/\n", PID);
    expect(bare.bounds).toEqual({ memory: "rlimit", processes: "rlimit" });
    expect(bare.create(64, 128)).toBeUndefined();
    expect(weakerBounds(bare)).toContain("memory by RLIMIT_DATA and RLIMIT_AS per process (each tmpfs by its size only)");
  });
});

const available = sandboxAvailability();
describe.skipIf(!available.ok)("the resource-limit fallback in a real sandbox", () => {
  it("the launcher sets RLIMIT_DATA to the bound, RLIMIT_AS to it plus V8's reservations, and RLIMIT_NPROC to the task bound", () => {
    const launcher = sandboxLauncher({ readOnly: runtimeFiles(process.execPath), env: {}, chdir: "/", memoryMb: 256 }, findCgroupHost(tree({}), "0::/\n", PID));
    const { command, args } = launcher.wrap([process.execPath, "-e", "process.stdout.write(require('fs').readFileSync('/proc/self/limits', 'utf8'))"]);
    const r = spawnSync(command, args, { encoding: "utf8", timeout: 20_000 });
    expect(r.status).toBe(0);
    const limit = (name: string) => new RegExp(`^${name}\\s+(\\S+)`, "m").exec(r.stdout)?.[1];
    expect(limit("Max data size")).toBe(String(256 * 1024 * 1024));
    expect(limit("Max address space")).toBe(String((256 + ADDRESS_SPACE_ALLOWANCE_MB) * 1024 * 1024));
    expect(limit("Max processes")).toBe(String(SANDBOX_MAX_TASKS));
  });
});
