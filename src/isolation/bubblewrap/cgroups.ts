/**
 * The memory and process bounds of a sandbox (a hook's, shared by its `pi.exec` programs): control
 * groups where the host may create them, else resource limits, and which of them holds here, so
 * the weaker fallback is reported (`LoadedHook.sandbox.bounds`, `HookRunner.stats()`), never silent.
 *
 * - cgroup v1 (tested here): a group in the `memory` hierarchy (`memory.limit_in_bytes`) and one
 *   in the `pids` hierarchy (`pids.max`), under `<hierarchy>/hookbox/`.
 * - cgroup v2 (a delegated subtree; this test machine has none, so its logic is tested on a fake
 *   cgroupfs tree, test/cgroups.test.ts): the host's own group from the `0::` line of
 *   /proc/self/cgroup must offer `memory` and `pids`; the host moves itself into a leaf
 *   (`hookbox-host`) so the group may enable them for its children (the "no internal processes"
 *   rule), then each sandbox gets a child with `memory.max`, `memory.swap.max` 0 and `pids.max`.
 * - neither: `RLIMIT_DATA` (writable memory) and `RLIMIT_AS` (address space) per process, and
 *   `RLIMIT_NPROC` (per user, not per sandbox; root is exempt), set by the launcher.
 */
import { randomBytes } from "node:crypto";
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Which mechanism bounds a sandbox's memory and its processes. */
export type BoundKind = "cgroup-v1" | "cgroup-v2" | "rlimit";
export interface Bounds { memory: BoundKind; processes: BoundKind }

/** Tasks (processes and threads) one sandbox may hold at once, its `pi.exec` programs included. */
export const SANDBOX_MAX_TASKS = 128;
/** Why: V8 reserves ~750 MiB of address space at start (measured), so RLIMIT_AS is the bound plus this. */
export const ADDRESS_SPACE_ALLOWANCE_MB = 1024;

/** The groups of one sandbox: the launcher writes its pid into each `procs` file. */
export interface SandboxGroups {
  procs: string[];
  /** Kernel OOM kills counted so far in the memory group. */
  oomKills(): number;
  /** Remove the groups once empty (retries while the last processes leave). */
  remove(): void;
}

/** Where the groups are made, found once. */
export interface CgroupHost {
  bounds: Bounds;
  /** Why a stronger mechanism is not used here (for the load report); empty when both are cgroups. */
  reasons: string[];
  create(memoryMb: number, maxTasks: number): SandboxGroups | undefined;
}

const V1_ROOT = "/sys/fs/cgroup";

/** v1: a writable `hookbox` folder in `hierarchy`, or why not. */
export function v1Root(hierarchy: string, root = V1_ROOT): string | { reason: string } {
  const dir = join(root, hierarchy, "hookbox");
  try {
    if (!existsSync(join(root, hierarchy, "cgroup.procs"))) return { reason: `no cgroup v1 ${hierarchy} hierarchy at ${join(root, hierarchy)}` };
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    return dir;
  } catch (err) {
    return { reason: `cannot create cgroup v1 groups in ${dir} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
}

/** The host's own cgroup v2 path from /proc/self/cgroup's text (the `0::` line), or undefined. */
export function ownCgroupV2(procSelfCgroup: string): string | undefined {
  const line = procSelfCgroup.split("\n").find((l) => l.startsWith("0::"));
  return line ? line.slice(3).trim() : undefined;
}

function words(file: string): string[] {
  try { return readFileSync(file, "utf8").trim().split(/\s+/).filter(Boolean); } catch { return []; }
}

/**
 * v2: the folder under which sandbox groups can be made with `memory` and `pids`, or why not.
 * `root` is the unified mount (`/sys/fs/cgroup`), `procSelfCgroup` the text of /proc/self/cgroup,
 * `pid` the host's. When the host's own group does not yet hand both controllers to its children,
 * the host moves itself into the leaf `hookbox-host` and enables them (`+memory +pids` into
 * `cgroup.subtree_control`): a group with processes of its own cannot.
 */
export function v2Parent(root: string, procSelfCgroup: string, pid: number): string | { reason: string } {
  if (!existsSync(join(root, "cgroup.controllers"))) return { reason: `no cgroup v2 hierarchy at ${root}` };
  const own = ownCgroupV2(procSelfCgroup);
  if (own === undefined) return { reason: "no cgroup v2 line (0::) in /proc/self/cgroup" };
  const dir = join(root, own);
  const offered = words(join(dir, "cgroup.controllers"));
  const missing = ["memory", "pids"].filter((c) => !offered.includes(c));
  if (missing.length) return { reason: `the host's cgroup ${dir} is not delegated the ${missing.join(" and ")} controller${missing.length > 1 ? "s" : ""} (cgroup.controllers: ${offered.join(" ") || "empty"})` };
  const enabled = words(join(dir, "cgroup.subtree_control"));
  if (enabled.includes("memory") && enabled.includes("pids")) return dir;
  try {
    accessSync(dir, constants.W_OK);
    const leaf = join(dir, "hookbox-host");
    mkdirSync(leaf, { recursive: true });
    writeFileSync(join(leaf, "cgroup.procs"), String(pid));
    writeFileSync(join(dir, "cgroup.subtree_control"), "+memory +pids");
    return dir;
  } catch (err) {
    return { reason: `cannot enable memory and pids for children of ${dir} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); delegate a subtree to the host (systemd: Delegate=yes)` };
  }
}

/** v2: one sandbox's group under `parent`, its bounds written. */
export function createV2Group(parent: string, memoryMb: number, maxTasks: number): string {
  const group = join(parent, `hookbox-${randomBytes(6).toString("hex")}`);
  mkdirSync(group);
  writeFileSync(join(group, "memory.max"), String(memoryMb * 1024 * 1024));
  // Why: with swap the group would swap instead of reaching its bound.
  try { writeFileSync(join(group, "memory.swap.max"), "0"); } catch { /* no swap accounting */ }
  writeFileSync(join(group, "pids.max"), String(maxTasks));
  return group;
}

/** v2: OOM kills from `memory.events`; v1: from `memory.oom_control`. */
export function oomKillsIn(file: string): number {
  try {
    const m = /oom_kill (\d+)/.exec(readFileSync(file, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Remove groups left by hosts that exited before their groups emptied (an hour old: never one being set up). */
function sweep(root: string, prefix = ""): void {
  let entries;
  try { entries = readdirSync(root, { withFileTypes: true }); } catch { return; }
  for (const entry of entries) {
    if (!entry.isDirectory() || !entry.name.startsWith(prefix) || entry.name === "hookbox-host") continue;
    const group = join(root, entry.name);
    try {
      if (Date.now() - statSync(group).mtimeMs > 3_600_000) rmdirSync(group);
    } catch { /* in use: its processes are alive */ }
  }
}

/** Remove an emptied group; its last processes may take a moment to leave. */
function removeLater(group: string, attempts = 5): void {
  try {
    rmdirSync(group);
  } catch {
    if (attempts > 0) setTimeout(() => removeLater(group, attempts - 1), 200).unref();
  }
}

/** Find where this host can bound its sandboxes: v2 on a unified mount, else v1, else resource limits. */
export function findCgroupHost(root = V1_ROOT, procSelfCgroup = readProcSelfCgroup(), pid = process.pid): CgroupHost {
  const reasons: string[] = [];
  if (existsSync(join(root, "cgroup.controllers"))) {
    const parent = v2Parent(root, procSelfCgroup, pid);
    if (typeof parent === "string") {
      return {
        bounds: { memory: "cgroup-v2", processes: "cgroup-v2" },
        reasons,
        create(memoryMb, maxTasks) {
          sweep(parent, "hookbox-");
          const group = createV2Group(parent, memoryMb, maxTasks);
          return { procs: [join(group, "cgroup.procs")], oomKills: () => oomKillsIn(join(group, "memory.events")), remove: () => removeLater(group) };
        },
      };
    }
    reasons.push(parent.reason);
  }
  const memory = v1Root("memory", root);
  const pids = v1Root("pids", root);
  if (typeof memory !== "string") reasons.push(memory.reason);
  if (typeof pids !== "string") reasons.push(pids.reason);
  const bounds: Bounds = { memory: typeof memory === "string" ? "cgroup-v1" : "rlimit", processes: typeof pids === "string" ? "cgroup-v1" : "rlimit" };
  return {
    bounds,
    reasons,
    create(memoryMb, maxTasks) {
      const made: string[] = [];
      let memGroup: string | undefined;
      if (typeof memory === "string") {
        sweep(memory);
        memGroup = join(memory, randomBytes(6).toString("hex"));
        mkdirSync(memGroup);
        made.push(memGroup);
        writeFileSync(join(memGroup, "memory.limit_in_bytes"), String(memoryMb * 1024 * 1024));
        // Why: with swap the group would swap instead of reaching its bound.
        try { writeFileSync(join(memGroup, "memory.swappiness"), "0"); } catch { /* not offered */ }
      }
      if (typeof pids === "string") {
        sweep(pids);
        const group = join(pids, randomBytes(6).toString("hex"));
        mkdirSync(group);
        made.push(group);
        writeFileSync(join(group, "pids.max"), String(maxTasks));
      }
      if (made.length === 0) return undefined;
      return {
        procs: made.map((g) => join(g, "cgroup.procs")),
        oomKills: () => (memGroup ? oomKillsIn(join(memGroup, "memory.oom_control")) : 0),
        remove: () => { for (const g of made) removeLater(g); },
      };
    },
  };
}

/** What the load report says when a bound is weaker than a cgroup here; undefined when both are cgroups. */
export function weakerBounds({ bounds, reasons }: Pick<CgroupHost, "bounds" | "reasons">): string | undefined {
  if (bounds.memory !== "rlimit" && bounds.processes !== "rlimit") return undefined;
  const memory = bounds.memory === "rlimit" ? "memory by RLIMIT_DATA and RLIMIT_AS per process (each tmpfs by its size only)" : `memory by ${bounds.memory}`;
  const processes = bounds.processes === "rlimit" ? "processes by RLIMIT_NPROC (per user, not per sandbox; root is exempt)" : `processes by ${bounds.processes}`;
  return `sandbox bounds are weaker here: ${memory}, ${processes} (${reasons.join("; ")})`;
}

function readProcSelfCgroup(): string {
  try { return readFileSync("/proc/self/cgroup", "utf8"); } catch { return ""; }
}
