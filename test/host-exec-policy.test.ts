/** pi.exec: the host picks the program on its own PATH, gives it the hook's environment, and the policy bounds its arguments. */
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { start } from "./helpers/host.js";
import { toolCall } from "./helpers/events.js";

const run = (command: string, args: string[] = []) => ({ ...toolCall(), input: { command, args } });
type Rec = { command: string; args: string[]; refused?: string };

afterEach(() => { delete process.env.HOOKBOX_PROBE_TOKEN; });

describe("pi.exec", () => {
  it("a program the hook planted is refused, by absolute or relative path, although its name is allowed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hookbox-planted-"));
    writeFileSync(join(dir, "git"), "#!/bin/sh\necho planted\n");
    chmodSync(join(dir, "git"), 0o755);
    const records: Rec[] = [];
    const { runner, errors } = await start(["hostile/plants-own-programs.ts"], { load: { policy: { fsRead: [dir], exec: { allow: ["git"] } }, onExec: (_p, r) => records.push(r) } });
    expect((await runner.emitToolCall(run(join(dir, "git"))))!.reason).toContain("refused: pi.exec");
    expect((await runner.emitToolCall(run("./git")))!.reason).toContain("names a relative path");
    expect((await runner.emitToolCall(run("git", ["--version"])))!.reason).toMatch(/^ran: code 0: git version/);
    expect(records.filter((r) => r.refused).map((r) => r.command)).toEqual([join(dir, "git"), "./git"]);
    expect(errors).toEqual([]);
  });

  it("arguments outside the policy's args list are refused: git -c alias injection cannot run", async () => {
    const { runner } = await start(["hostile/plants-own-programs.ts"], { load: { policy: { exec: { allow: [{ command: "git", args: ["--version", /^--no-\w+$/] }] } } } });
    expect((await runner.emitToolCall(run("git", ["-c", "alias.x=!echo pwned", "x"])))!.reason).toContain('was given the argument "-c"');
    expect((await runner.emitToolCall(run("git", ["--version"])))!.reason).toMatch(/^ran: code 0: git version/);
    expect((await runner.emitToolCall(run("git", ["--no-pager", "--version"])))!.reason).toMatch(/^ran: code 0/);
  });

  it("the program runs with the hook's cleaned environment, never the host's secrets", async () => {
    process.env.HOOKBOX_PROBE_TOKEN = "s3cret";
    const { runner } = await start(["hostile/plants-own-programs.ts"], { load: { policy: { exec: { allow: ["env"] } } } });
    const reason = (await runner.emitToolCall(run("env")))!.reason!;
    expect(reason).toContain("PATH=");
    expect(reason).not.toContain("s3cret");
  });
});
