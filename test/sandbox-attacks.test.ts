/**
 * Every attack a hook in `isolation: "sandbox"` (bubblewrap) may try on the host, with real
 * sandboxes. Skipped, with the reason, only where the sandbox cannot be built.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, openSync, closeSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { fixture, start, until } from "./helpers/host.js";
import { turnStart } from "./helpers/events.js";
import { quietSockets } from "./support/quiet-sockets.js";

const available = sandboxAvailability();
if (!available.ok) console.log(`sandbox tests skipped: ${available.reason}`);

const folder = mkdtempSync(join(tmpdir(), "hookbox-sandbox-hook-"));
const outside = mkdtempSync(join(tmpdir(), "hookbox-sandbox-outside-"));
const secretFile = join(outside, "secret.txt");
const hookFile = join(folder, "attacks-its-host.ts");
/** The copy lives in a folder of its own, outside the repository. */
const hook = hookFile;
/** Node's permission model off: the sandbox alone must hold. */
const sandboxed = { isolation: "sandbox" as const, unresponsiveMs: 5_000, policy: { permissionModel: false } };
const probe = (probe: string, arg?: string) => ({ type: "tool_call" as const, toolName: "bash", toolCallId: probe, input: { probe, arg } });

beforeAll(() => {
  copyFileSync(fixture("hostile/attacks-its-host.ts"), hookFile);
  writeFileSync(secretFile, "host secret");
  // A cloned repository can ship symlinks: one to a file outside, one to the host's environment.
  symlinkSync(secretFile, join(folder, "secret-link"));
  symlinkSync(`/proc/${process.pid}/environ`, join(folder, "environ-link"));
  process.env.OPENAI_API_KEY = "sk-host-only";
});
afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

async function ask(runner: Awaited<ReturnType<typeof start>>["runner"], name: string, arg?: string): Promise<any> {
  const result = await runner.emitToolCall(probe(name, arg));
  return JSON.parse(result!.reason!);
}

describe.skipIf(!available.ok)("a hook in a sandbox", () => {
  it("runs as pid 2 under an unprivileged uid and sees only what is bound", async () => {
    const { runner } = await start([hook], { load: sandboxed });
    const me = await ask(runner, "whoami");
    expect(me).toMatchObject({ pid: 2, ppid: 1, uid: 65534, cwd: folder });
    expect(me.root).not.toContain("etc");
    // The host's HOME path shows (the sandbox's own empty home is mounted there), nothing else of the host's top level.
    if (homedir() !== "/root") expect(me.root).not.toContain("root");
  });

  it("its working folder is the runner's cwd where its policy binds that folder (process.cwd() as in process isolation), else its own folder", async () => {
    const granted = await start([hook], { cwd: outside, load: { ...sandboxed, policy: { permissionModel: false, fsRead: [outside] } } });
    expect(await ask(granted.runner, "whoami")).toMatchObject({ cwd: outside });
    const ungranted = await start([hook], { cwd: outside, load: sandboxed });
    expect(await ask(ungranted.runner, "whoami")).toMatchObject({ cwd: folder });
  });

  it("signals to its parent, to the host's pid or to every process it sees never reach the host", async () => {
    const { runner, errors } = await start([hook, "valid/redacts-api-key.ts"], { load: { ...sandboxed, maxRestarts: 0 } });
    // Its parent is the sandbox's own init; the host's pid does not exist in its namespace.
    expect(await ask(runner, "signal")).toEqual({ ok: true });
    expect(await ask(runner, "signal", String(process.pid))).toEqual({ error: "ESRCH" });
    const killed = await runner.emitToolCall(probe("kill-everything"));
    expect(killed?.block).toBe(true);
    await until(() => errors.length > 0, 10_000, "the death report");
    expect(errors[0]!.code).toBe("crashed");
    expect(await runner.emit({ type: "tool_result", toolName: "read", toolCallId: "r", input: {}, content: [{ type: "text", text: "API_KEY=1" }], isError: false }))
      .toEqual({ content: [{ type: "text", text: "API_KEY=[REDACTED]" }] });
  });

  it("SIGSTOP to itself stops only the hook: it is ended as unresponsive and the host answers", async () => {
    const { runner, errors } = await start([hook, "valid/redacts-api-key.ts"], { load: { ...sandboxed, unresponsiveMs: 500, maxRestarts: 0 } });
    expect((await runner.emitToolCall(probe("stop-self")))?.block).toBe(true);
    expect(errors.map((e) => e.code)).toContain("unresponsive");
    expect(await runner.emit({ type: "tool_result", toolName: "read", toolCallId: "r", input: {}, content: [{ type: "text", text: "API_KEY=1" }], isError: false }))
      .toEqual({ content: [{ type: "text", text: "API_KEY=[REDACTED]" }] });
  });

  it("process.report shows the hook's cleaned environment, no host secret", async () => {
    const { runner } = await start([hook], { load: sandboxed });
    const env = await ask(runner, "report-env");
    expect(env.OPENAI_API_KEY).toBeUndefined();
    expect(JSON.stringify(env)).not.toContain("sk-host-only");
  });

  it("its HOME names the host's HOME path, an empty private folder there: a file in the host's HOME reads nothing", async () => {
    const inHome = join(homedir(), `.hookbox-sandbox-home-${process.pid}`);
    writeFileSync(inHome, "the user's own\n");
    try {
      const { runner } = await start([hook], { load: sandboxed });
      expect((await ask(runner, "report-env")).HOME).toBe(homedir());
      expect(await ask(runner, "read", inHome)).toEqual({ error: "ENOENT" });
    } finally {
      rmSync(inHome, { force: true });
    }
  });

  it("symlinks shipped in its folder, to a file outside or to /proc/<host pid>/environ, read nothing", async () => {
    const { runner } = await start([hook], { load: sandboxed });
    expect(await ask(runner, "read", join(folder, "secret-link"))).toEqual({ error: "ENOENT" });
    expect(await ask(runner, "read", join(folder, "environ-link"))).toEqual({ error: "ENOENT" });
    expect(await ask(runner, "read", secretFile)).toEqual({ error: "ENOENT" });
  });

  it("the host's open descriptors, its stdin and the terminal are out of reach", async () => {
    const held = openSync(secretFile, "r");
    try {
      const { runner } = await start([hook], { load: sandboxed });
      const fds: string[] = await ask(runner, "fds");
      expect(fds.join("\n")).not.toContain(outside);
      expect(await ask(runner, "read", `/proc/self/fd/${held}`)).not.toEqual({ ok: "host secret" });
      expect(await ask(runner, "stdin")).toEqual({ ok: 0 });
      expect((await ask(runner, "tty")).error).toBeDefined();
    } finally {
      closeSync(held);
    }
  });

  it("no network connection leaves the sandbox: a server on the host's loopback hears nothing", async () => {
    let connections = 0;
    const server = quietSockets(createServer(() => { connections++; }));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { runner } = await start([hook], { load: sandboxed });
      const port = (server.address() as { port: number }).port;
      expect(await ask(runner, "connect", `127.0.0.1 ${port}`)).toMatch(/^E(CONNREFUSED|NETUNREACH)$/);
      expect(await ask(runner, "connect", "1.1.1.1 80")).toMatch(/^E(NETUNREACH|CONNREFUSED)$/);
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  it("writes land in its private /tmp only: its folder and every bound path are read-only, the host's /tmp untouched", async () => {
    const { runner } = await start([hook], { load: sandboxed });
    const name = `hookbox-escape-${process.pid}`;
    expect(await ask(runner, "write", `/tmp/${name}`)).toEqual({});
    expect(existsSync(`/tmp/${name}`)).toBe(false);
    expect(await ask(runner, "write", join(folder, "planted.ts"))).toEqual({ error: "EROFS" });
    expect(existsSync(join(folder, "planted.ts"))).toBe(false);
    // Outside /tmp the rest of the host's tree is read-only or absent; a checkout under /tmp is
    // shadowed by the private /tmp, where the write lands and is discarded.
    const elsewhere = await ask(runner, "write", join(process.cwd(), "planted.txt"));
    if (process.cwd().startsWith("/tmp/")) expect(elsewhere).toEqual({});
    else expect(elsewhere.error).toMatch(/^E(ROFS|NOENT)$/);
    expect(existsSync(join(process.cwd(), "planted.txt"))).toBe(false);
  });

  it("a path the policy names in fsWrite is the one place outside its sandbox a hook can write", async () => {
    const writable = mkdtempSync(join(tmpdir(), "hookbox-sandbox-writable-"));
    try {
      const { runner } = await start([hook], { load: { ...sandboxed, policy: { permissionModel: false, fsWrite: [writable] } } });
      expect(await ask(runner, "write", join(writable, "allowed.txt"))).toEqual({});
      expect(existsSync(join(writable, "allowed.txt"))).toBe(true);
      expect(await ask(runner, "write", join(outside, "denied.txt"))).toEqual({ error: "ENOENT" });
      expect(existsSync(join(outside, "denied.txt"))).toBe(false);
    } finally {
      rmSync(writable, { recursive: true, force: true });
    }
  });

  it("pi.exec runs an allowed program inside a sandbox of the same shape, and refuses the rest", async () => {
    // The runner's cwd is the hook's folder: a program runs only where its hook may read.
    const { runner } = await start([hook], { cwd: folder, load: { ...sandboxed, policy: { permissionModel: false, exec: { allow: ["ls", "cat"] } } } });
    const ls = await ask(runner, "exec", "ls /");
    expect(ls.code).toBe(0);
    expect(ls.stdout.split("\n")).not.toContain("etc");
    const cat = await ask(runner, "exec", `cat ${secretFile}`);
    expect(cat.code).not.toBe(0);
    expect(cat.stdout).not.toContain("host secret");
    await expect(runner.emitToolCall(probe("exec", "sh -c id"))).rejects.toThrow("not in this hook's policy");
  });

  it("memory past the sandbox's bound, external buffers included, ends only the hook", async () => {
    const { runner, errors } = await start(["faulty/exhausts-external-memory.ts"], { load: { ...sandboxed, sandboxMemoryMb: 160, maxRestarts: 0, unresponsiveMs: 20_000 } });
    await runner.emit(turnStart());
    await until(() => errors.length > 0, 30_000, "the report");
    // cgroup: the kernel ends the sandbox and the host reads its OOM counter; RLIMIT_DATA: the allocation throws in the hook.
    expect(errors[0]!.code).toBe(available.ok && available.memory === "cgroup" ? "out_of_memory" : "handler_threw");
  }, 60_000);
});

describe("where the sandbox cannot be built", () => {
  it("loading fails with load_failed and says what to install; the hook never runs with less isolation", () => {
    const out = execFileSync(process.execPath, ["--import", "tsx", "test/support/load-sandboxed.mts"], { env: { PATH: "/nonexistent" }, encoding: "utf8" });
    const errors = JSON.parse(out) as Array<{ code: string; error: string }>;
    expect(errors.map((e) => e.code)).toEqual(["load_failed"]);
    expect(errors[0]!.error).toContain("install");
  });
});
