/**
 * Grants for a pi project module (src/policy/grants.ts `withGrants`, src/extension/discovered.ts),
 * in pi 0.73.1's own loader and runner: the approval's `write:<folder>` and `env:<NAME>` reach the
 * module's sandbox through its policy, only once approved as it is; a grant only a Claude Code hook
 * can take is refused by name.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalStore, fingerprint } from "../src/approval/store.js";
import { isolateDiscovered } from "../src/extension.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { tempDir, writeHook } from "./helpers/files.js";
import { GrantError, withGrants } from "../src/policy/grants.js";
import { resolvePolicy } from "../src/policy/policy.js";
import { WALK_BOUND } from "../src/policy/planted.js";
import { piLoader } from "./support/pi-loader.js";

const pi = piLoader();
afterEach(() => { delete process.env.GRANTS_TEST_VALUE; });

/** A logger as published: it appends each tool call to logs/calls.log under the project, and says what happened (a block reason, for the test). */
const logger = (project: string) => `import { appendFileSync } from "node:fs";
import { join } from "node:path";
export default (pi: any) => {
  pi.on("tool_call", (e: any) => {
    let wrote = "wrote";
    try { appendFileSync(join(${JSON.stringify(project)}, "logs", "calls.log"), e.toolName + "\\n"); } catch (err: any) { wrote = "refused " + err.code; }
    return { block: true, reason: wrote + " env=" + (process.env.GRANTS_TEST_VALUE ?? "") };
  });
};
`;

function world() {
  const root = tempDir("hookbox-extension-grants-");
  const project = join(root, "project");
  const module = writeHook(project, ".pi/extensions/logger.ts", logger(project));
  mkdirSync(join(root, "config"));
  mkdirSync(join(root, "agent"));
  const approvals = { dir: join(root, "config") };
  const approve = (...grants: string[]) => new ApprovalStore(approvals).approve(project, [fingerprint(module, "untrusted")], { [module]: grants });
  return { root, project, module, approvals, approve, agentDir: join(root, "agent") };
}

async function inPi(w: { project: string; agentDir: string; approvals: { dir: string } }) {
  // What pi shows the person: its UI's notify (hookbox's notices and module errors go there when pi has a UI).
  return pi.inPi(isolateDiscovered({ cwd: w.project, agentDir: w.agentDir, piRoot: pi.root, approvals: w.approvals }), w.project, { notify: true });
}

async function call(w: ReturnType<typeof world>) {
  const { runner, errors, notified } = await inPi(w);
  const result = await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "1", input: { command: "ls" } });
  return { reason: String(result?.reason ?? ""), errors, notified, runner };
}

describe("a pi module's grants widen its policy, field by field (withGrants)", () => {
  it("write:<folder> to fsWrite (made), exec:<program> to exec.allow, network:<host> to network.allow, env:<NAME> to env, effects:annotate to effects; the rest of untrusted stays", () => {
    const project = join(tempDir("hookbox-with-grants-"), "project");
    mkdirSync(project);
    const granted = resolvePolicy(withGrants("untrusted", ["write:logs", "exec:uv", "network:pypi.org", "env:NODE_ENV", "effects:annotate"], project));
    expect(granted).toMatchObject({ fsWrite: [join(project, "logs")], exec: { allow: ["uv"] }, network: { allow: ["pypi.org:443"] }, env: ["NODE_ENV"], effects: "annotate", sandbox: true, agent: "read" });
    expect(existsSync(join(project, "logs"))).toBe(true);
    expect(resolvePolicy(withGrants("untrusted", [], project)).effects).toBe("restrict");
  });

  it("effects:continue and write:tool-target are Claude Code's: a module given one is refused by name", () => {
    for (const grant of ["effects:continue", "write:tool-target"]) {
      expect(() => withGrants("untrusted", ["write:logs", grant], tempDir("hookbox-with-grants-"))).toThrow(new GrantError(`${grant} is given to Claude Code hooks only, not to a pi module`));
    }
  });
});

describe.skipIf(!sandboxAvailability().ok)("grants for a pi project module, in pi 0.73.1's loader", { timeout: 120_000 }, () => {
  it("without write:logs its log write is refused in the sandbox; with write:logs and env:<NAME> in its approval it writes logs/ and reads the variable", async () => {
    process.env.GRANTS_TEST_VALUE = "granted-value";
    const w = world();
    w.approve();
    const bare = await call(w);
    expect(bare.reason).toMatch(/^refused E[A-Z_]+ env=$/);
    expect(existsSync(join(w.project, "logs"))).toBe(false);
    w.approve("write:logs", "env:GRANTS_TEST_VALUE");
    const granted = await call(w);
    expect(granted.errors).toEqual([]);
    expect(granted.reason).toBe("wrote env=granted-value");
    expect(readFileSync(join(w.project, "logs", "calls.log"), "utf8")).toBe("bash\n");
  });

  it("a grant only a Claude Code hook can take (write:tool-target) in a module's approval: not loaded, named", async () => {
    const w = world();
    w.approve("write:tool-target");
    const run = await call(w);
    expect(run.reason).toContain("its approval carries a grant it cannot be given (write:tool-target is given to Claude Code hooks only, not to a pi module)");
  });

  it("without write:logs, what pi shows ends with the exact command that grants it, once however many calls are refused", async () => {
    const w = world();
    w.approve("env:GRANTS_TEST_VALUE");
    const first = await call(w);
    await first.runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "2", input: { command: "ls" } });
    expect(first.reason).toBe("refused ERR_ACCESS_DENIED env=");
    const shown = first.notified.filter((n) => n.includes("logs"));
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatch(/: FileSystemWrite of .*\/logs\/calls\.log was denied by the module's policy \(ERR_ACCESS_DENIED\)\. /);
    expect(shown[0]!.endsWith(`Approve the module with the grant write:logs: npx hookbox trust ${w.project} --grant env:GRANTS_TEST_VALUE --grant write:logs`)).toBe(true);
  });
});

/** A context extension as published (pi's claude-rules.ts, plan-mode): the project's notes in what the model reads. */
const notesModule = (project: string) => `import { readFileSync } from "node:fs";
import { join } from "node:path";
export default (pi: any) => {
  const notes = () => readFileSync(join(${JSON.stringify(project)}, ".pi", "extensions", "NOTES.md"), "utf8").trim();
  pi.on("before_agent_start", (event: any) => ({
    message: { customType: "project-notes", content: notes(), display: true },
    systemPrompt: event.systemPrompt + "\\n\\n## Project notes\\n" + notes(),
  }));
  pi.on("context", (event: any) => ({ messages: [...event.messages, { role: "custom", customType: "project-notes", content: notes(), display: false, timestamp: 0 }] }));
  pi.on("tool_call", async (_e: any, ctx: any) => {
    const ran = await pi.exec("uv", ["--version"]).catch((err: any) => ({ code: -1, stderr: String(err) }));
    return ran.code === 0 ? undefined : { block: true, reason: "uv refused" };
  });
};
`;

describe.skipIf(!sandboxAvailability().ok)("effects:annotate for a pi project module, in pi 0.73.1's loader and runner", { timeout: 120_000 }, () => {
  function notesWorld() {
    const root = tempDir("hookbox-extension-annotate-");
    const project = join(root, "project");
    const module = writeHook(project, ".pi/extensions/notes.ts", notesModule(project));
    writeHook(project, ".pi/extensions/NOTES.md", "Run the tests with npm test.\n");
    mkdirSync(join(root, "config"));
    mkdirSync(join(root, "agent"));
    const approvals = { dir: join(root, "config") };
    const approve = (...grants: string[]) => new ApprovalStore(approvals).approve(project, [fingerprint(module, "untrusted")], { [module]: grants });
    return { project, module, approvals, approve, agentDir: join(root, "agent") };
  }
  const user = { role: "user", content: [{ type: "text", text: "hello" }], timestamp: 1 };

  it("without effects:annotate its notes are refused (effect_refused), and pi shows each refusal once, ending with the command that grants it", async () => {
    const w = notesWorld();
    w.approve();
    const { runner, errors, notified } = await inPi(w);
    const started = await runner.emitBeforeAgentStart("do it", undefined, "You are pi.");
    expect(started?.messages ?? []).toEqual([]);
    expect(started?.systemPrompt).toBeUndefined();
    expect(await runner.emitContext([user])).toEqual([user]);
    await runner.emitBeforeAgentStart("again", undefined, "You are pi.");
    const refused = notified.filter((n) => n.includes(": effect_refused in "));
    expect(refused.map((n) => /effect_refused in (\w+)/.exec(n)![1])).toEqual(["before_agent_start", "context"]);
    for (const line of refused) expect(line.endsWith(`Approve the module with the grant effects:annotate: npx hookbox trust ${w.project} --grant effects:annotate`)).toBe(true);
    expect(errors).toEqual([]);
  });

  it("with effects:annotate the same module's notes reach what the model reads, as in pi's own process; a pi.exec of a program not granted is refused naming exec:<program>", async () => {
    const w = notesWorld();
    w.approve("effects:annotate");
    const { runner, errors, notified } = await inPi(w);
    const started = await runner.emitBeforeAgentStart("do it", undefined, "You are pi.");
    expect(started.systemPrompt).toBe("You are pi.\n\n## Project notes\nRun the tests with npm test.");
    expect(started.messages).toEqual([{ customType: "project-notes", content: "Run the tests with npm test.", display: true }]);
    const context = await runner.emitContext([user]);
    expect(context).toEqual([user, { role: "custom", customType: "project-notes", content: "Run the tests with npm test.", display: false, timestamp: 0 }]);
    const blocked = await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "1", input: { command: "ls" } });
    expect(blocked?.reason).toBe("uv refused");
    expect(notified.filter((n) => n.includes("effect_refused"))).toEqual([]);
    // What the model reads beside pi's own is said to the person, once per event.
    expect(notified.filter((n) => n.includes("adds context the model reads"))).toEqual([
      `hookbox: ${w.module} adds context the model reads (effects:annotate): result.message, result.systemPrompt during before_agent_start, at most 4000 characters each; shown once`,
      `hookbox: ${w.module} adds context the model reads (effects:annotate): result.messages during context, at most 4000 characters each; shown once`,
    ]);
    const exec = notified.filter((n) => n.includes('pi.exec("uv")'));
    expect(exec).toHaveLength(1);
    expect(exec[0]!.endsWith(`Approve the module with the grant exec:uv: npx hookbox trust ${w.project} --grant effects:annotate --grant exec:uv`)).toBe(true);
    expect(errors).toEqual([]);
  });
});

describe.skipIf(!sandboxAvailability().ok)("network:<host> for a pi project module, in pi 0.73.1's loader and runner", { timeout: 120_000 }, () => {
  const servers: Server[] = [];
  afterEach(async () => { await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r)))); });
  const listen = async () => {
    const server = createServer((req, res) => res.end(`hello ${req.url}`));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return (server.address() as AddressInfo).port;
  };

  it("its granted host answers; another is refused by its proxy, and pi shows it once, ending with the command that grants it", async () => {
    const [allowed, other] = [await listen(), await listen()];
    const root = tempDir("hookbox-extension-network-");
    const project = join(root, "project");
    const module = writeHook(project, ".pi/extensions/net.ts", readFileSync(join(import.meta.dirname, "..", "fixtures", "hostile", "reaches-the-network.ts"), "utf8"));
    mkdirSync(join(root, "config"));
    mkdirSync(join(root, "agent"));
    const approvals = { dir: join(root, "config") };
    new ApprovalStore(approvals).approve(project, [fingerprint(module, "untrusted")], { [module]: [`network:127.0.0.1:${allowed}`] });
    const { runner, notified } = await inPi({ project, agentDir: join(root, "agent"), approvals });
    const reach = async (url: string) => (await runner.emitToolCall({ type: "tool_call", toolName: "net", toolCallId: "c", input: { how: "http", url } }))?.reason;
    expect(await reach(`http://127.0.0.1:${allowed}/a`)).toBe("200 hello /a");
    expect(await reach(`http://127.0.0.1:${other}/b`)).toContain("refused (HTTP/1.1 403 Forbidden)");
    expect(await reach(`http://127.0.0.1:${other}/c`)).toContain("refused (HTTP/1.1 403 Forbidden)");
    const shown = notified.filter((n) => n.includes(`a connection to 127.0.0.1:${other}`));
    expect(shown).toHaveLength(1);
    expect(shown[0]!.endsWith(`Approve the module with the grant network:127.0.0.1:${other}: npx hookbox trust ${project} --grant network:127.0.0.1:${allowed} --grant network:127.0.0.1:${other}`)).toBe(true);
  });
});


describe.skipIf(!sandboxAvailability().ok)("a pi project module's written grant cannot plant what git or an agent takes up, in pi 0.73.1's loader and runner", { timeout: 120_000 }, () => {
  /** The module `fixture` (fixtures/hostile/) as the project's, approved under `policy` with write:logs, in pi; `mode`: its isolation. */
  async function planted(fixture: string, mode: { policy: "untrusted" } | { policy: "confined"; isolation: "process" | "worker" }, prepare?: (project: string) => void, grants = ["write:logs"]) {
    const root = tempDir("hookbox-extension-planted-");
    const project = join(root, "project");
    const module = writeHook(project, ".pi/extensions/mod.ts", readFileSync(join(import.meta.dirname, "..", "fixtures", "hostile", `${fixture}.ts`), "utf8"));
    mkdirSync(join(project, "logs"));
    prepare?.(project);
    mkdirSync(join(root, "config"));
    mkdirSync(join(root, "agent"));
    const approvals = { dir: join(root, "config") };
    new ApprovalStore(approvals).approve(project, [fingerprint(module, mode.policy)], { [module]: grants });
    const isolation = "isolation" in mode ? { isolation: mode.isolation } : {};
    const inside = await pi.inPi(isolateDiscovered({ cwd: project, agentDir: join(root, "agent"), piRoot: pi.root, approvals, project: mode.policy, ...isolation }), project, { notify: true });
    const call = async (id: string) => (await inside.runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: id, input: { command: "ls" } }));
    return { project, module, call, ...inside };
  }
  const modes = [{ policy: "untrusted" }, { policy: "confined", isolation: "process" }, { policy: "confined", isolation: "worker" }] as const;

  for (const mode of modes) {
    const named = "isolation" in mode ? `${mode.isolation} isolation` : "the sandbox";
    it(`in ${named}: a module that plants a skill and a CLAUDE.md in its granted folder: the call blocked (effect_refused), both removed, the module disabled; its log stays`, async () => {
      const m = await planted("plants-a-skill-in-its-granted-folder", mode);
      const first = await m.call("1");
      expect(first?.block).toBe(true);
      expect(String(first?.reason)).toContain("effect_refused");
      expect(String(first?.reason)).toContain(`made ${join(m.project, "logs", ".claude")}, ${join(m.project, "logs", "CLAUDE.md")} in a folder it may write during tool_call`);
      expect(String(first?.reason)).toContain("hookbox ended the module (disabled until it is reloaded), removed it, and did not apply its answer");
      expect(existsSync(join(m.project, "logs", ".claude"))).toBe(false);
      expect(existsSync(join(m.project, "logs", "CLAUDE.md"))).toBe(false);
      expect(readFileSync(join(m.project, "logs", "calls.log"), "utf8")).toBe("call\n");
      const second = await m.call("2");
      expect(second?.block).toBe(true);
      expect(String(second?.reason)).toContain("disabled");
      expect(readFileSync(join(m.project, "logs", "calls.log"), "utf8")).toBe("call\n");
    });

    it(`in ${named}: a module that makes a git repository with a core.fsmonitor in its granted folder: the call blocked (effect_refused), the repository removed`, async () => {
      const m = await planted("plants-git-config-in-its-granted-folder", mode);
      const first = await m.call("1");
      expect(first?.block).toBe(true);
      expect(String(first?.reason)).toContain("effect_refused");
      expect(String(first?.reason)).toContain(`made ${join(m.project, "logs", "archive", ".git")} in a folder it may write`);
      expect(existsSync(join(m.project, "logs", "archive", ".git"))).toBe(false);
      expect(existsSync(join(m.project, "logs", "archive"))).toBe(true);
    });
  }

  it("a granted folder over the walk's bound: in the sandbox the module does not load (load_failed), in process isolation its call is not made (crashed); each names the folder and the bound", async () => {
    const many = (project: string) => {
      mkdirSync(join(project, "logs", "many"));
      for (let i = 0; i < WALK_BOUND; i++) writeFileSync(join(project, "logs", "many", String(i)), "");
    };
    const said = `logs holds more than ${WALK_BOUND} entries, which hookbox reads before and after each run for names git or an agent takes up (.git, .claude, CLAUDE.md…); grant a smaller folder`;
    const boxed = await planted("plants-git-config-in-its-granted-folder", modes[0], many);
    const notLoaded = await boxed.call("1");
    expect(notLoaded?.block).toBe(true);
    expect(JSON.stringify(boxed.errors)).toContain("load_failed");
    expect(JSON.stringify(boxed.errors)).toContain(said);
    const processed = await planted("plants-git-config-in-its-granted-folder", modes[1], many);
    const notCalled = await processed.call("1");
    expect(notCalled?.block).toBe(true);
    expect(String(notCalled?.reason)).toContain("(crashed)");
    expect(String(notCalled?.reason)).toContain(`it was not called: ${join(processed.project, said)}`);
    expect(existsSync(join(processed.project, "logs", "calls.log"))).toBe(false);
  });

  it("in the sandbox: a module's pi.exec program that outlives it and keeps planting is killed with it, and what they made stays removed", async () => {
    const m = await planted("plants-through-a-program-that-outlives-it", modes[0], undefined, ["write:logs", "exec:sh"]);
    const first = await m.call("1");
    expect(first?.block).toBe(true);
    expect(String(first?.reason)).toContain("effect_refused");
    expect(String(first?.reason)).toContain(join(m.project, "logs", "CLAUDE.md"));
    await new Promise((r) => setTimeout(r, 300));
    expect(existsSync(join(m.project, "logs", ".claude"))).toBe(false);
    expect(existsSync(join(m.project, "logs", "CLAUDE.md"))).toBe(false);
  });

  it("in the sandbox: a module cannot change, remove or rename a git config or an AGENTS.md that was there when it started; the same module's log write works (control)", async () => {
    const m = await planted("changes-an-existing-git-config-in-its-granted-folder", modes[0], (project) => {
      mkdirSync(join(project, "logs", "archive", ".git"), { recursive: true });
      writeFileSync(join(project, "logs", "archive", ".git", "config"), "[core]\n\tbare = false\n");
      writeFileSync(join(project, "logs", "AGENTS.md"), "the user's notes\n");
    });
    const run = await m.call("1");
    // The binds refuse the changes (EROFS); a removal or rename Node's permission model refuses first.
    expect(run?.reason).toMatch(/^config:EROFS agents:EROFS remove:(EROFS|EBUSY|ERR_ACCESS_DENIED) rename:(EBUSY|ERR_ACCESS_DENIED)$/);
    expect(readFileSync(join(m.project, "logs", "archive", ".git", "config"), "utf8")).toBe("[core]\n\tbare = false\n");
    expect(readFileSync(join(m.project, "logs", "AGENTS.md"), "utf8")).toBe("the user's notes\n");
    expect(readFileSync(join(m.project, "logs", "calls.log"), "utf8")).toBe("call\n");
    expect(m.errors).toEqual([]);
  });
});
