/**
 * isolateDiscovered inside pi's own extension loader and runner (pi 0.73.1, the installed package):
 * it finds what pi would load by itself with pi's own package manager (folders, settings paths,
 * exclusion patterns), loads each once and none in pi's process, and loads a project's module only
 * once approved; until then every tool call is blocked naming the module and `npx hookbox trust`.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { approvalCommand, ApprovalStore, fingerprint } from "../src/approval/store.js";
import { isolateDiscovered } from "../src/extension.js";
import { tempDir, writeHook } from "./helpers/files.js";
import { piLoader } from "./support/pi-loader.js";
import { ROOT, until } from "./helpers/host.js";

const pi = piLoader();

/** A module that registers the tool `who_<name>` (a second load would be refused as a taken name) and answers `who_<name>` tool calls with where it runs. */
const reporting = (name: string) => `import { isMainThread } from "node:worker_threads";
export default (pi: any) => {
  pi.registerTool({ name: "who_${name}", label: "who", description: "who", parameters: { type: "object", properties: {} },
    execute: async () => ({ content: [{ type: "text", text: "${name}" }], details: {} }) });
  pi.on("tool_call", (e: any) => e.toolName === "who_${name}" ? { block: true, reason: JSON.stringify({ name: "${name}", pid: process.pid, main: isMainThread }) } : undefined);
};
`;

/** A project and an agent folder: the user's global extension, the project's `.pi/extensions/` ones, and its settings. */
function world() {
  const root = tempDir("hookbox-discovered-");
  const project = join(root, "project");
  const agentDir = join(root, "agent");
  writeHook(agentDir, "extensions/mine.ts", reporting("mine"));
  writeHook(project, ".pi/extensions/theirs.ts", reporting("theirs"));
  writeHook(project, ".pi/extensions/excluded/index.ts", reporting("excluded"));
  writeHook(project, "lib/listed.ts", reporting("listed"));
  // The same file twice: by the settings path and through a link in the folder pi scans.
  symlinkSync(join(project, "lib/listed.ts"), join(project, ".pi/extensions/listed-link.ts"));
  writeFileSync(join(project, ".pi/settings.json"), JSON.stringify({ extensions: ["../lib/listed.ts", "-extensions/excluded/index.ts"] }));
  mkdirSync(join(root, "config"));
  return { root, project, agentDir, approvals: { dir: join(root, "config") } };
}

const inPi = pi.inPi;

const who = (name: string) => ({ type: "tool_call", toolName: `who_${name}`, toolCallId: "1", input: {} });

describe("isolateDiscovered in pi 0.73.1", { timeout: 120_000 }, () => {
  it("unapproved: the user's module loads isolated (confined, a worker); the project's are not loaded and every tool call is blocked naming each and the approval command", async () => {
    const w = world();
    const { runner, errors, extension } = await inPi(isolateDiscovered({ cwd: w.project, agentDir: w.agentDir, piRoot: pi.root, approvals: w.approvals }), w.project);
    expect([...extension.tools.keys()]).toEqual(["who_mine"]);
    expect(errors.join("\n")).toContain("(not_approved)");
    for (const name of ["mine", "theirs", "listed"]) {
      const result = await runner.emitToolCall(who(name));
      expect(result.block).toBe(true);
      expect(result.reason).toContain(join(w.project, ".pi/extensions/theirs.ts"));
      expect(result.reason).toContain(join(w.project, "lib/listed.ts"));
      expect(result.reason).toContain(`run: ${approvalCommand(w.project)}`);
      expect(result.reason).not.toContain("excluded");
    }
  });

  it("approved: every module pi would load is loaded once (a link to a listed file and the settings path are one), none in pi's thread, none excluded; the project's in the sandbox", async () => {
    const w = world();
    const theirs = join(w.project, ".pi/extensions/theirs.ts");
    const listed = join(w.project, "lib/listed.ts");
    new ApprovalStore(w.approvals).approve(w.project, [fingerprint(theirs, "untrusted"), fingerprint(listed, "untrusted")]);
    const { runner, errors, extension } = await inPi(isolateDiscovered({ cwd: w.project, agentDir: w.agentDir, piRoot: pi.root, approvals: w.approvals }), w.project);
    expect(errors).toEqual([]);
    expect([...extension.tools.keys()].sort()).toEqual(["who_listed", "who_mine", "who_theirs"]);
    const seen = [];
    for (const name of ["mine", "theirs", "listed"]) {
      const result = await runner.emitToolCall(who(name));
      seen.push(JSON.parse(result.reason));
    }
    for (const s of seen) expect(s.pid !== process.pid || s.main === false).toBe(true);
    // The user's under `confined` (a worker of this process); the project's under `untrusted` (the sandbox: another process).
    expect(seen.find((s) => s.name === "mine")).toMatchObject({ main: false });
    for (const name of ["theirs", "listed"]) expect(seen.find((s) => s.name === name).pid).not.toBe(process.pid);
  });

  it("one byte of a project file changed after approval: blocked again, naming the file", async () => {
    const w = world();
    const theirs = join(w.project, ".pi/extensions/theirs.ts");
    const listed = join(w.project, "lib/listed.ts");
    new ApprovalStore(w.approvals).approve(w.project, [fingerprint(theirs, "untrusted"), fingerprint(listed, "untrusted")]);
    writeFileSync(listed, `${reporting("listed")} `);
    const { runner, extension } = await inPi(isolateDiscovered({ cwd: w.project, agentDir: w.agentDir, piRoot: pi.root, approvals: w.approvals }), w.project);
    expect([...extension.tools.keys()].sort()).toEqual(["who_mine", "who_theirs"]);
    const result = await runner.emitToolCall(who("theirs"));
    expect(result.reason).toContain(`${listed} differs`);
    expect(result.reason).toContain(approvalCommand(w.project));
  });

  it("an approved project module changed on disk and then crashed is not restarted from the new file: not_approved naming the file, said on stderr as pi says extension errors", async () => {
    const w = world();
    const theirs = join(w.project, ".pi/extensions/theirs.ts");
    const listed = join(w.project, "lib/listed.ts");
    const crashy = writeHook(w.project, ".pi/extensions/crashy.ts", readFileSync(join(ROOT, "fixtures/hostile/crashes-after-its-file-changed.ts"), "utf8"));
    new ApprovalStore(w.approvals).approve(w.project, [theirs, listed, crashy].map((m) => fingerprint(m, "untrusted")));
    const { runner, errors: piErrors } = await inPi(isolateDiscovered({ cwd: w.project, agentDir: w.agentDir, piRoot: pi.root, approvals: w.approvals }), w.project);
    expect(piErrors).toEqual([]);
    const errors: string[] = [];
    const said = vi.spyOn(console, "error").mockImplementation((line: unknown) => { errors.push(String(line)); });
    onTestFinished(() => said.mockRestore());
    writeFileSync(crashy, `export default function (pi: any) { pi.on("tool_call", () => ({ block: true, reason: "new code ran" })); }\n`);
    await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "1", input: { command: "ls" } });
    await until(() => errors.some((e) => e.includes(": not_approved in load: ")), 15_000, "the restart refused");
    expect(errors.join("\n")).toContain(`Extension error (${crashy}): hookbox: ${crashy}: crashed`);
    expect(errors.join("\n")).toContain(`Extension error (${crashy}): hookbox: ${crashy}: not_approved in load: `);
    expect(errors.join("\n")).toContain(`it changed since you approved it (${crashy} differs)`);
    const after = await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "2", input: { command: "ls" } });
    expect(JSON.stringify(after ?? null)).not.toContain("new code ran");
  });

  it("a project policy wider than the approved one (confined asked, untrusted approved) is blocked again, naming the command with --policy", async () => {
    const w = world();
    const theirs = join(w.project, ".pi/extensions/theirs.ts");
    const listed = join(w.project, "lib/listed.ts");
    new ApprovalStore(w.approvals).approve(w.project, [fingerprint(theirs, "untrusted"), fingerprint(listed, "untrusted")]);
    const { runner, extension } = await inPi(isolateDiscovered({ cwd: w.project, agentDir: w.agentDir, piRoot: pi.root, approvals: w.approvals, project: "confined" }), w.project);
    expect([...extension.tools.keys()]).toEqual(["who_mine"]);
    const result = await runner.emitToolCall(who("mine"));
    expect(result.reason).toContain("its policy was untrusted, now confined");
    expect(result.reason).toContain(`${approvalCommand(w.project)} --policy confined`);
  });

  it("a corrupt approvals store loads no project module and blocks, naming the store; the user's module still loads", async () => {
    const w = world();
    writeFileSync(join(w.approvals.dir, "approvals.json"), "[]");
    const { runner, extension } = await inPi(isolateDiscovered({ cwd: w.project, agentDir: w.agentDir, piRoot: pi.root, approvals: w.approvals }), w.project);
    expect([...extension.tools.keys()]).toEqual(["who_mine"]);
    expect((await runner.emitToolCall(who("mine"))).reason).toContain(`the approvals store ${join(w.approvals.dir, "approvals.json")} is corrupt`);
  });

  it("in oh-my-pi's API (pi.pi set) it asks oh-my-pi's own discovery: the user's module runs where its policy is enforced (on this Node host a worker; on Bun a process, test/bun and e2e-discovered-omp), the project's only once approved, in the sandbox", async () => {
    const w = world();
    const theirs = writeHook(w.project, ".omp/extensions/theirs.ts", reporting("theirs"));
    const mine = join(w.agentDir, "extensions/mine.ts");
    const fake = () => {
      const handlers = new Map<string, (...args: any[]) => any>();
      const tools: string[] = [];
      const api = {
        pi: { discoverExtensionPaths: async (_configured: string[], cwd: string) => { expect(cwd).toBe(w.project); return [theirs, mine]; }, getAgentDir: () => w.agentDir },
        on: (event: string, handler: any) => handlers.set(event, handler), sendMessage() {}, appendEntry() {},
        registerTool: (tool: { name: string }) => tools.push(tool.name), registerCommand() {}, registerFlag() {}, registerShortcut() {}, getFlag() {},
      };
      return { api, handlers, tools };
    };
    const ctx = { hasUI: false, cwd: w.project };
    const options = { cwd: w.project, approvals: w.approvals };

    const before = fake();
    await isolateDiscovered(options)(before.api as never);
    expect(before.tools).toEqual(["who_mine"]);
    const blocked = await before.handlers.get("tool_call")!(who("mine"), ctx);
    expect(blocked.reason).toContain(theirs);
    expect(blocked.reason).toContain(`run: ${approvalCommand(w.project)}`);
    await before.handlers.get("session_shutdown")?.({ type: "session_shutdown" }, ctx);

    new ApprovalStore(w.approvals).approve(w.project, [fingerprint(theirs, "untrusted")]);
    const after = fake();
    await isolateDiscovered(options)(after.api as never);
    expect(after.tools.sort()).toEqual(["who_mine", "who_theirs"]);
    const seen = async (name: string) => JSON.parse((await after.handlers.get("tool_call")!(who(name), ctx)).reason);
    expect(await seen("mine")).toMatchObject({ pid: process.pid, main: false });
    expect((await seen("theirs")).pid).not.toBe(process.pid);
    await after.handlers.get("session_shutdown")?.({ type: "session_shutdown" }, ctx);
  });
});

