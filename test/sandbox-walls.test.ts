/**
 * The seccomp filter, the process bound and the memory bound of every
 * sandbox (the hook's own and each `pi.exec` program's), and another hook's proxy socket out of
 * reach and the home empty (under a granted folder, a granted link, a written grant), with real sandboxes. Skipped, with the reason, only where the sandbox cannot be built.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { SANDBOX_MAX_TASKS } from "../src/isolation/bubblewrap/cgroups.js";
import { proxySocketDirs } from "../src/net/proxy.js";
import { fixture, start, until } from "./helpers/host.js";
import { quietSockets } from "./support/quiet-sockets.js";

const available = sandboxAvailability();
if (!available.ok) console.log(`sandbox wall tests skipped: ${available.reason}`);

const WALLS = fixture("hostile/breaks-its-sandbox-walls.ts");
const FOLDER = join(WALLS, "..");
/** Node's permission model off: the sandbox alone must hold. */
const base = { isolation: "sandbox" as const, unresponsiveMs: 10_000 };
/** The runner's cwd: the hook's own folder, where its programs may run. */
const cwd = FOLDER;
const execPolicy = (allow: string[]) => ({ permissionModel: false, exec: { allow } });
const run = (how: "exec" | "spawn", command: string, args: string[]) => ({ type: "tool_call" as const, toolName: "bash", toolCallId: "w", input: { how, command, args } });

/** System call numbers by architecture (perl's `syscall` takes the number). */
const NR = process.arch === "arm64"
  ? { ptrace: 117, keyctl: 219, bpf: 280, io_uring_setup: 425, perf_event_open: 241, clone: 220, clone3: 435, ioctl: 29 }
  : { ptrace: 101, keyctl: 250, bpf: 321, io_uring_setup: 425, perf_event_open: 298, clone: 56, clone3: 435, ioctl: 16 };
/** Each call's errno (0: it succeeded), one `name errno` line each. */
const SYSCALLS = `
  use POSIX ();
  my $buf = "x";
  sub try { my ($name, $r) = @_; print "$name ", ($r == -1 ? 0 + $! : 0), "\\n"; }
  try("ptrace", syscall(${NR.ptrace}, 0, 0, 0, 0));
  try("keyctl", syscall(${NR.keyctl}, 0, -3, 0));
  try("bpf", syscall(${NR.bpf}, 0, 0, 0));
  try("io_uring_setup", syscall(${NR.io_uring_setup}, 0, 0));
  try("perf_event_open", syscall(${NR.perf_event_open}, 0, 0, -1, -1, 0));
  try("clone3", syscall(${NR.clone3}, 0, 0));
  my $c = syscall(${NR.clone}, 0x10000000 | 17, 0, 0, 0, 0);
  if ($c == 0) { POSIX::_exit(0); }
  try("clone(CLONE_NEWUSER)", $c); waitpid($c, 0) if $c > 0;
  try("ioctl(TIOCSTI)", syscall(${NR.ioctl}, 0, 0x5412, $buf));
  try("ioctl(TIOCSTI, high bits)", syscall(${NR.ioctl}, 0, 0x100005412, $buf));
  try("ioctl(TIOCLINUX)", syscall(${NR.ioctl}, 0, 0x541C, $buf));
`;
const EPERM = 1;
const ENOSYS = 38;
const DENIED = {
  ptrace: EPERM, keyctl: EPERM, bpf: EPERM, io_uring_setup: EPERM, perf_event_open: EPERM, clone3: ENOSYS, "clone(CLONE_NEWUSER)": EPERM,
  "ioctl(TIOCSTI)": EPERM, "ioctl(TIOCSTI, high bits)": EPERM, "ioctl(TIOCLINUX)": EPERM,
};
/** Forks sleeping children until fork fails (or 400), prints `count errno`, kills them. */
const FORK_BOMB = "my $n = 0; my @k; while ($n < 400) { my $p = fork(); last unless defined $p; if ($p == 0) { sleep 60; exit 0 } push @k, $p; $n++ } my $e = 0 + $!; kill 9, @k; print \"$n $e\\n\";";

const parse = (reason: string | undefined) => JSON.parse(reason!) as { code: number; killed?: boolean; stdout: string; stderr: string };
const errnos = (stdout: string) => Object.fromEntries(stdout.split("\n").map((l) => { const i = l.lastIndexOf(" "); return [l.slice(0, i), Number(l.slice(i + 1))]; }));

describe.skipIf(!available.ok)("every sandbox's walls (seccomp, processes, memory)", () => {
  it("reports its bounds: seccomp, and cgroup v1 memory and pids on this machine", async () => {
    const { runner } = await start([WALLS], { cwd, load: { ...base, policy: execPolicy([]) } });
    const [stats] = runner.stats();
    if (!available.ok) return;
    expect(stats!.bounds).toEqual({ ...available.bounds, seccomp: true, ...(available.weaker ? { weaker: available.weaker } : {}) });
    // The test machine has writable cgroup v1 memory and pids hierarchies.
    if (existsSync("/sys/fs/cgroup/pids/hookbox") && existsSync("/sys/fs/cgroup/memory/hookbox")) expect(stats!.bounds).toEqual({ memory: "cgroup-v1", processes: "cgroup-v1", seccomp: true });
  });

  it("a pi.exec program cannot make a user namespace: unshare -Ur fails with EPERM", async () => {
    const { runner } = await start([WALLS], { cwd, load: { ...base, policy: execPolicy(["unshare"]) } });
    const r = parse((await runner.emitToolCall(run("exec", "unshare", ["-Ur", "true"])))!.reason);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("unshare: unshare failed: Operation not permitted");
  });

  it("nor can the hook itself (a program it spawns in its own sandbox)", async () => {
    const { runner } = await start([WALLS], { cwd, load: { ...base, policy: { permissionModel: false, fsRead: ["/usr"] } } });
    const r = parse((await runner.emitToolCall(run("spawn", "/usr/bin/unshare", ["-Ur", "true"])))!.reason);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("unshare: unshare failed: Operation not permitted");
  });

  it("ptrace, keyctl, bpf, io_uring, perf_event_open, clone(CLONE_NEWUSER), TIOCSTI and TIOCLINUX fail with EPERM in a pi.exec program (clone3 with ENOSYS)", async () => {
    const { runner } = await start([WALLS], { cwd, load: { ...base, policy: execPolicy(["perl"]) } });
    const r = parse((await runner.emitToolCall(run("exec", "perl", ["-e", SYSCALLS])))!.reason);
    expect(r.code).toBe(0);
    expect(errnos(r.stdout)).toEqual(DENIED);
  });

  it("the same calls fail the same way in the hook's own sandbox", async () => {
    const { runner } = await start([WALLS], { cwd, load: { ...base, policy: { permissionModel: false, fsRead: ["/usr"] } } });
    const r = parse((await runner.emitToolCall(run("spawn", "/usr/bin/perl", ["-e", SYSCALLS])))!.reason);
    expect(r.code).toBe(0);
    expect(errnos(r.stdout)).toEqual(DENIED);
  });

  it.skipIf(available.ok && available.bounds.processes === "rlimit")("a fork bomb in pi.exec stops at the sandbox's task bound: fork fails with EAGAIN", async () => {
    const { runner } = await start([WALLS], { cwd, load: { ...base, policy: execPolicy(["perl"]) } });
    const r = parse((await runner.emitToolCall(run("exec", "perl", ["-e", FORK_BOMB])))!.reason);
    const [count, errno] = r.stdout.split(" ").map(Number);
    expect(errno).toBe(11);
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThan(SANDBOX_MAX_TASKS);
    // The hook shares the bound and still answers.
    expect(parse((await runner.emitToolCall(run("exec", "perl", ["-e", "print 1"])))!.reason).stdout).toBe("1");
  }, 60_000);

  it.skipIf(available.ok && available.bounds.memory === "rlimit")("pi.exec filling /tmp past sandboxMemoryMb is ended by the kernel; the hook's own process survives", async () => {
    const { runner, errors } = await start([WALLS], { cwd, load: { ...base, sandboxMemoryMb: 128, policy: execPolicy(["dd"]) } });
    const r = parse((await runner.emitToolCall(run("exec", "dd", ["if=/dev/zero", "of=/tmp/fill", "bs=1M", "count=400"])))!.reason);
    // 137: bwrap's report of its child's SIGKILL (the kernel's OOM kill: the program is its first choice).
    expect(r).toMatchObject({ code: 137, killed: false, stdout: "" });
    expect(r.stderr).not.toContain("400+0 records out");
    expect(errors).toEqual([]);
    expect(parse((await runner.emitToolCall(run("exec", "dd", ["if=/dev/zero", "of=/dev/null", "count=1"])))!.reason).code).toBe(0);
  }, 60_000);
});

describe.skipIf(!available.ok)("another hook's proxy socket", () => {
  // Why outside the temporary folder: a policy that reaches the host's transform cache fails to load.
  const cache = mkdtempSync("/var/tmp/hookbox-walls-cache-");
  // A link to the temporary folder, outside it: a hook granted the link sees what the folder holds.
  const links = mkdtempSync("/var/tmp/hookbox-walls-links-");
  symlinkSync(tmpdir(), join(links, "tmp"));
  const server = quietSockets(createServer(() => {}));
  let target = "";
  beforeAll(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => {
    target = `127.0.0.1:${(server.address() as { port: number }).port}`;
    resolve();
  })));
  afterAll(() => {
    server.close();
    rmSync(cache, { recursive: true, force: true });
    rmSync(links, { recursive: true, force: true });
  });

  /** A hook allowed to reach `target`, its proxy's socket folder, and what its proxy recorded against it (a tunnel another hook opened through it would be). */
  async function networked(): Promise<{ socketDir: string; blamed: unknown[] }> {
    const blamed: unknown[] = [];
    const before = new Set(proxySocketDirs([tmpdir()]));
    await start([fixture("hostile/execs-where-it-chooses.ts")], { cwd, load: { ...base, policy: { permissionModel: false, network: { allow: [target] } }, onNet: (_hook, record) => blamed.push(record) } });
    const socketDir = proxySocketDirs([tmpdir()]).find((d) => !before.has(d) && listensHere(join(d, "proxy.sock")));
    expect(socketDir).toBeDefined();
    return { socketDir: socketDir!, blamed };
  }

  it("is hidden from a hook whose policy grants the whole temporary folder, and from its pi.exec programs", async () => {
    const { socketDir } = await networked();
    const { runner } = await start([WALLS], { cwd, load: { ...base, policy: { permissionModel: false, fsRead: [tmpdir(), "/usr"], exec: { allow: ["ls"] } }, transformCacheDir: cache } });
    // The folder is there (an empty tmpfs over it), the socket is not: in a program and in the hook.
    expect(parse((await runner.emitToolCall(run("exec", "ls", ["-A", socketDir])))!.reason)).toMatchObject({ code: 0, stdout: "" });
    expect(parse((await runner.emitToolCall(run("spawn", "/usr/bin/ls", ["-A", socketDir])))!.reason)).toMatchObject({ code: 0, stdout: "" });
  });

  it("is out of reach under a granted link to the temporary folder and under a written grant of it: the connect fails with ENOENT, and nothing is recorded against the other hook (control: in process isolation the same hook opens a tunnel through it, recorded against the other hook)", async () => {
    const probe = fixture("hostile/uses-another-hooks-proxy.ts");
    const ask = async (runner: Awaited<ReturnType<typeof start>>["runner"], socket: string) =>
      (await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "p", input: { socket, target } }))!.reason;
    const { socketDir, blamed } = await networked();
    const socket = join(socketDir, "proxy.sock");
    const linked = await start([probe], { cwd, load: { ...base, policy: { permissionModel: false, fsRead: [join(links, "tmp")] }, transformCacheDir: cache } });
    expect(await ask(linked.runner, join(links, "tmp", basename(socketDir), "proxy.sock"))).toBe("error ENOENT");
    const written = await start([probe], { cwd, load: { ...base, policy: { permissionModel: false, fsWrite: [tmpdir()] }, transformCacheDir: cache } });
    expect(await ask(written.runner, socket)).toBe("error ENOENT");
    expect(blamed).toEqual([]);
    const control = await start([probe], { cwd, load: { isolation: "process", unresponsiveMs: 10_000, policy: { permissionModel: false } } });
    expect(await ask(control.runner, socket)).toBe("HTTP/1.1 200 Connection Established");
    await until(() => blamed.length > 0);
    expect(blamed).toEqual([expect.objectContaining({ method: "CONNECT" })]);
  });
});

describe.skipIf(!available.ok)("the sandbox's empty home", () => {
  // A home with a key, and a link outside it to the folder above it.
  const dir = mkdtempSync("/var/tmp/hookbox-walls-home-");
  const home = join(dir, "users", "u");
  mkdirSync(join(home, ".ssh"), { recursive: true });
  writeFileSync(join(home, ".ssh", "id_ed25519"), "CANARY-SSH-KEY");
  symlinkSync(join(dir, "users"), join(dir, "link"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const env = { HOME: home, PATH: "/usr/bin:/bin" };
  /** Node's permission model off in the sandbox (the sandbox alone must hold), on in the other modes (what fsRead means there). */
  const read = async (fsRead: string[], path: string, isolation: "sandbox" | "process" | "worker" = "sandbox") => {
    const { runner } = await start([fixture("hostile/reads-the-home-through-a-granted-folder.ts")], { cwd, load: { ...base, isolation, env, policy: { permissionModel: isolation !== "sandbox", fsRead } } });
    return (await runner.emitToolCall({ type: "tool_call", toolName: "read", toolCallId: "h", input: { path } }))!.reason;
  };

  it("stays empty under a granted folder above it, under a granted link to that folder, and when the home itself is granted with a trailing slash: each read of the key fails with ENOENT (control: in process and worker isolation the granted link reads it, as fsRead grants there)", async () => {
    const key = (at: string) => join(at, "u", ".ssh", "id_ed25519");
    expect(await read([join(dir, "users")], key(join(dir, "users")))).toBe("error ENOENT");
    expect(await read([join(dir, "link")], key(join(dir, "link")))).toBe("error ENOENT");
    expect(await read([`${home}/`], join(home, ".ssh", "id_ed25519"))).toBe("error ENOENT");
    expect(await read([join(dir, "link")], key(join(dir, "link")), "process")).toBe("CANARY-SSH-KEY");
    expect(await read([join(dir, "link")], key(join(dir, "link")), "worker")).toBe("CANARY-SSH-KEY");
  });
});

/**
 * Whether this process listens on the unix socket at `path`. Why: other test runs on the machine
 * start proxies in the same temporary folder, so a new socket folder is not surely this file's.
 */
function listensHere(path: string): boolean {
  const inode = readFileSync("/proc/net/unix", "utf8").split("\n").map((l) => l.trim().split(/\s+/)).find((f) => f[7] === path)?.[6];
  if (!inode) return false;
  return readdirSync("/proc/self/fd").some((fd) => { try { return readlinkSync(`/proc/self/fd/${fd}`) === `socket:[${inode}]`; } catch { return false; } });
}

const root = process.getuid?.() === 0;
describe.skipIf(!available.ok || !root)("where no cgroup can be made (an empty /sys/fs/cgroup, in a mount namespace of its own)", () => {
  it("the hook still loads, bounded by resource limits, and the weaker bound is reported: loadHooks' warnings, hook.sandbox.bounds, runner.stats()", () => {
    const out = execFileSync("unshare", ["-m", "--propagation", "private", "sh", "-c",
      `mount -t tmpfs none /sys/fs/cgroup && exec "${process.execPath}" --import tsx test/support/load-without-cgroups.mts`], { encoding: "utf8", timeout: 60_000 });
    const r = JSON.parse(out);
    const weaker = "sandbox bounds are weaker here: memory by RLIMIT_DATA and RLIMIT_AS per process (each tmpfs by its size only), processes by RLIMIT_NPROC (per user, not per sandbox; root is exempt) (no cgroup v1 memory hierarchy at /sys/fs/cgroup/memory; no cgroup v1 pids hierarchy at /sys/fs/cgroup/pids)";
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([{ path: expect.stringContaining("returns-empty-result.ts"), warning: weaker }]);
    expect(r.bounds).toEqual({ memory: "rlimit", processes: "rlimit", seccomp: true, weaker });
    expect(r.stats).toEqual(r.bounds);
    expect(r.answered).toBe(true);
  }, 90_000);
});
