/**
 * What this machine offers a sandbox, found once by starting a real, empty one: whether bubblewrap
 * can build one (and if not, what to install or enable), the seccomp filter's file, which of
 * bwrap's later options it has, the shared libraries a runtime needs, and where memory and
 * processes can be bounded. Apart from ./bwrap.ts, which builds each sandbox, so that a sandbox
 * module's `bounds` are right from their first read (src/isolation/supervisor.ts) while process and
 * sandbox modes' modules load only when the first such module starts (../child-modes.ts): this
 * file is loaded with the supervisor and runs nothing until asked.
 *
 * The seccomp filter every sandbox starts under (a hook's and each `pi.exec` program's) is a BPF
 * program per architecture, compiled by scripts/seccomp_filter.py with libseccomp and checked in
 * (./seccomp/<arch>.bpf; test/seccomp.test.ts regenerates and compares it). No blob for this
 * machine's architecture: the sandbox cannot be built (`load_failed`), never one without its filter.
 *
 * Memory and processes are bounded by control groups where the host may create them, else by
 * resource limits, and which holds here is reported (`LoadedHook.sandbox.bounds`,
 * `HookRunner.stats()`), never silent (./cgroups.ts makes each sandbox's groups):
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
import { execFileSync } from "node:child_process";
import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { launcherEnv } from "../../../worker/child-env.mjs";
import { findOnPath } from "../../policy/runtime.js";

/** Which mechanism bounds a sandbox's memory and its processes. */
export type BoundKind = "cgroup-v1" | "cgroup-v2" | "rlimit";
export interface Bounds { memory: BoundKind; processes: BoundKind }

/** Where this host can make its sandboxes' groups, found once. */
export interface CgroupPlaces {
  bounds: Bounds;
  /** Why a stronger mechanism is not used here (for the load report); empty when both are cgroups. */
  reasons: string[];
  /** v2: the folder under which each sandbox gets its group. */
  v2?: string;
  /** v1: the `hookbox` folder of each hierarchy that can be used. */
  v1: { memory?: string; pids?: string };
}

/**
 * `bounds`: which mechanism bounds memory and processes here; `weaker` says why a cgroup is not
 * used, for the load report. `memory` is the older summary of `bounds.memory`.
 */
export type Availability =
  | { ok: true; memory: "cgroup" | "rlimit"; bounds: Bounds; weaker?: string; seccomp: string }
  | { ok: false; reason: string };

/** The launcher's shell, which every sandbox starts through. */
export const BASH = "/bin/bash";
const V1_ROOT = "/sys/fs/cgroup";

let availability: Availability | undefined;
let places: CgroupPlaces | undefined;
/** bwrap options that appeared in 0.8 (`--disable-userns`) or later than the oldest supported one (`--size`). */
let bwrapHas = { disableUserns: false, size: false };

/**
 * Whether a sandbox can be built here, and if not, what to install or enable. Checked once, by
 * starting a real (empty) sandbox. Tests use it to skip where the sandbox cannot exist.
 */
export function sandboxAvailability(): Availability {
  availability ??= probe();
  return availability;
}

/** bwrap's later options this machine's bwrap has (after `sandboxAvailability`). */
export const bwrapOptions = (): Readonly<typeof bwrapHas> => bwrapHas;

/** Where the groups are made (after a `sandboxAvailability` that answered ok). */
export const cgroupPlaces = (): CgroupPlaces | undefined => places;

function probe(): Availability {
  if (process.platform !== "linux") {
    return { ok: false, reason: `isolation "sandbox" needs Linux with bubblewrap (this is ${process.platform}; on macOS a sandbox-exec profile would be needed, which hookbox does not ship)` };
  }
  const bwrap = findOnPath("bwrap");
  if (!bwrap) return { ok: false, reason: `isolation "sandbox" needs bubblewrap: install it (e.g. "apt-get install bubblewrap")` };
  if (!existsSync(BASH)) return { ok: false, reason: `isolation "sandbox" needs ${BASH} on the host to start the sandbox` };
  const filter = seccompFilter();
  if ("reason" in filter) return { ok: false, reason: filter.reason };
  try {
    const help = execFileSync(bwrap, ["--help"], { encoding: "utf8", stdio: "pipe", timeout: 10_000, env: launcherEnv() });
    bwrapHas = { disableUserns: help.includes("--disable-userns"), size: /--size\b/.test(help) };
  } catch { /* an old bwrap: neither option */ }
  const fd = openSync(filter.path, "r");
  try {
    // Why with the filter: a kernel or bwrap that cannot apply it fails here, not at a hook's load.
    execFileSync(bwrap, ["--unshare-user", "--unshare-pid", "--unshare-net", ...(bwrapHas.disableUserns ? ["--disable-userns"] : []), "--ro-bind", "/", "/", "--seccomp", "3", "true"], { stdio: ["ignore", "pipe", "pipe", fd], timeout: 10_000, env: launcherEnv() });
  } catch (err) {
    const said = String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim();
    return { ok: false, reason: `bubblewrap cannot create namespaces here (${said}): enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or user.max_user_namespaces > 0)` };
  } finally {
    closeSync(fd);
  }
  try {
    runtimeFiles(BASH);
  } catch (err) {
    return { ok: false, reason: `isolation "sandbox" needs ldd to list the hook runtime's shared libraries (${(err as Error).message})` };
  }
  places = findCgroupPlaces();
  const { bounds } = places;
  const weaker = weakerBounds(places);
  return { ok: true, memory: bounds.memory === "rlimit" ? "rlimit" : "cgroup", bounds, ...(weaker ? { weaker } : {}), seccomp: filter.path };
}

/** Node's `process.arch` to the kernel's name, which names the filter's blob. */
const ARCH: Record<string, string> = { x64: "x86_64", arm64: "aarch64" };

/** The seccomp filter's file for `arch` (a `process.arch` value), or why there is none. */
export function seccompFilter(arch: string = process.arch): { path: string } | { reason: string } {
  const name = ARCH[arch];
  if (!name) return { reason: `isolation "sandbox" has no seccomp filter for the ${arch} architecture (x64 and arm64 only); a sandbox is never started without one` };
  const path = fileURLToPath(new URL(`./seccomp/${name}.bpf`, import.meta.url));
  if (!existsSync(path)) return { reason: `the seccomp filter ${path} is missing (regenerate it with scripts/seccomp_filter.py); a sandbox is never started without one` };
  return { path };
}

const runtimeFileLists = new Map<string, string[]>();
/** A runtime's binary (the hook's node: src/policy/runtime.ts) and the shared libraries it loads (ldd), which every sandbox needs. */
export function runtimeFiles(program: string): string[] {
  let files = runtimeFileLists.get(program);
  if (files) return files;
  const out = execFileSync("ldd", [program], { encoding: "utf8", env: launcherEnv() });
  files = [program, ...[...out.matchAll(/(\/\S+)/g)].map((m) => m[1]!)];
  runtimeFileLists.set(program, files);
  return files;
}

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

/** Find where this host can bound its sandboxes: v2 on a unified mount, else v1, else resource limits. */
export function findCgroupPlaces(root = V1_ROOT, procSelfCgroup = readProcSelfCgroup(), pid = process.pid): CgroupPlaces {
  const reasons: string[] = [];
  if (existsSync(join(root, "cgroup.controllers"))) {
    const parent = v2Parent(root, procSelfCgroup, pid);
    if (typeof parent === "string") return { bounds: { memory: "cgroup-v2", processes: "cgroup-v2" }, reasons, v2: parent, v1: {} };
    reasons.push(parent.reason);
  }
  const memory = v1Root("memory", root);
  const pids = v1Root("pids", root);
  if (typeof memory !== "string") reasons.push(memory.reason);
  if (typeof pids !== "string") reasons.push(pids.reason);
  return {
    bounds: { memory: typeof memory === "string" ? "cgroup-v1" : "rlimit", processes: typeof pids === "string" ? "cgroup-v1" : "rlimit" },
    reasons,
    v1: { ...(typeof memory === "string" ? { memory } : {}), ...(typeof pids === "string" ? { pids } : {}) },
  };
}

/** What the load report says when a bound is weaker than a cgroup here; undefined when both are cgroups. */
export function weakerBounds({ bounds, reasons }: Pick<CgroupPlaces, "bounds" | "reasons">): string | undefined {
  if (bounds.memory !== "rlimit" && bounds.processes !== "rlimit") return undefined;
  const memory = bounds.memory === "rlimit" ? "memory by RLIMIT_DATA and RLIMIT_AS per process (each tmpfs by its size only)" : `memory by ${bounds.memory}`;
  const processes = bounds.processes === "rlimit" ? "processes by RLIMIT_NPROC (per user, not per sandbox; root is exempt)" : `processes by ${bounds.processes}`;
  return `sandbox bounds are weaker here: ${memory}, ${processes} (${reasons.join("; ")})`;
}

function readProcSelfCgroup(): string {
  try { return readFileSync("/proc/self/cgroup", "utf8"); } catch { return ""; }
}
