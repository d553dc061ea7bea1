/**
 * `isolation: "sandbox"`: each hook's child process starts inside bubblewrap (`bwrap`). New user,
 * pid, ipc, uts, mount and network namespaces; all capabilities dropped; an unprivileged uid; a
 * filesystem of read-only binds of only what the hook needs; a private /tmp, /dev/shm and home (and every
 * other hook's network proxy hidden wherever a bind would show it); a clean
 * environment; stdin /dev/null; no descriptors but the channel's. Where it cannot be built, the
 * hook does not load (`load_failed`): never less isolation than asked for.
 *
 * Launch chain: host -> bash (host side: joins the sandbox's cgroups or sets its resource limits,
 * closes every inherited descriptor above 5, opens the seccomp filter, then execs) -> bwrap -> node.
 * Every sandbox, a hook's and each `pi.exec` program's, runs under the seccomp filter and within
 * the memory and process bounds ./availability.ts found here (./cgroups.ts makes its groups); a
 * program shares its hook's.
 * macOS would need a `sandbox-exec` profile; not built.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { isAbsolute, join, normalize } from "node:path";
import { below, inside, strictlyInside } from "../../gates/inside.js";
import { realOrLexical } from "../../policy/paths.js";
import { privateDir } from "../../gates/private-dir.js";
import { proxySocketRoot } from "../../net/proxy.js";
import { ADDRESS_SPACE_ALLOWANCE_MB, cgroupHost, SANDBOX_MAX_TASKS, type CgroupHost, type SandboxGroups } from "./cgroups.js";
import type { Launcher } from "../process-endpoint.js";
import { launcherEnv } from "../../../worker/child-env.mjs";
import { findOnPath } from "../../policy/runtime.js";
import { BASH, bwrapOptions, cgroupPlaces, sandboxAvailability, type Bounds } from "./availability.js";

// What the machine offers is found in ./availability.ts; it is asked through here by most callers.
export { runtimeFiles, sandboxAvailability, type Availability } from "./availability.js";

/** One bind into the sandbox. */
export interface Bind {
  src: string;
  /** Where it appears inside; default the same path. */
  dest?: string;
  writable?: boolean;
}

/** What one sandbox is made of (a hook's process, or one `pi.exec` program). */
export interface SandboxSpec {
  /** Host paths bound read-only at the same path (missing ones are skipped). */
  readOnly: string[];
  /** Symbolic links made inside before any bind (`at` -> `target`), where a bind would show a folder in place of a link (an approved module's pnpm packages). */
  links?: Array<{ target: string; at: string }>;
  /** More binds, e.g. the network proxy's unix socket (see the network allow-list). */
  extraBinds?: Bind[];
  /** The hook's cleaned environment; HOME and TMPDIR name the sandbox's own (sandboxHome). */
  env: Record<string, string | undefined>;
  /** Variables set after `env` (e.g. the proxy's address). */
  extraEnv?: Record<string, string>;
  /** Working directory inside; must be bound. */
  chdir: string;
  /** Memory bound of the whole sandbox in MiB (cgroup), or of each process in it (RLIMIT_DATA); also each tmpfs's size. */
  memoryMb: number;
  /**
   * A program (and its arguments) that starts bwrap after the prologue, given `bwrap` and its
   * arguments as its own: the write-recording layer of a granted hook (src/claude/granted.ts).
   */
  outer?: string[];
}

/** The uid and gid the hook runs as inside (the kernel's overflow id: owns nothing). */
const SANDBOX_ID = "65534";
/** The empty, private home inside when the host's HOME cannot name it (unset, relative, `/`, or under /proc or /dev). */
export const SANDBOX_HOME = "/home/hook";

/**
 * Where the sandbox's empty, private home is mounted: at the host's HOME path, so a path the hook
 * builds from `~` (`~/.profile` in a shell it runs, a granted file under HOME) names what it names
 * outside; what the policy binds under HOME is bound over it. Else SANDBOX_HOME.
 */
export function sandboxHome(env: Record<string, string | undefined>): string {
  const home = env.HOME;
  if (!home || !isAbsolute(home) || normalize(home) !== home || home.endsWith("/")) return SANDBOX_HOME;
  if (["/proc", "/dev"].some((root) => inside(root, home))) return SANDBOX_HOME;
  return home;
}

/** Why: no startup file of the host's user runs in the launcher (its environment holds no BASH_ENV or ENV: worker/child-env.mjs launcherEnv). */
const BASH_FLAGS = ["--noprofile", "--norc"];

/** The descriptor the launcher opens the seccomp filter on (the first one above the channel's). */
const SECCOMP_FD = "6";
let groupsHost: CgroupHost | undefined;

/** bwrap's arguments for `spec`, up to and excluding the command. */
export function bwrapArgs(spec: SandboxSpec): string[] {
  const home = sandboxHome(spec.env);
  const args = [
    "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net", "--unshare-cgroup-try",
    // Why --new-session: no TIOCSTI into the user's terminal. --die-with-parent: the host's death ends it.
    "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--uid", SANDBOX_ID, "--gid", SANDBOX_ID,
    "--clearenv",
    // Mounts first, binds after: a tmpfs mounted later would hide binds below it.
    // Why /dev/shm a tmpfs of its own: bwrap's /dev is a tmpfs of half the machine's memory, bounded by no size (it is made read-only below).
    "--proc", "/proc", "--dev", "/dev", ...tmpfs(spec, "/dev/shm"), ...tmpfs(spec, "/tmp"), ...tmpfs(spec, home),
    // Why both: the seccomp filter (./availability.ts) refuses new user namespaces; bwrap >= 0.8 also stops them by its own means.
    ...(bwrapOptions().disableUserns ? ["--disable-userns"] : []), "--seccomp", SECCOMP_FD,
  ];
  // Why before the binds: a bind made later over a link's folder shows the host's own link there.
  for (const l of spec.links ?? []) args.push("--symlink", l.target, l.at);
  const binds = shownBinds(spec);
  // Why realpath as the source: a symlinked path is bound as what it points to, at its own name.
  for (const b of binds) if (!b.extra) args.push("--ro-bind", b.real, b.dest);
  for (const b of spec.extraBinds ?? []) args.push(b.writable ? "--bind" : "--ro-bind", b.src, b.dest ?? b.src);
  args.push(...homeOverBinds(spec, binds, home));
  // Why last: a granted folder above them (e.g. /tmp, read or written) must not show other hooks' sockets, and a later bind would.
  for (const m of proxyMasks(binds)) args.push("--tmpfs", m);
  const env = { ...spec.env, HOME: home, TMPDIR: "/tmp", ...spec.extraEnv };
  for (const [k, v] of Object.entries(env)) if (v !== undefined) args.push("--setenv", k, v);
  // Why: the skeleton bwrap builds (folders above the binds) would be writable, though private; so would /dev, where no size holds a file.
  args.push("--remount-ro", "/dev", "--remount-ro", "/", "--chdir", spec.chdir);
  return args;
}

/** A bind as the sandbox shows it: at `dest`, what the host's real folder (or file) `real` holds; `extra`: one of `spec.extraBinds`. */
interface Shown { src: string; dest: string; real: string; writable: boolean; extra: boolean }

/** Every bind of `spec` whose source exists (the read-only ones once each), with the real path it shows. */
function shownBinds(spec: SandboxSpec): Shown[] {
  const binds = [...new Set(spec.readOnly)].map((p) => ({ src: p, dest: p, writable: false, extra: false }));
  for (const b of spec.extraBinds ?? []) binds.push({ src: b.src, dest: b.dest ?? b.src, writable: b.writable ?? false, extra: true });
  return binds.filter((b) => existsSync(b.src)).map((b) => ({ ...b, real: realpathSync(b.src) }));
}

/**
 * Every path inside the sandbox where host path `path` shows: below each bind whose real source
 * holds it, at that bind's name. Why by real paths: a granted link (`fsRead: ["/data/t"]`, a link
 * to the temporary folder) shows what its target holds under its own name.
 */
function showing(binds: readonly Shown[], path: string): string[] {
  const real = realOrLexical(path);
  const at = new Set<string>();
  for (const b of binds) {
    const rest = below(b.real, real);
    // Why without a trailing slash: each path once, compared as written (a bind named `/home/u/` shows HOME at `/home/u`).
    if (rest !== undefined) at.add(join(b.dest, rest).replace(/(.)\/+$/, "$1"));
  }
  return [...at];
}

/**
 * The home again, above a bind that holds it (HOME inside the project: the project's bind would
 * show the real home, `~/.ssh` included), and what is bound under it bound again above that; an
 * empty folder, too, wherever a bind shows the home under another name (a granted link to a
 * folder above it). A project under HOME needs nothing: its bind comes after the home and sits
 * where it is.
 */
function homeOverBinds(spec: SandboxSpec, binds: readonly Shown[], home: string): string[] {
  if (!existsSync(home)) return [];
  const covers = new Set(showing(binds, home));
  if (binds.some((b) => inside(b.dest, home))) covers.add(home);
  if (covers.size === 0) return [];
  const args: string[] = [];
  for (const at of [...covers].sort()) args.push(...tmpfs(spec, at));
  if (covers.has(home)) for (const b of binds) if (strictlyInside(home, b.dest)) args.push(b.writable ? "--bind" : "--ro-bind", b.real, b.dest);
  return args;
}

/** A private tmpfs at `dest`, its size bounded by the sandbox's memory where bwrap can say so (its pages count in the cgroup too). */
function tmpfs(spec: SandboxSpec, dest: string): string[] {
  return [...(bwrapOptions().size ? ["--size", String(spec.memoryMb * 1024 * 1024)] : []), "--tmpfs", dest];
}

/**
 * Where the network proxies' one folder (src/net/proxy.ts) shows inside, under any bind's name (a
 * mask below no bind is not needed, and bwrap could not mount it). Made first when missing: a proxy
 * started after this sandbox (another hook loaded or restarted later) then appears under the mask;
 * a mask of the folders that exist now would leave it in reach.
 */
function proxyMasks(binds: readonly Shown[]): string[] {
  const root = proxySocketRoot();
  const at = showing(binds, root);
  if (at.length === 0) return [];
  // Not ours (another user's), it is masked all the same; where it cannot be made, no proxy of this user's is either.
  privateDir(root);
  return existsSync(root) ? at : [];
}

/**
 * The host-side prologue: join the sandbox's cgroups (`$1`, `$2`, each may be empty), or set its
 * resource limits (`$3` RLIMIT_DATA KiB, `$4` RLIMIT_AS KiB, `$5` RLIMIT_NPROC, each may be empty),
 * make itself the OOM killer's first choice (`$6`, for `pi.exec` programs), close every descriptor
 * above 5 that the host inherited without close-on-exec, open the seccomp filter (`$7`) on fd 6
 * for `bwrap --seccomp 6` (which reads and closes it), then exec bwrap.
 */
const PROLOGUE = [
  // Why exit on failure: a sandbox without its bounds or its filter must not start.
  'for g in "$1" "$2"; do if [ -n "$g" ]; then echo $$ > "$g" || exit 97; fi; done',
  'if [ -n "$3" ]; then ulimit -d "$3" || exit 97; fi',
  'if [ -n "$4" ]; then ulimit -v "$4" || exit 97; fi',
  'if [ -n "$5" ]; then ulimit -u "$5" || exit 97; fi',
  'if [ -n "$6" ]; then echo "$6" > /proc/self/oom_score_adj || exit 97; fi',
  'filter=$7',
  "shift 7",
  'for p in /proc/$$/fd/*; do n=${p##*/}; if [ "$n" -gt 5 ]; then eval "exec $n>&-" 2>/dev/null; fi; done',
  `exec ${SECCOMP_FD}<"$filter" || exit 96`,
  'exec "$@"',
].join("\n");

/** The bash command line that starts `argv` in a sandbox of `spec` bounded by `groups` (or by resource limits where `bounds` says). */
function launch(spec: SandboxSpec, bounds: Bounds, groups: SandboxGroups | undefined, argv: string[], oomScoreAdj = ""): { command: string; args: string[]; env: Record<string, string> } {
  const avail = sandboxAvailability();
  if (!avail.ok) throw new Error(avail.reason);
  const procs = groups?.procs ?? [];
  const rlimitMemory = bounds.memory === "rlimit";
  const rlimitTasks = bounds.processes === "rlimit";
  return {
    command: BASH,
    args: [...BASH_FLAGS, "-c", PROLOGUE, "hookbox-sandbox", procs[0] ?? "", procs[1] ?? "",
      rlimitMemory ? String(spec.memoryMb * 1024) : "", rlimitMemory ? String((spec.memoryMb + ADDRESS_SPACE_ALLOWANCE_MB) * 1024) : "",
      rlimitTasks ? String(SANDBOX_MAX_TASKS) : "", oomScoreAdj, avail.seccomp,
      ...(spec.outer ?? []), "bwrap", ...bwrapArgs(spec), "--", ...argv],
    env: launcherEnv(),
  };
}

/** A sandbox's Launcher, and how to start a `pi.exec` program under the same bounds. */
export interface SandboxLauncher extends Launcher {
  /** The command line that runs `command` (resolved on the host) in a sandbox of `spec`, in this sandbox's cgroups. */
  exec(spec: SandboxSpec, command: string, args: string[]): { command: string; args: string[]; env: Record<string, string> };
  /** Call after a `pi.exec` program ended: an OOM kill it caused is not the hook's death. */
  execEnded(): void;
  /**
   * Once the sandbox was killed: resolves true when no process of it is left (its cgroup empty),
   * false after `timeoutMs`, or at once where it has no cgroup to read.
   */
  emptied(timeoutMs?: number): Promise<boolean>;
  /** Every process left in the sandbox's cgroup killed (its `pi.exec` programs outlive the hook), until none is; as `emptied`. */
  killAll(timeoutMs?: number): Promise<boolean>;
}

/** A Launcher that runs a hook's child process inside the sandbox of `spec`; `host` (tests) replaces the cgroups found here. */
export function sandboxLauncher(spec: SandboxSpec, host?: CgroupHost): SandboxLauncher {
  const avail = sandboxAvailability();
  if (!avail.ok) throw new Error(avail.reason);
  const made = host ?? (groupsHost ??= cgroupHost(cgroupPlaces()!));
  const groups = made.create(spec.memoryMb, SANDBOX_MAX_TASKS);
  const { bounds } = made;
  /** OOM kills of the programs' doing, so only a rise after them is the hook's. */
  let seen = 0;
  return {
    kind: "sandbox",
    wrap: (argv) => launch(spec, bounds, groups, argv),
    // Why oom_score_adj 1000: when the shared bound is reached, the kernel ends the program, not the hook.
    exec: (execSpec, command, args) => launch(execSpec, bounds, groups, [command, ...args], "1000"),
    execEnded() { seen = groups?.oomKills() ?? 0; },
    emptied: (timeoutMs) => untilEmpty(groups, false, timeoutMs),
    killAll: (timeoutMs) => untilEmpty(groups, true, timeoutMs),
    afterDeath() {
      if (!groups) return {};
      const outOfMemory = groups.oomKills() > seen;
      groups.remove();
      return { outOfMemory };
    },
  };
}

/** Whether `groups` emptied within `timeoutMs` (polled every 10 ms; `kill`: each process listed SIGKILLed at each poll); false without groups. */
async function untilEmpty(groups: SandboxGroups | undefined, kill: boolean, timeoutMs = 2_000): Promise<boolean> {
  const procs = groups?.procs[0];
  if (!procs) return false;
  for (const end = Date.now() + timeoutMs; Date.now() < end; await new Promise((r) => setTimeout(r, 10))) {
    let pids: string[];
    try { pids = readFileSync(procs, "utf8").split("\n").filter(Boolean); } catch { return true; /* the group is gone: so are its processes */ }
    if (pids.length === 0) return true;
    // Why by pid: one that left the group since the read could name another process only once the pid space wrapped.
    if (kill) for (const pid of pids) try { process.kill(Number(pid), "SIGKILL"); } catch { /* gone */ }
  }
  return false;
}

/**
 * The program a `pi.exec` runs: a name is resolved on the host's PATH, never a path inside the
 * hook's reach that the hook chose.
 */
export function execProgram(command: string): string {
  return command.includes("/") ? command : findOnPath(command) ?? command;
}
