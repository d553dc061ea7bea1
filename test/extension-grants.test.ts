/**
 * Grants for a pi project module (src/policy/grants.ts `withGrants`, src/extension/discovered.ts),
 * in pi 0.73.1's own loader and runner: the approval's `write:<folder>` and `env:<NAME>` reach the
 * module's sandbox through its policy, only once approved as it is; a grant only a Claude Code hook
 * can take is refused by name.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalStore, fingerprint } from "../src/approval/store.js";
import { isolateDiscovered } from "../src/extension.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { tempDir, writeHook } from "./helpers/files.js";
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

async function call(w: ReturnType<typeof world>) {
  const { runner, errors } = await pi.inPi(isolateDiscovered({ cwd: w.project, agentDir: w.agentDir, piRoot: pi.root, approvals: w.approvals }), w.project);
  const result = await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "1", input: { command: "ls" } });
  return { reason: String(result?.reason ?? ""), errors };
}

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
});
