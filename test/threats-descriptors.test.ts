/**
 * docs/confinement.md's threat table row "the host's open file descriptors, the terminal", each mode's
 * cell as a real host process would meet it: a host started with two descriptors it inherited without
 * close-on-exec (fd 9, and fd 30 above a gap) and one it opened itself, inside a terminal (`script`
 * gives it a pseudo-terminal as its controlling terminal and its fds 0-2), loads
 * fixtures/hostile/attacks-its-host.ts in each mode, confined and with Node's permission model off.
 * The control: the same host started in a session of its own, without a terminal.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { ROOT } from "./helpers/host.js";

const sandbox = sandboxAvailability().ok;
const folder = mkdtempSync(join(tmpdir(), "hookbox-descriptors-"));
const LOW = "inherited at fd 9\n";
const HIGH = "inherited at fd 30\n";

/** Runs test/support/descriptor-host.mts with fd 9 and fd 30 open on two files, in a terminal or in a session of its own. */
async function host(runs: string[], terminal: boolean): Promise<Record<string, Record<string, any>>> {
  const report = join(folder, `${terminal ? "tty" : "none"}.json`);
  const line = `exec 9<${join(folder, "low")} 30<${join(folder, "high")}; exec ${process.execPath} --import tsx test/support/descriptor-host.mts ${report} ${runs.join(",")}`;
  const child = terminal
    // `script` runs its command with $SHELL, or dash where it is unset (as in CI), and dash has no fd above 9.
    ? spawn("script", ["-qec", line, "/dev/null"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, SHELL: "/bin/bash" } })
    : spawn("bash", ["-c", line], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  child.stdout.on("data", (c) => { output += c; });
  child.stderr.on("data", (c) => { output += c; });
  const code = await new Promise((resolve) => child.once("close", resolve));
  if (code !== 0) throw new Error(`the host exited with ${code}: ${output}`);
  return JSON.parse(readFileSync(report, "utf8"));
}

beforeAll(() => {
  writeFileSync(join(folder, "low"), LOW);
  writeFileSync(join(folder, "high"), HIGH);
  execFileSync("script", ["--version"]);
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe("the host's open file descriptors and its terminal", () => {
  let seen: Record<string, Record<string, any>>;
  beforeAll(async () => {
    const modes = ["worker", "process", ...(sandbox ? ["sandbox"] : [])];
    seen = await host(modes.flatMap((m) => [`${m}:confined`, `${m}:off`]), true);
  }, 60_000);

  it("worker mode shares them: every descriptor the host holds, read by its number (the permission model checks paths, not descriptors), and the terminal as fds 0-2", () => {
    for (const policy of ["confined", "off"]) {
      const w = seen[`worker:${policy}`]!;
      expect(w.low).toEqual({ ok: LOW });
      expect(w.high).toEqual({ ok: HIGH });
      expect(w.own.ok).toContain("Tries, on request");
      expect(w.isatty).toEqual([true, true, true]);
    }
    // Opening /dev/tty by its path is a read the permission model refuses.
    expect(seen["worker:confined"]!.tty).toEqual({ error: "ERR_ACCESS_DENIED" });
    expect(seen["worker:off"]!.tty).toEqual({ ok: undefined });
  });

  it("process mode inherits only descriptors without close-on-exec: Node marks those it starts with up to the first gap after fd 15, so fd 30 reaches the child and fd 9 and the host's own do not", () => {
    for (const policy of ["confined", "off"]) {
      const p = seen[`process:${policy}`]!;
      expect(p.high).toEqual({ ok: HIGH });
      // fd 9 is a descriptor of the child's own runtime (a pipe: ESPIPE) or none, never the host's file.
      expect(p.low.ok).toBeUndefined();
      expect(p.own.ok).toBeUndefined();
      // fds 0-2 are /dev/null and hookbox's pipes.
      expect(p.isatty).toEqual([false, false, false]);
    }
  });

  it("process mode reaches the host's terminal through /dev/tty where Node's permission model is off; confined, the path is refused", () => {
    expect(seen["process:off"]!.tty).toEqual({ ok: undefined });
    expect(seen["process:confined"]!.tty).toEqual({ error: "ERR_ACCESS_DENIED" });
  });

  it.skipIf(!sandbox)("sandbox mode holds only the channel's descriptors and no controlling terminal: /dev/tty is ENXIO even with the permission model off", () => {
    for (const policy of ["confined", "off"]) {
      const s = seen[`sandbox:${policy}`]!;
      expect(s.low.ok).toBeUndefined();
      expect(s.high.ok).toBeUndefined();
      expect(s.own.ok).toBeUndefined();
      expect(s.isatty).toEqual([false, false, false]);
    }
    expect(seen["sandbox:off"]!.tty).toEqual({ error: "ENXIO" });
    expect(seen["sandbox:confined"]!.tty).toEqual({ error: "ERR_ACCESS_DENIED" });
  });

  it("the control: a host without a terminal gives a process-mode hook none (/dev/tty is ENXIO), so the terminal the hook reached above was the host's", async () => {
    const none = await host(["process:off", "worker:off"], false);
    expect(none["process:off"]!.tty).toEqual({ error: "ENXIO" });
    expect(none["worker:off"]!.isatty).toEqual([false, false, false]);
    // What the descriptors showed does not depend on the terminal.
    expect(none["process:off"]!.high).toEqual({ ok: HIGH });
  }, 60_000);
});
