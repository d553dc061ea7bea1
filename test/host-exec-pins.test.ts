/**
 * pi.exec from an approved project module runs only project files its approval pinned, as approved
 * (src/bridge/exec-pins.ts), for fixtures/hostile/runs-a-project-script-changed-after-approval: a
 * project script no approval pinned, the module's own script swapped after approval, and a shell's
 * -c string that sources one are refused (not_approved, the file named) and do not run. Controls:
 * the pinned script runs as approved, and a module that is not a project's (no approval) runs them.
 */
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ApprovalStore, fingerprint } from "../src/approval/store.js";
import { approvalCommand } from "../src/approval/project.js";
import { Notices } from "../src/extension/notices.js";
import { fixture, start } from "./helpers/host.js";
import { toolCall } from "./helpers/events.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "hookbox-exec-pins-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function project(name = "project") {
  const dir = join(root, name);
  const module = join(dir, ".pi", "extensions", "guard.ts");
  mkdirSync(join(dir, "tools"), { recursive: true });
  mkdirSync(join(dir, ".pi", "extensions"), { recursive: true });
  cpSync(fixture("hostile/runs-a-project-script-changed-after-approval.ts"), module);
  writeFileSync(join(dir, "tools", "check.sh"), "echo unpinned script ran\n");
  writeFileSync(join(dir, ".pi", "extensions", "own.sh"), "echo approved script ran\n");
  return { dir, module, approvals: join(root, "approvals") };
}

afterEach(() => { delete process.env.BASH_ENV; });

const exec = (args: string[]) => ({ ...toolCall(), input: { args } });

describe("pi.exec from an approved project module", () => {
  it("runs its own folder's script as approved; refuses (not_approved, the file named) one swapped after approval, a project script no approval pinned, and a -c string sourcing one; a file it only reads or writes is not judged; a module without an approval runs them", async () => {
    const p = project();
    const policy = { fsRead: [p.dir], exec: { allow: ["bash"] } };
    const store = new ApprovalStore({ dir: p.approvals });
    store.approve(p.dir, [fingerprint(p.module, policy)]);
    const records: Array<{ refused?: string }> = [];
    // What pi's UI shows (isolateDiscovered's notices): the refusal as recorded, proposing no grant (exec:bash is granted; approving again is the fix).
    const shown: string[] = [];
    const proposed: string[] = [];
    const notices = new Notices({ project: p.dir, modules: new Set([p.module]), command: (g) => `trust --grant ${g}`, record: (_h, g) => proposed.push(g) });
    notices.attach((line) => shown.push(line));
    const load = notices.watch({ policy, approval: () => store.verify(p.dir, { path: p.module, policy }), onExec: (_h: string, r: { refused?: string }) => records.push(r) });
    const { runner, errors } = await start([p.module], { cwd: p.dir, load });
    const reason = async (args: string[]) => (await runner.emitToolCall(exec(args)))!.reason!;
    const refused = (name: string, why: string) =>
      `refused: pi.exec("bash") was given ${JSON.stringify(name)} (not_approved): ${why}; a script it runs belongs in the module's own folder (pinned whole), then review and run: ${approvalCommand(p.dir)}`;

    // Control: the script its approval pinned (the module's folder, pinned whole) runs as approved.
    expect(await reason([".pi/extensions/own.sh"])).toBe("ran: code 0: approved script ran");
    expect(await reason(["tools/check.sh"])).toBe(refused("tools/check.sh", "a file of the project its approval did not pin"));
    expect(await reason(["-c", ". tools/check.sh"])).toBe(refused("tools/check.sh", "a file of the project its approval did not pin"));
    expect(await reason(["-c", ". $(echo tools/check.sh)"])).toContain("a command whose files are known only when it runs");
    // A project file a program only reads or writes is not what runs (a formatter's file): not judged.
    expect(await reason(["-c", "cat tools/check.sh; cat < tools/check.sh > /dev/null; echo done"])).toBe("ran: code 0: echo unpinned script ran\ndone");
    writeFileSync(join(p.dir, ".pi", "extensions", "own.sh"), "echo swapped script ran\n");
    const own = join(p.dir, ".pi", "extensions", "own.sh");
    expect(await reason([".pi/extensions/own.sh"])).toBe(refused(".pi/extensions/own.sh", `a file of the project changed since you approved it (${own} differs)`));
    expect(await reason([own])).toBe(refused(".pi/extensions/own.sh", `a file of the project changed since you approved it (${own} differs)`));
    // The record (cut at 400 characters) keeps the code and the command that approves.
    expect(records.filter((r) => r.refused).every((r) => r.refused!.includes("(not_approved)") && r.refused!.endsWith(approvalCommand(p.dir)))).toBe(true);
    expect(records.filter((r) => r.refused)).toHaveLength(5);
    expect(shown).toEqual([`hookbox: ${p.module}: ${records.find((r) => r.refused)!.refused}`]);
    expect(proposed).toEqual([]);
    expect(errors).toEqual([]);

    // Control: the same module with no approval (not a project's) is not judged by one.
    const { runner: plain } = await start([p.module], { cwd: p.dir, load: { policy } });
    expect((await plain.emitToolCall(exec(["tools/check.sh"])))!.reason).toBe("ran: code 0: unpinned script ran");
  });

  it("a loader variable of its programs' environment (BASH_ENV, granted env:BASH_ENV) naming a project file its approval did not pin is refused (not_approved, the variable and the file named); control: without it the pinned script runs", async () => {
    const p = project("loader");
    const policy = { fsRead: [p.dir], env: ["BASH_ENV"], exec: { allow: ["bash"] } };
    const store = new ApprovalStore({ dir: p.approvals });
    store.approve(p.dir, [fingerprint(p.module, policy)]);
    const { runner } = await start([p.module], { cwd: p.dir, load: { policy, approval: () => store.verify(p.dir, { path: p.module, policy }) } });
    expect((await runner.emitToolCall(exec([".pi/extensions/own.sh"])))!.reason).toBe("ran: code 0: approved script ran");
    process.env.BASH_ENV = "tools/check.sh";
    const reason = (await runner.emitToolCall(exec([".pi/extensions/own.sh"])))!.reason!;
    expect(reason).toMatch(/^refused: pi\.exec\("bash"\) was given "BASH_ENV=tools\/check\.sh" \(not_approved\): tools\/check\.sh: a file of the project its approval did not pin; /);
  });
});
