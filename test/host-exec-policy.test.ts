/**
 * pi.exec: the host picks the program on its own PATH, gives it the hook's environment, the policy
 * bounds its arguments, and its working directory must lie inside what the hook may read.
 */
import { chmodSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { fixture, start } from "./helpers/host.js";
import { toolCall } from "./helpers/events.js";
import { ISOLATION } from "./support/isolation.js";

/** The runner's cwd: the fixtures' own folder (a sandboxed program runs only where its hook may read). */
const cwd = dirname(fixture("hostile/plants-own-programs.ts"));

const run = (command: string, args: string[] = []) => ({ ...toolCall(), input: { command, args } });
type Rec = { command: string; args: string[]; refused?: string };

afterEach(() => { delete process.env.HOOKBOX_PROBE_TOKEN; });

describe("pi.exec", () => {
  it("a program the hook planted is refused, by absolute or relative path, although its name is allowed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hookbox-planted-"));
    writeFileSync(join(dir, "git"), "#!/bin/sh\necho planted\n");
    chmodSync(join(dir, "git"), 0o755);
    const records: Rec[] = [];
    const { runner, errors } = await start(["hostile/plants-own-programs.ts"], { cwd, load: { policy: { fsRead: [dir], exec: { allow: ["git"] } }, onExec: (_p, r) => records.push(r) } });
    expect((await runner.emitToolCall(run(join(dir, "git"))))!.reason).toContain("refused: pi.exec");
    expect((await runner.emitToolCall(run("./git")))!.reason).toContain("names a relative path");
    expect((await runner.emitToolCall(run("git", ["--version"])))!.reason).toMatch(/^ran: code 0: git version/);
    expect(records.filter((r) => r.refused).map((r) => r.command)).toEqual([join(dir, "git"), "./git"]);
    expect(errors).toEqual([]);
  });

  it("arguments outside the policy's args list are refused: git -c alias injection cannot run", async () => {
    const { runner } = await start(["hostile/plants-own-programs.ts"], { cwd, load: { policy: { exec: { allow: [{ command: "git", args: ["--version", /^--no-\w+$/] }] } } } });
    expect((await runner.emitToolCall(run("git", ["-c", "alias.x=!echo pwned", "x"])))!.reason).toContain('was given the argument "-c"');
    expect((await runner.emitToolCall(run("git", ["--version"])))!.reason).toMatch(/^ran: code 0: git version/);
    expect((await runner.emitToolCall(run("git", ["--no-pager", "--version"])))!.reason).toMatch(/^ran: code 0/);
  });

  it("the program runs with the hook's cleaned environment, never the host's secrets", async () => {
    process.env.HOOKBOX_PROBE_TOKEN = "s3cret";
    const { runner } = await start(["hostile/plants-own-programs.ts"], { cwd, load: { policy: { exec: { allow: ["env"] } } } });
    const reason = (await runner.emitToolCall(run("env")))!.reason!;
    expect(reason).toContain("PATH=");
    expect(reason).not.toContain("s3cret");
  });
});

describe("pi.exec's working directory", () => {
  const CHOOSER = "hostile/execs-where-it-chooses.ts";
  const pwd = (where?: string) => ({ ...toolCall(), input: { command: "pwd", args: [], ...(where === undefined ? {} : { cwd: where }) } });
  const refusal = (dir: string, folder = cwd) =>
    `refused: pi.exec's working directory ${JSON.stringify(dir)} is outside what this hook may read (its folder ${folder}, policy.fsRead, policy.fsWrite); grant it in policy.fsRead to run programs there`;
  const outside = mkdtempSync(join(tmpdir(), "hookbox-exec-cwd-"));
  const granted = realpathSync(mkdtempSync(join(tmpdir(), "hookbox-exec-granted-")));
  symlinkSync(outside, join(granted, "leads-out"));
  afterAll(() => { rmSync(outside, { recursive: true, force: true }); rmSync(granted, { recursive: true, force: true }); });

  it('"/" is refused, naming the directory and the policy field that would grant it, and recorded', async () => {
    const records: Array<{ refused?: string }> = [];
    const { runner } = await start([CHOOSER], { cwd, load: { policy: { exec: { allow: ["pwd"] } }, onExec: (_p, r) => records.push(r) } });
    expect((await runner.emitToolCall(pwd("/")))!.reason).toBe(refusal("/"));
    expect(records).toEqual([{ command: "pwd", args: [], refused: refusal("/").slice("refused: ".length) }]);
  });

  it("a folder outside, a relative path that climbs out, and a symlink in a granted folder that leads out are refused", async () => {
    const { runner } = await start([CHOOSER], { cwd, load: { policy: { fsRead: [granted], exec: { allow: ["pwd"] } } } });
    expect((await runner.emitToolCall(pwd(outside)))!.reason).toBe(refusal(realpathSync(outside)));
    expect((await runner.emitToolCall(pwd("../..")))!.reason).toBe(refusal(dirname(dirname(cwd))));
    expect((await runner.emitToolCall(pwd(join(granted, "leads-out"))))!.reason).toBe(refusal(realpathSync(outside)));
    expect((await runner.emitToolCall(pwd(join(granted, "missing"))))!.reason).toBe(`refused: pi.exec's working directory ${JSON.stringify(join(granted, "missing"))} does not exist or is not a directory`);
  });

  it("its own folder and a policy.fsRead folder run the program there", async () => {
    const { runner } = await start([CHOOSER], { cwd, load: { policy: { fsRead: [granted], exec: { allow: ["pwd"] } } } });
    expect((await runner.emitToolCall(pwd(granted)))!.reason).toBe(`ran: code 0: ${granted}`);
    expect((await runner.emitToolCall(pwd(".")))!.reason).toBe(`ran: code 0: ${cwd}`);
    expect((await runner.emitToolCall(pwd()))!.reason).toBe(`ran: code 0: ${cwd}`);
  });

  it("the runner's own cwd, the default, is the host's choice outside the sandbox; in the sandbox it must be readable too", async () => {
    const { runner } = await start([CHOOSER], { cwd: outside, load: { policy: { exec: { allow: ["pwd"] } } } });
    expect((await runner.emitToolCall(pwd()))!.reason).toBe(ISOLATION === "sandbox" ? refusal(realpathSync(outside), cwd) : `ran: code 0: ${outside}`);
  });

  it("a trusted hook (no permission model) may read everything, so its programs run anywhere; not in the sandbox", async () => {
    const { runner } = await start([CHOOSER], { cwd, load: { policy: "trusted" } });
    expect((await runner.emitToolCall(pwd("/")))!.reason).toBe(ISOLATION === "sandbox" ? refusal("/") : "ran: code 0: /");
  });
});
