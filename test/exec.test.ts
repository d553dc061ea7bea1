/** execCommand over real processes: the original's signature and result, never a rejection. */
import { realpathSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { execCommand } from "../src/index.js";
import { tempDir } from "./helpers/files.js";

const NODE = process.execPath;
const node = (script: string, ...args: string[]) => [NODE, ["-e", script, ...args]] as const;
const SLEEP = "setTimeout(() => {}, 60000)";

describe("execCommand", () => {
  it("resolves stdout, stderr, code and killed of a program that succeeds", async () => {
    const [cmd, args] = node("process.stdout.write('out'); process.stderr.write('err')");
    expect(await execCommand(cmd, [...args], process.cwd())).toEqual({ stdout: "out", stderr: "err", code: 0, killed: false });
  });

  it("runs argv directly, with no shell: metacharacters and variables reach the program as text", async () => {
    const [cmd, args] = node("process.stdout.write(JSON.stringify(process.argv.slice(1)))", "$HOME", "a; echo b", "*", "`id`");
    const { stdout } = await execCommand(cmd, [...args], process.cwd());
    expect(JSON.parse(stdout)).toEqual(["$HOME", "a; echo b", "*", "`id`"]);
  });

  it("resolves, never rejects, with the exit code of a program that fails", async () => {
    const [cmd, args] = node("process.stderr.write('bad'); process.exit(7)");
    expect(await execCommand(cmd, [...args], process.cwd())).toEqual({ stdout: "", stderr: "bad", code: 7, killed: false });
  });

  it("resolves with code 1 and the reason in stderr when the program does not exist", async () => {
    const result = await execCommand("hookbox-no-such-program", [], process.cwd());
    expect(result).toMatchObject({ stdout: "", code: 1, killed: false });
    expect(result.stderr).toContain("ENOENT");
  });

  it("runs in the cwd argument, and options.cwd takes precedence over it", async () => {
    const a = tempDir();
    const b = tempDir();
    const [cmd, args] = node("process.stdout.write(process.cwd())");
    expect((await execCommand(cmd, [...args], a)).stdout).toBe(realpathSync(a));
    expect((await execCommand(cmd, [...args], a, { cwd: b })).stdout).toBe(realpathSync(b));
  });

  it("collects all of a large output", async () => {
    const [cmd, args] = node("process.stdout.write('x'.repeat(1 << 20))");
    expect((await execCommand(cmd, [...args], process.cwd())).stdout).toHaveLength(1 << 20);
  });

  it("kills the program on timeout and reports killed, with code 0 for the signal's null exit code", async () => {
    const [cmd, args] = node(SLEEP);
    expect(await execCommand(cmd, [...args], process.cwd(), { timeout: 100 })).toEqual({ stdout: "", stderr: "", code: 0, killed: true });
  });

  it("kills the program when the signal aborts, and reports killed", async () => {
    const controller = new AbortController();
    const [cmd, args] = node(`process.stdout.write('started'); ${SLEEP}`);
    const pending = execCommand(cmd, [...args], process.cwd(), { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const result = await pending;
    expect(result.killed).toBe(true);
    expect(result.code).toBe(0);
  });

  it("kills at once on a signal that is already aborted", async () => {
    const [cmd, args] = node(SLEEP);
    expect((await execCommand(cmd, [...args], process.cwd(), { signal: AbortSignal.abort() })).killed).toBe(true);
  });

  it("treats a timeout of 0 as no timeout", async () => {
    const [cmd, args] = node("setTimeout(() => process.stdout.write('done'), 50)");
    expect(await execCommand(cmd, [...args], process.cwd(), { timeout: 0 })).toEqual({ stdout: "done", stderr: "", code: 0, killed: false });
  });

  it("does not report killed for a program that exits by itself before its timeout", async () => {
    const [cmd, args] = node("process.exit(2)");
    expect(await execCommand(cmd, [...args], process.cwd(), { timeout: 30_000 })).toEqual({ stdout: "", stderr: "", code: 2, killed: false });
  });
});
