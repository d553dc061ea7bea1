/** The CLI's policy flags and scripted UI, run as a child process over real workers. */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { hookbox } from "./cli-run.js";
import { tempDir, writeHook } from "./helpers/files.js";
import { sandboxUnavailable, sayWhySkipped } from "./support/sandbox.js";

const AGENT_START = ["--event", "agent_start"];
const RM = JSON.stringify({ toolName: "bash", toolCallId: "1", input: { command: "rm -rf build" } });
const noSandbox = await sandboxUnavailable();
sayWhySkipped("the CLI's sandbox tests", noSandbox);

/** A hook that reads the file named by a tool call's `path` and blocks with its text. */
const READS_PATH = `import { readFileSync } from "node:fs";
export default (pi: any) => { pi.on("tool_call", (e: any) => ({ block: true, reason: readFileSync(e.input.path, "utf8").trim() })); };
`;

function gitRepo(): string {
  const dir = tempDir();
  execFileSync("git", ["init", "-q"], { cwd: dir });
  writeHook(dir, "changed.txt", "x\n");
  return dir;
}

describe("hookbox policy flags", () => {
  it("--allow-exec <program> lets pi.exec run it (policy.exec.allow); without it the call is refused and reported", async () => {
    const repo = gitRepo();
    const hook = `${process.cwd()}/examples/hooks/git-dirty-guard.ts`;
    const refused = await hookbox(["emit", hook, ...AGENT_START, "--cwd", repo, "--json"]);
    expect(refused.code).toBe(0);
    const errors = JSON.parse(refused.stdout).errors;
    expect(errors.map((e: { code: string }) => e.code)).toEqual(["handler_threw"]);
    expect(errors[0].error).toContain('allow "git" in its policy');
    const allowed = await hookbox(["emit", hook, ...AGENT_START, "--cwd", repo, "--allow-exec", "git", "--confirm", "yes", "--json"]);
    const doc = JSON.parse(allowed.stdout);
    expect(doc.errors).toEqual([]);
    expect(doc.prompts).toEqual([
      { kind: "status", title: "git", message: "1 uncommitted" },
      { kind: "notify", title: "warning", message: "1 file(s) have uncommitted changes" },
    ]);
  });

  it("--allow-read <path> lets a confined hook read a file outside its folder (policy.fsRead); without it the read is denied", async () => {
    const hooks = tempDir();
    const data = tempDir();
    const hook = writeHook(hooks, "reads.ts", READS_PATH);
    const secret = writeHook(data, "notes.txt", "the notes\n");
    const payload = JSON.stringify({ toolName: "read", toolCallId: "1", input: { path: secret } });
    const denied = await hookbox(["emit", hook, "--event", "tool_call", "--payload", payload, "--json"]);
    const d = JSON.parse(denied.stdout);
    expect(d.blocked).toBe(true);
    expect(d.errors.map((e: { code: string }) => e.code)).toEqual(["handler_threw"]);
    expect(d.errors[0].error).toMatch(/ERR_ACCESS_DENIED|Access to this API has been restricted/);
    const allowed = await hookbox(["emit", hook, "--event", "tool_call", "--payload", payload, "--allow-read", data, "--json"]);
    expect(JSON.parse(allowed.stdout)).toMatchObject({ blocked: true, reason: "the notes", errors: [] });
    const trusted = await hookbox(["emit", hook, "--event", "tool_call", "--payload", payload, "--policy", "trusted", "--json"]);
    expect(JSON.parse(trusted.stdout)).toMatchObject({ blocked: true, reason: "the notes", errors: [] });
  });

  it("--env <NAME> passes the host's variable to the hook (policy.env); a secret-looking name is withheld without it", async () => {
    const hook = writeHook(tempDir(), "env.ts", `export default (pi: any) => { pi.on("tool_call", () => ({ block: true, reason: String(process.env.DEPLOY_TOKEN) })); };\n`);
    const env = { DEPLOY_TOKEN: "t-123" };
    const without = await hookbox(["emit", hook, "--event", "tool_call", "--payload", RM, "--json"], { env });
    expect(JSON.parse(without.stdout).reason).toBe("undefined");
    const withIt = await hookbox(["emit", hook, "--event", "tool_call", "--payload", RM, "--env", "DEPLOY_TOKEN", "--json"], { env });
    expect(JSON.parse(withIt.stdout).reason).toBe("t-123");
  });

  it.each([
    [["--policy", "everything"], /^hookbox emit: --policy must be one of [a-z, ]*trusted[a-z, ]*, got "everything"/],
    [["--isolation", "vm"], /^hookbox emit: --isolation must be "worker", "process" or "sandbox", got "vm"/],
    [["--confirm", "maybe"], /^hookbox emit: --confirm must be "yes" or "no", got "maybe"/],
    [["--ui", "/nonexistent/answers.json"], /^hookbox emit: cannot read --ui \/nonexistent\/answers\.json/],
  ])("rejects %j with exit 2, naming what is accepted", async (extra, message) => {
    const r = await hookbox(["emit", "examples/hooks/confirm-destructive.ts", "--event", "tool_call", "--payload", RM, ...extra]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});

describe("hookbox presets and isolation modes", () => {
  /** A hook that blocks every tool call with its HOME. */
  const homeHook = () => writeHook(tempDir(), "home.ts", `export default (pi: any) => { pi.on("tool_call", () => ({ block: true, reason: String(process.env.HOME) })); };\n`);
  /** A hook that blocks every tool call with its uid: the sandbox runs it as the overflow id (65534), a worker as the user. */
  const uidHook = () => writeHook(tempDir(), "uid.ts", `export default (pi: any) => { pi.on("tool_call", () => ({ block: true, reason: \`uid \${process.getuid?.()}\` })); };\n`);

  it.skipIf(noSandbox)("--policy untrusted runs the hook in the OS sandbox without --isolation (the preset implies it)", async () => {
    const r = await hookbox(["emit", uidHook(), "--event", "tool_call", "--payload", RM, "--policy", "untrusted", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ blocked: true, reason: "uid 65534", errors: [], loadErrors: [] });
  });

  it.skipIf(noSandbox)("--isolation sandbox runs a confined hook in the OS sandbox", async () => {
    const r = await hookbox(["emit", uidHook(), "--event", "tool_call", "--payload", RM, "--isolation", "sandbox", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ blocked: true, reason: "uid 65534", errors: [], loadErrors: [] });
  });

  it("--policy confined is the default: the hook runs in a worker with the host's HOME", async () => {
    const hook = homeHook();
    const named = await hookbox(["emit", hook, "--event", "tool_call", "--payload", RM, "--policy", "confined", "--json"]);
    const unnamed = await hookbox(["emit", hook, "--event", "tool_call", "--payload", RM, "--json"]);
    expect(JSON.parse(named.stdout)).toMatchObject({ blocked: true, reason: String(process.env.HOME), errors: [] });
    expect(JSON.parse(unnamed.stdout).reason).toBe(JSON.parse(named.stdout).reason);
  });

  it("--policy untrusted with --isolation worker fails the hook's load as load_failed (exit 1), never runs it weaker", async () => {
    const r = await hookbox(["emit", homeHook(), "--event", "tool_call", "--payload", RM, "--policy", "untrusted", "--isolation", "worker", "--json"]);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    // A module that did not load blocks every tool call in an agent (fail closed), and emit says so.
    expect(doc.blocked).toBe(true);
    expect(doc.loadErrors.map((e: { code: string }) => e.code)).toEqual(["load_failed"]);
    expect(doc.loadErrors[0].error).toContain('it needs isolation "sandbox"');
  });
});

describe("hookbox scripted UI", () => {
  it("--confirm answers ctx.ui.confirm, sets hasUI, and shows the prompt with its answer", async () => {
    const yes = await hookbox(["emit", "examples/hooks/confirm-destructive.ts", "--event", "tool_call", "--payload", RM, "--confirm", "yes"]);
    expect(yes.code).toBe(0);
    expect(yes.stdout).toBe('ui        confirm   "Destructive command" Allow: rm -rf build → yes\nevent     tool_call\nblocked   no\nerrors    none\n');
    const no = await hookbox(["emit", "examples/hooks/confirm-destructive.ts", "--event", "tool_call", "--payload", RM, "--confirm", "no", "--json"]);
    expect(JSON.parse(no.stdout)).toMatchObject({ blocked: true, reason: "denied by the user", prompts: [{ kind: "confirm", title: "Destructive command", answer: false }] });
  });

  it("--ui answers.json answers each kind of prompt in order, the last answer repeating, and every prompt is shown", async () => {
    const dir = tempDir();
    const hook = writeHook(dir, "asks.ts", `export default (pi: any) => { pi.on("tool_call", async (_e: any, ctx: any) => {
      const a = await ctx.ui.confirm("first", "m1"); const b = await ctx.ui.confirm("second", "m2"); const c = await ctx.ui.confirm("third", "m3");
      const pick = await ctx.ui.select("pick", ["red", "green", "blue"]); const name = await ctx.ui.input("name");
      return { block: true, reason: JSON.stringify([a, b, c, pick, name]) };
    }); };\n`);
    const answers = writeHook(dir, "answers.json", JSON.stringify({ confirm: ["yes", "no"], select: [3], input: "Ada" }));
    const r = await hookbox(["emit", hook, "--event", "tool_call", "--payload", RM, "--ui", answers, "--json"]);
    const doc = JSON.parse(r.stdout);
    expect(doc.reason).toBe(JSON.stringify([true, false, false, "blue", "Ada"]));
    expect(doc.prompts.map((p: { title: string; answer: unknown }) => [p.title, p.answer])).toEqual([
      ["first", true], ["second", false], ["third", false], ["pick", "blue"], ["name", "Ada"],
    ]);
  });

  it("without a UI flag ctx.hasUI is false and the hook takes its no-UI branch", async () => {
    const r = await hookbox(["emit", "examples/hooks/confirm-destructive.ts", "--event", "tool_call", "--payload", RM, "--json"]);
    expect(JSON.parse(r.stdout)).toMatchObject({ blocked: true, reason: "destructive command blocked (no UI to confirm): rm -rf build", prompts: [] });
  });
});
