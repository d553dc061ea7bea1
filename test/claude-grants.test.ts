/**
 * Grants for a project's Claude Code hook (src/policy/grants.ts, src/claude/granted.ts,
 * src/claude/project-run.ts), with the real router, the real sandbox and real files: each grant
 * opens what its row in docs/approvals.md says and nothing else, and without it the hook is refused
 * (or its write discarded) with the exact `hookbox trust … --grant …` line, reported once per hook
 * and grant, even when the hook's script hides its own error.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { recordingLayerAvailable } from "../src/claude/granted.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { GrantError, parseGrant } from "../src/policy/grants.js";
import { WALK_BOUND } from "../src/policy/planted.js";
import { tempDir } from "./helpers/files.js";
import { claudeProject } from "./support/claude-project.js";

const ok = sandboxAvailability().ok && recordingLayerAvailable();

/** A project whose .claude/hooks/hook.sh is `script`, the hook of `event` (matcher `matcher`). */
const project = (event: string, script: string, matcher?: string) => claudeProject(event, script, { ...(matcher ? { matcher } : {}), prefix: "hookbox-claude-grants-" });

const bash = { tool_name: "Bash", tool_input: { command: "ls" } };

const HOOK = '"$CLAUDE_PROJECT_DIR"/.claude/hooks/hook.sh';

describe("grants are one closed form each", () => {
  it("parses each grant to its one spelling and refuses what no grant can give, by name", () => {
    expect(parseGrant("write:logs/").text).toBe("write:logs");
    expect(parseGrant("write:/p/logs", "/p").text).toBe("write:logs");
    expect(parseGrant("network:PyPI.org").text).toBe("network:pypi.org:443");
    expect(parseGrant("exec:uv").text).toBe("exec:uv");
    for (const bad of ["write:.", "write:..", "write:../x", "write:.git/hooks", "write:.claude", "exec:/bin/sh", "exec:a/b", "env:PATH", "env:BASH_ENV", "effects:substitute", "network:*.com", "read:/"]) {
      expect(() => parseGrant(bad, "/p"), bad).toThrow(GrantError);
    }
  });
});

describe.skipIf(!ok)("a project's Claude Code hook with grants", { timeout: 60_000 }, () => {
  afterEach(() => { delete process.env.GRANTS_TEST_VALUE; });

  it("write:<folder>: a logger hiding its errors is told once, with the trust line; its write is discarded; granted, it writes logs/ and nothing else", async () => {
    const p = project("PreToolUse", "#!/bin/bash\nmkdir -p logs 2>/dev/null\necho call >> logs/hook.log 2>/dev/null\necho x > elsewhere.txt 2>/dev/null\nexit 0\n", "Bash");
    await p.approve();
    const first = await p.route(bash);
    expect(first.code).toBe(0);
    const line = `npx hookbox trust ${p.dir} --grant write:logs`;
    expect(JSON.parse(first.stdout).systemMessage).toContain(`wrote logs: the sandbox discarded the write (reported once). To allow it: ${line}`);
    expect(JSON.parse(first.stdout).systemMessage).toContain("wrote elsewhere.txt: the sandbox discarded the write; a file at the project's root");
    expect(existsSync(join(p.dir, "logs"))).toBe(false);
    expect(existsSync(join(p.dir, "elsewhere.txt"))).toBe(false);
    expect(p.notices()).toContain(line);
    // Once per hook and grant: the second refusal is not said again.
    expect(await p.route(bash)).toEqual({ code: 0, stdout: "", stderr: "" });
    await p.approve("write:logs");
    expect((await p.route(bash)).code).toBe(0);
    expect(readFileSync(join(p.dir, "logs", "hook.log"), "utf8")).toBe("call\n");
    expect(existsSync(join(p.dir, "elsewhere.txt"))).toBe(false);
  });

  it("write:<folder> is never a link out of the project: a logs link to the home folder is not bound, and said", async () => {
    const p = project("PreToolUse", "#!/bin/bash\necho call >> logs/hook.log 2>/dev/null\nexit 0\n", "Bash");
    const outside = join(p.root, "outside");
    mkdirSync(outside);
    symlinkSync(outside, join(p.dir, "logs"));
    await p.approve("write:logs");
    const run = await p.route(bash);
    expect(JSON.parse(run.stdout).systemMessage).toContain("the grant write:logs (logs is not a folder of the project (a link or a file)) was not given on this call");
    expect(existsSync(join(outside, "hook.log"))).toBe(false);
  });

  it("write:tool-target: a formatter changes the file the tool call just wrote, and no other file", async () => {
    const p = project("PostToolUse", "#!/bin/bash\nf=$(sed -n 's/.*\"file_path\":\"\\([^\"]*\\)\".*/\\1/p')\necho formatted > \"$f\" 2>/dev/null\necho tampered > other.ts 2>/dev/null\nexit 0\n", "Write|Edit");
    mkdirSync(join(p.dir, "src"));
    writeFileSync(join(p.dir, "src", "a.ts"), "unformatted\n");
    writeFileSync(join(p.dir, "other.ts"), "mine\n");
    const edit = { tool_name: "Write", tool_input: { file_path: join(p.dir, "src", "a.ts"), content: "unformatted\n" } };
    await p.approve();
    const refused = await p.route(edit);
    expect(JSON.parse(refused.stdout).systemMessage).toContain(`wrote src/a.ts: the sandbox discarded the write (reported once). To allow it: npx hookbox trust ${p.dir} --grant write:tool-target`);
    expect(readFileSync(join(p.dir, "src", "a.ts"), "utf8")).toBe("unformatted\n");
    await p.approve("write:tool-target");
    await p.route(edit);
    expect(readFileSync(join(p.dir, "src", "a.ts"), "utf8")).toBe("formatted\n");
    expect(readFileSync(join(p.dir, "other.ts"), "utf8")).toBe("mine\n");
    // Another call's target is not writable under this call's grant.
    writeFileSync(join(p.dir, "src", "a.ts"), "unformatted\n");
    await p.route({ tool_name: "Write", tool_input: { file_path: join(p.dir, "src", "b.ts") } });
    expect(readFileSync(join(p.dir, "src", "a.ts"), "utf8")).toBe("unformatted\n");
  });

  it("exec:<program>: a program on the user's PATH only is reported missing (command_not_found) with its grant; granted, it is bound and runs", async () => {
    const bin = join(tempDir("hookbox-user-bin-"), "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "fmtr"), "#!/bin/sh\necho fmtr-ran\n");
    chmodSync(join(bin, "fmtr"), 0o755);
    const saved = process.env.PATH;
    process.env.PATH = `${bin}:${saved}`;
    try {
      const p = project("PreToolUse", "#!/bin/bash\nout=$(fmtr 2>/dev/null)\necho \"out=$out\" >&2\nexit 2\n", "Bash");
      await p.approve();
      const missing = await p.route(bash);
      expect(missing.stderr).toContain("out=\n");
      expect(missing.stderr).toContain(`ran fmtr: it is not on the sandbox's PATH (reported once). To allow it: npx hookbox trust ${p.dir} --grant exec:fmtr`);
      await p.approve("exec:fmtr");
      expect((await p.route(bash)).stderr).toBe(`[${HOOK}]: out=fmtr-ran`);
    } finally {
      process.env.PATH = saved;
    }
  });

  it("env:<NAME>: the named variable reaches the hook, no other", async () => {
    process.env.GRANTS_TEST_VALUE = "granted-value";
    const p = project("PreToolUse", "#!/bin/sh\necho \"v=$GRANTS_TEST_VALUE\" >&2\nexit 2\n", "Bash");
    await p.approve();
    expect((await p.route(bash)).stderr).toBe(`[${HOOK}]: v=`);
    await p.approve("env:GRANTS_TEST_VALUE");
    expect((await p.route(bash)).stderr).toBe(`[${HOOK}]: v=granted-value`);
  });

  it("effects:annotate: added context is refused naming the grant; granted, it reaches the model labelled with the hook's name and bounded", async () => {
    const p = project("UserPromptSubmit", `#!/bin/sh\necho '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"branch: main ${"x".repeat(6000)}"}}'\n`);
    await p.approve();
    const refused = await p.route({ prompt: "hi" });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("(effect_refused)");
    expect(refused.stderr).toContain(`To allow it, grant effects:annotate: npx hookbox trust ${p.dir} --grant effects:annotate`);
    await p.approve("effects:annotate");
    const context = JSON.parse((await p.route({ prompt: "hi" })).stdout).hookSpecificOutput.additionalContext as string;
    expect(context.startsWith("[hook .claude/hooks/hook.sh] branch: main")).toBe(true);
    expect(context.length).toBeLessThanOrEqual(4000 + "[hook .claude/hooks/hook.sh] ".length);
  });

  it("effects:continue: a Stop gate's block is refused naming the grant; granted, it keeps the agent going at most 3 times a session", async () => {
    const p = project("Stop", "#!/bin/sh\necho 'tests fail: fix them' >&2\nexit 2\n");
    await p.approve();
    const refused = await p.route({ stop_hook_active: false });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`--grant effects:continue`);
    await p.approve("effects:continue");
    for (let i = 0; i < 3; i++) expect(await p.route({ stop_hook_active: i > 0 })).toEqual({ code: 2, stdout: "", stderr: "[hook .claude/hooks/hook.sh] tests fail: fix them" });
    const bounded = await p.route({ stop_hook_active: true });
    expect(bounded.code).toBe(1);
    expect(bounded.stderr).toContain("kept the agent going 3 times this session");
  });

  it("network:<host>: the granted host and port are reached through hookbox's proxy; another host is refused and reported with its grant", async () => {
    const server = createServer((_req, res) => res.end("hello-from-host"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const p = project("PreToolUse", `#!/bin/sh\nout=$(curl -s --max-time 5 http://127.0.0.1:${port}/ 2>/dev/null)\nother=$(curl -s --max-time 5 http://localhost:${port}/ 2>/dev/null)\necho "out=$out other=$other" >&2\nexit 2\n`, "Bash");
      await p.approve();
      expect((await p.route(bash)).stderr).toBe(`[${HOOK}]: out= other=`);
      await p.approve(`network:127.0.0.1:${port}`);
      const reached = await p.route(bash);
      expect(reached.stderr).toContain("out=hello-from-host other=hookbox: localhost");
      expect(reached.stderr).toContain(`reached for localhost:${port}: the sandbox refused the connection (reported once). To allow it: npx hookbox trust ${p.dir} --grant network:127.0.0.1:${port} --grant network:localhost:${port}`);
    } finally {
      server.close();
    }
  });
});

describe.skipIf(!ok)("a written grant cannot plant what git or an agent takes up", { timeout: 60_000 }, () => {
  const fixture = (name: string) => readFileSync(join("fixtures/hostile/claude-code", `${name}.sh`), "utf8");

  it("a hook that plants a skill and a CLAUDE.md in its granted folder fails (effect_refused), the call blocked, both removed; its log stays", async () => {
    const p = project("PreToolUse", fixture("plants-a-skill-in-its-granted-folder"), "Bash");
    await p.approve("write:logs");
    const run = await p.route(bash);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("(effect_refused)");
    expect(run.stderr).toContain("made logs/.claude, logs/CLAUDE.md in a folder it may write during PreToolUse: a name git or an agent takes up");
    expect(existsSync(join(p.dir, "logs", ".claude"))).toBe(false);
    expect(existsSync(join(p.dir, "logs", "CLAUDE.md"))).toBe(false);
    expect(readFileSync(join(p.dir, "logs", "hook.log"), "utf8")).toBe("call\n");
  });

  it("a hook that makes a git repository with a core.fsmonitor in its granted folder fails (effect_refused), the repository removed", async () => {
    const p = project("PreToolUse", fixture("plants-git-config-in-its-granted-folder"), "Bash");
    await p.approve("write:logs");
    const run = await p.route(bash);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("(effect_refused)");
    expect(run.stderr).toContain("made logs/archive/.git in a folder it may write");
    expect(existsSync(join(p.dir, "logs", "archive", ".git"))).toBe(false);
    expect(existsSync(join(p.dir, "logs", "archive"))).toBe(true);
    expect(readFileSync(join(p.dir, "logs", "hook.log"), "utf8")).toBe("call\n");
  });

  it("a hook cannot change, remove or rename a git config or an AGENTS.md that was there before: they are read-only, unchanged, and the hook's run is not failed for trying", async () => {
    const p = project("PreToolUse", fixture("changes-an-existing-git-config-in-its-granted-folder"), "Bash");
    mkdirSync(join(p.dir, "logs", "archive", ".git"), { recursive: true });
    writeFileSync(join(p.dir, "logs", "archive", ".git", "config"), "[core]\n\tbare = false\n");
    writeFileSync(join(p.dir, "logs", "AGENTS.md"), "the user's notes\n");
    await p.approve("write:logs");
    const run = await p.route(bash);
    expect(run).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(readFileSync(join(p.dir, "logs", "archive", ".git", "config"), "utf8")).toBe("[core]\n\tbare = false\n");
    expect(readFileSync(join(p.dir, "logs", "AGENTS.md"), "utf8")).toBe("the user's notes\n");
    expect(existsSync(join(p.dir, "logs", "old.md"))).toBe(false);
    expect(readFileSync(join(p.dir, "logs", "hook.log"), "utf8")).toBe("call\n");
  });

  it("a hook killed while a process of it keeps planting (here: for writing too much) is walked once its sandbox is empty: what it made is removed and stays removed", async () => {
    const p = project("PreToolUse", "#!/bin/bash\ncat >/dev/null\n( while :; do mkdir -p logs/.claude/skills/x 2>/dev/null; done ) &\nsleep 0.2\nhead -c 3000000 /dev/zero | tr '\\0' x\nwait\n", "Bash");
    await p.approve("write:logs");
    const run = await p.route(bash);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("(effect_refused)");
    expect(run.stderr).toContain("made logs/.claude in a folder it may write");
    await new Promise((r) => setTimeout(r, 300));
    expect(existsSync(join(p.dir, "logs", ".claude"))).toBe(false);
  });

  it("a granted folder over the walk's bound: the hook does not run, and its failure names the folder and the bound", async () => {
    const p = project("PreToolUse", "#!/bin/bash\ncat >/dev/null\necho ran > logs/ran\nexit 0\n", "Bash");
    mkdirSync(join(p.dir, "logs", "many"), { recursive: true });
    for (let i = 0; i < WALK_BOUND; i++) writeFileSync(join(p.dir, "logs", "many", String(i)), "");
    await p.approve("write:logs");
    const run = await p.route(bash);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`(crashed)`);
    expect(run.stderr).toContain(`it did not run: logs holds more than ${WALK_BOUND} entries, which hookbox reads before and after each run for names git or an agent takes up (.git, .claude, CLAUDE.md…); grant a smaller folder`);
    expect(existsSync(join(p.dir, "logs", "ran"))).toBe(false);
  });

  it("write:tool-target does not open a file git or an agent takes up, though the model wrote it: a formatter's rewrite of docs/CLAUDE.md is discarded, said", async () => {
    const p = project("PostToolUse", "#!/bin/bash\nf=$(sed -n 's/.*\"file_path\":\"\\([^\"]*\\)\".*/\\1/p')\necho formatted > \"$f\" 2>/dev/null\nexit 0\n", "Write|Edit");
    mkdirSync(join(p.dir, "docs"));
    writeFileSync(join(p.dir, "docs", "CLAUDE.md"), "the model's\n");
    writeFileSync(join(p.dir, "docs", "guide.md"), "the model's\n");
    await p.approve("write:tool-target");
    const run = await p.route({ tool_name: "Write", tool_input: { file_path: join(p.dir, "docs", "CLAUDE.md") } });
    expect(JSON.parse(run.stdout).systemMessage).toContain(`the grant write:tool-target (${join(p.dir, "docs", "CLAUDE.md")} is a name git or an agent takes up (it runs code or reads instructions from it)) was not given on this call`);
    expect(readFileSync(join(p.dir, "docs", "CLAUDE.md"), "utf8")).toBe("the model's\n");
    await p.route({ tool_name: "Write", tool_input: { file_path: join(p.dir, "docs", "guide.md") } });
    expect(readFileSync(join(p.dir, "docs", "guide.md"), "utf8")).toBe("formatted\n");
  });

  it("the same hook writing ordinary files in the same folder (control) answers as it did, its files kept", async () => {
    const p = project("PreToolUse", "#!/bin/bash\ncat >/dev/null\nmkdir -p logs/archive/git logs/claude\necho x > logs/archive/git/config\necho y > logs/claude/SKILL.md\necho call >> logs/hook.log\nexit 0\n", "Bash");
    await p.approve("write:logs");
    expect(await p.route(bash)).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(readFileSync(join(p.dir, "logs", "archive", "git", "config"), "utf8")).toBe("x\n");
    expect(readFileSync(join(p.dir, "logs", "claude", "SKILL.md"), "utf8")).toBe("y\n");
  });
});
