/**
 * `isolation: "sandbox"`: each hook's child process starts inside bubblewrap (`bwrap`). New user,
 * pid, ipc, uts, mount and network namespaces; all capabilities dropped; an unprivileged uid; a
 * filesystem of read-only binds of only what the hook needs; a private /tmp and home; a clean
 * environment; stdin /dev/null; no descriptors but the channel's. Where it cannot be built, the
 * hook does not load (`load_failed`): never less isolation than asked for.
 *
 * Launch chain: host -> bash (host side: joins the memory cgroup or sets RLIMIT_DATA, closes every
 * inherited descriptor above 5, then execs) -> bwrap -> node. macOS would need a `sandbox-exec`
 * profile; not built.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Launcher } from "./process-endpoint.js";
import { hostEnvValue, launcherEnv } from "../../worker/child-env.mjs";

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
  /** More binds, e.g. the network proxy's unix socket (see the network allow-list). */
  extraBinds?: Bind[];
  /** The hook's cleaned environment; HOME and TMPDIR are replaced by the sandbox's own. */
  env: Record<string, string | undefined>;
  /** Variables set after `env` (e.g. the proxy's address). */
  extraEnv?: Record<string, string>;
  /** Working directory inside; must be bound. */
  chdir: string;
  /** Memory bound of the whole sandbox in MiB (cgroup), or of each process in it (RLIMIT_DATA). */
  memoryMb: number;
}

/** The uid and gid the hook runs as inside (the kernel's overflow id: owns nothing). */
const SANDBOX_ID = "65534";
/** The empty, private home inside. */
export const SANDBOX_HOME = "/home/hook";
const BASH = "/bin/bash";
/** Why: no startup file of the host's user runs in the launcher (its environment holds no BASH_ENV or ENV: worker/child-env.mjs launcherEnv). */
const BASH_FLAGS = ["--noprofile", "--norc"];

export type Availability = { ok: true; memory: "cgroup" | "rlimit" } | { ok: false; reason: string };
let availability: Availability | undefined;

/**
 * Whether a sandbox can be built here, and if not, what to install or enable. Checked once, by
 * starting a real (empty) sandbox. Tests use it to skip where the sandbox cannot exist.
 */
export function sandboxAvailability(): Availability {
  if (availability) return availability;
  availability = probe();
  return availability;
}

function probe(): Availability {
  if (process.platform !== "linux") {
    return { ok: false, reason: `isolation "sandbox" needs Linux with bubblewrap (this is ${process.platform}; on macOS a sandbox-exec profile would be needed, which hookbox does not ship)` };
  }
  const bwrap = findOnPath("bwrap");
  if (!bwrap) return { ok: false, reason: `isolation "sandbox" needs bubblewrap: install it (e.g. "apt-get install bubblewrap")` };
  if (!existsSync(BASH)) return { ok: false, reason: `isolation "sandbox" needs ${BASH} on the host to start the sandbox` };
  try {
    execFileSync(bwrap, ["--unshare-user", "--unshare-pid", "--unshare-net", "--ro-bind", "/", "/", "true"], { stdio: "pipe", timeout: 10_000, env: launcherEnv() });
  } catch (err) {
    const said = String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim();
    return { ok: false, reason: `bubblewrap cannot create namespaces here (${said}): enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or user.max_user_namespaces > 0)` };
  }
  try {
    nodeRuntimeFiles();
  } catch (err) {
    return { ok: false, reason: `isolation "sandbox" needs ldd to list node's shared libraries (${(err as Error).message})` };
  }
  return { ok: true, memory: cgroupRoot() ? "cgroup" : "rlimit" };
}

/** The first executable `name` on the host's PATH. */
export function findOnPath(name: string): string | undefined {
  for (const dir of (hostEnvValue("PATH") ?? "/usr/bin:/bin").split(":")) {
    const p = join(dir, name);
    try { accessSync(p, constants.X_OK); return p; } catch { /* next */ }
  }
  return undefined;
}

/** The cgroup v1 memory hierarchy for hookbox's sandboxes, when the host may create groups there. */
function cgroupRoot(): string | undefined {
  const root = "/sys/fs/cgroup/memory/hookbox";
  try {
    mkdirSync(root, { recursive: true });
    accessSync(root, constants.W_OK);
    return root;
  } catch {
    return undefined;
  }
}

let nodeFiles: string[] | undefined;
/** The node binary and the shared libraries it loads (ldd), which every sandbox needs. */
export function nodeRuntimeFiles(): string[] {
  if (nodeFiles) return nodeFiles;
  const out = execFileSync("ldd", [process.execPath], { encoding: "utf8", env: launcherEnv() });
  nodeFiles = [process.execPath, ...[...out.matchAll(/(\/\S+)/g)].map((m) => m[1]!)];
  return nodeFiles;
}

/** bwrap's arguments for `spec`, up to and excluding the command. */
export function bwrapArgs(spec: SandboxSpec): string[] {
  const args = [
    "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net", "--unshare-cgroup-try",
    // Why --new-session: no TIOCSTI into the user's terminal. --die-with-parent: the host's death ends it.
    "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--uid", SANDBOX_ID, "--gid", SANDBOX_ID,
    "--clearenv",
    // Mounts first, binds after: a tmpfs mounted later would hide binds below it.
    "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", SANDBOX_HOME,
  ];
  for (const path of new Set(spec.readOnly)) {
    if (!existsSync(path)) continue;
    // Why realpath as the source: a symlinked path is bound as what it points to, at its own name.
    args.push("--ro-bind", realpathSync(path), path);
  }
  for (const b of spec.extraBinds ?? []) args.push(b.writable ? "--bind" : "--ro-bind", b.src, b.dest ?? b.src);
  const env = { ...spec.env, HOME: SANDBOX_HOME, TMPDIR: "/tmp", ...spec.extraEnv };
  for (const [k, v] of Object.entries(env)) if (v !== undefined) args.push("--setenv", k, v);
  // Why: the skeleton bwrap builds (folders above the binds) would be writable, though private.
  args.push("--remount-ro", "/", "--chdir", spec.chdir);
  return args;
}

/**
 * The host-side prologue: join the cgroup (`$1`, may be empty) or limit data memory (`$2` KiB),
 * close every descriptor above 5 that the host inherited without close-on-exec, then exec bwrap.
 */
const PROLOGUE = [
  // Why exit on failure: a sandbox without its memory bound must not start.
  'if [ -n "$1" ]; then echo $$ > "$1" || exit 97; else ulimit -d "$2" || exit 97; fi',
  "shift 2",
  'for p in /proc/$$/fd/*; do n=${p##*/}; if [ "$n" -gt 5 ]; then eval "exec $n>&-" 2>/dev/null; fi; done',
  'exec "$@"',
].join("\n");

/** A Launcher that runs a hook's child process inside the sandbox of `spec`. */
export function sandboxLauncher(spec: SandboxSpec): Launcher {
  const avail = sandboxAvailability();
  if (!avail.ok) throw new Error(avail.reason);
  const group = avail.memory === "cgroup" ? createGroup(spec.memoryMb) : undefined;
  return {
    kind: "sandbox",
    wrap: (argv) => ({
      command: BASH,
      args: [...BASH_FLAGS, "-c", PROLOGUE, "hookbox-sandbox", group ? join(group, "cgroup.procs") : "", String(spec.memoryMb * 1024), "bwrap", ...bwrapArgs(spec), "--", ...argv],
      env: launcherEnv(),
    }),
    afterDeath() {
      if (!group) return {};
      const outOfMemory = oomKills(group) > 0;
      removeGroup(group, 5);
      return { outOfMemory };
    },
  };
}

function createGroup(memoryMb: number): string {
  const root = cgroupRoot()!;
  sweepGroups(root);
  const group = join(root, randomBytes(6).toString("hex"));
  mkdirSync(group);
  writeFileSync(join(group, "memory.limit_in_bytes"), String(memoryMb * 1024 * 1024));
  // Why: with swap the group would swap instead of reaching its bound.
  try { writeFileSync(join(group, "memory.swappiness"), "0"); } catch { /* not offered */ }
  return group;
}

/** How many processes the kernel killed in `group` for reaching its memory bound (host-observed). */
function oomKills(group: string): number {
  try {
    const m = /oom_kill (\d+)/.exec(readFileSync(join(group, "memory.oom_control"), "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Remove groups left by hosts that exited before their groups emptied (an hour old: never one being set up). */
function sweepGroups(root: string): void {
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const group = join(root, entry.name);
    try {
      if (Date.now() - statSync(group).mtimeMs > 3_600_000) rmdirSync(group);
    } catch { /* in use: its processes are alive */ }
  }
}

/** Remove an emptied group; its last processes may take a moment to leave. */
function removeGroup(group: string, attempts: number): void {
  try {
    rmdirSync(group);
  } catch {
    if (attempts > 0) setTimeout(() => removeGroup(group, attempts - 1), 200).unref();
  }
}

/**
 * The command line that runs `pi.exec`'s program inside a sandbox of `spec`'s shape (no network,
 * the same binds; ./sandbox-spec.ts adds what a program needs). The program is resolved on the
 * host's PATH, never a path inside the hook's reach that the hook chose.
 */
export function sandboxedExecArgv(spec: SandboxSpec, command: string, args: string[]): { command: string; args: string[]; env: Record<string, string> } {
  const program = command.includes("/") ? command : findOnPath(command) ?? command;
  return {
    command: BASH,
    args: [...BASH_FLAGS, "-c", PROLOGUE, "hookbox-sandbox", "", String(spec.memoryMb * 1024), "bwrap", ...bwrapArgs(spec), "--", program, ...args],
    env: launcherEnv(),
  };
}
