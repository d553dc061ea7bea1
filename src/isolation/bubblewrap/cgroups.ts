/**
 * Each sandbox's memory and process groups (a hook's, shared by its `pi.exec` programs), made where
 * ./availability.ts found this host can make them (cgroup v2 under a delegated folder, cgroup v1
 * under `<hierarchy>/hookbox/`); none where it found only resource limits, which the launcher sets.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findCgroupPlaces, type CgroupPlaces } from "./availability.js";

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

/** Where the groups are made, found once, and how one sandbox's are made. */
export interface CgroupHost extends Pick<CgroupPlaces, "bounds" | "reasons"> {
  create(memoryMb: number, maxTasks: number): SandboxGroups | undefined;
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

/** Find where this host can bound its sandboxes (`findCgroupPlaces`), with how each sandbox's groups are made there. */
export function findCgroupHost(...args: Parameters<typeof findCgroupPlaces>): CgroupHost {
  return cgroupHost(findCgroupPlaces(...args));
}

/** How each sandbox's groups are made at `places`. */
export function cgroupHost(places: CgroupPlaces): CgroupHost {
  const { bounds, reasons, v2, v1: { memory, pids } } = places;
  if (v2 !== undefined) {
    return {
      bounds,
      reasons,
      create(memoryMb, maxTasks) {
        sweep(v2, "hookbox-");
        const group = createV2Group(v2, memoryMb, maxTasks);
        return { procs: [join(group, "cgroup.procs")], oomKills: () => oomKillsIn(join(group, "memory.events")), remove: () => removeLater(group) };
      },
    };
  }
  return {
    bounds,
    reasons,
    create(memoryMb, maxTasks) {
      const made: string[] = [];
      let memGroup: string | undefined;
      if (memory !== undefined) {
        sweep(memory);
        memGroup = join(memory, randomBytes(6).toString("hex"));
        mkdirSync(memGroup);
        made.push(memGroup);
        writeFileSync(join(memGroup, "memory.limit_in_bytes"), String(memoryMb * 1024 * 1024));
        // Why: with swap the group would swap instead of reaching its bound.
        try { writeFileSync(join(memGroup, "memory.swappiness"), "0"); } catch { /* not offered */ }
      }
      if (pids !== undefined) {
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
