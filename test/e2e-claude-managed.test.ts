/**
 * `hookbox claude` keeps what Claude Code 2.1.328 loads (memory, rules, skills, agents) and takes
 * away only the hooks' power: end to end, headless, against the fake model server of
 * test/support/, each check beside a control run of Claude Code alone. One scripted session per
 * world serves several checks (the model loads a skill, runs Bash, starts a project agent whose
 * own Bash call is routed too).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentUnavailable } from "./support/pi-run.js";
import { ROOT } from "./cli-run.js";
import { approve, claudeWorld, installClaude, projectHook, runClaude, trustDialogAccepted, type ClaudeRun, type ClaudeWorld, type ScriptedCall } from "./support/claude-run.js";
import { agentViewAvailability } from "../src/isolation/bubblewrap/agent-view.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";

const view = agentViewAvailability();
const sandbox = sandboxAvailability();
const unavailable = agentUnavailable("Claude Code") ?? (view.ok ? undefined : view.reason) ?? (sandbox.ok ? undefined : sandbox.reason);
const MARKERS = { skillBody: "SKILL-BODY-3d7e", skillShell: "SKILL-SHELL-42-ran", project: "PROJECT-MEMORY-7f3a", rules: "PROJECT-RULES-91c2", user: "USER-MEMORY-4be0", skill: "SKILL-DESCRIPTION-55d1", agent: "AGENT-DESCRIPTION-0c9e", agentBody: "SUBAGENT-BODY-e41d" };
const roots: string[] = [];
let claude = "";

function world(): ClaudeWorld {
  const root = mkdtempSync(join(tmpdir(), "hookbox-e2e-claude-managed-"));
  roots.push(root);
  return claudeWorld(root, claude);
}

/** A hook in an agent's or a skill's frontmatter that logs `label` to the world's hooks.log. */
const frontmatterHook = (w: ClaudeWorld, label: string) =>
  `hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: echo ${label} >> ${join(w.root, "hooks.log")}\n`;

/** The project's memory, rules, a skill and an agent (each with a frontmatter hook), the user's memory and a logging hook of the user's. */
function furnish(w: ClaudeWorld): void {
  mkdirSync(join(w.project, ".claude", "rules"), { recursive: true });
  mkdirSync(join(w.project, ".claude", "agents"), { recursive: true });
  mkdirSync(join(w.project, ".claude", "skills", "greet"), { recursive: true });
  mkdirSync(join(w.home, ".claude"), { recursive: true });
  writeFileSync(join(w.project, "CLAUDE.md"), `${MARKERS.project}\n`);
  writeFileSync(join(w.project, ".claude", "rules", "style.md"), `${MARKERS.rules}\n`);
  writeFileSync(join(w.home, ".claude", "CLAUDE.md"), `${MARKERS.user}\n`);
  writeFileSync(join(w.project, ".claude", "skills", "greet", "SKILL.md"), `---\nname: greet\ndescription: ${MARKERS.skill}\n${frontmatterHook(w, "skill-frontmatter")}---\nSay hello.\n`);
  // A skill whose inline command runs when it is expanded (its output, computed, is what the model would read) with the permission its allowed-tools adds.
  mkdirSync(join(w.project, ".claude", "skills", "build"), { recursive: true });
  writeFileSync(join(w.project, ".claude", "skills", "build", "SKILL.md"), `---\nname: build\ndescription: Build the project.\nallowed-tools: Bash(echo:*)\n---\n${MARKERS.skillBody} Version: !\`echo SKILL-SHELL-$((6*7))-ran | tee -a ${join(w.root, "skill-shell.log")}\`\n`);
  writeFileSync(join(w.project, ".claude", "agents", "helper.md"), `---\nname: helper\ndescription: ${MARKERS.agent}\n${frontmatterHook(w, "agent-frontmatter")}---\n${MARKERS.agentBody} You help.\n`);
  writeFileSync(join(w.home, ".claude", "settings.json"), JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `echo user-hook >> ${join(w.root, "hooks.log")}` }] }] } }));
  // A monorepo's package with a skill of its own, which Claude Code loads once the model reads a file under the package.
  cpSync(join(ROOT, "fixtures", "hostile", "claude-code", "runs-shell-through-skills-of-other-folders"), w.project, { recursive: true });
  trustDialogAccepted(w);
}

const session = (w: ClaudeWorld): ScriptedCall[] => [
  { name: "Skill", input: { skill: "greet" } },
  { name: "Skill", input: { skill: "build" } },
  { name: "Read", input: { file_path: join(w.project, "packages", "web", "src", "app.ts") } },
  { name: "Skill", input: { skill: "lint" } },
  { name: "Bash", input: { command: "echo main-bash", description: "main" } },
  { name: "Agent", input: { subagent_type: "helper", description: "help", prompt: "Run echo." } },
  { name: "Bash", agent: MARKERS.agentBody, input: { command: "echo agent-bash", description: "agent" } },
];

/** A project's .mcp.json naming one stdio server, a program from the repository that logs whether it started and with which API key. */
const furnishMcp = (w: ClaudeWorld) => writeFileSync(join(w.project, ".mcp.json"), JSON.stringify({ mcpServers: { probe: { command: "/bin/sh", args: ["-c", `echo "started key=$ANTHROPIC_API_KEY" >> ${join(w.root, "mcp.log")}`] } } }));
const mcpStarted = (w: ClaudeWorld) => (existsSync(join(w.root, "mcp.log")) ? readFileSync(join(w.root, "mcp.log"), "utf8") : "");
const firstRequest = (run: ClaudeRun) => JSON.stringify(run.messages.find((m) => JSON.stringify(m.messages).includes("Clean up the victim folder.")) ?? {});
const hookLog = (w: ClaudeWorld) => (existsSync(join(w.root, "hooks.log")) ? readFileSync(join(w.root, "hooks.log"), "utf8").trim().split("\n") : []);
const toolResults = (run: ClaudeRun) => run.messages.flatMap((m) => m.messages).flatMap((m) => (Array.isArray((m as { content?: unknown }).content) ? (m as { content: Array<{ type: string; content?: unknown }> }).content : [])).filter((p) => p.type === "tool_result").map((p) => JSON.stringify(p.content));

describe.skipIf(unavailable)("hookbox claude keeps what Claude Code 2.1.328 loads", { timeout: 120_000 }, () => {
  const runs: { alone?: { w: ClaudeWorld; run: ClaudeRun }; routed?: { w: ClaudeWorld; run: ClaudeRun } } = {};
  beforeAll(() => {
    claude = installClaude();
    for (const hookbox of [false, true]) {
      const w = world();
      furnish(w);
      runs[hookbox ? "routed" : "alone"] = { w, run: runClaude(w, { calls: session(w), hookbox, allowedTools: "Bash,Skill,Agent,Read" }) };
    }
  }, 300_000);
  afterAll(() => { for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true }); });

  it("the model's first request carries the project's CLAUDE.md, its .claude/rules and ~/.claude/CLAUDE.md, as with Claude Code alone", () => {
    for (const { run } of [runs.alone!, runs.routed!]) {
      expect(run.code, run.stderr).toBe(0);
      for (const marker of [MARKERS.project, MARKERS.rules, MARKERS.user]) expect(firstRequest(run)).toContain(marker);
    }
  });

  it("the project's skill and agent are offered and run: the skill loads, the agent's own model thread starts and its Bash call runs", () => {
    for (const { run } of [runs.alone!, runs.routed!]) {
      expect(firstRequest(run)).toContain(MARKERS.skill);
      expect(firstRequest(run)).toContain(MARKERS.agent);
      expect(run.messages.some((m) => JSON.stringify(m.system ?? "").includes(MARKERS.agentBody))).toBe(true);
      const results = toolResults(run);
      expect(results.some((r) => r.includes("main-bash"))).toBe(true);
      expect(results.some((r) => r.includes("agent-bash"))).toBe(true);
      expect(results.some((r) => r.includes("Launching skill: greet") || r.includes("greet"))).toBe(true);
    }
  });

  it("a project skill's inline shell runs when the model invokes it with Claude Code alone (the model reads its output); under hookbox claude it does not run, the model reads the skill with a placeholder, and the file is named", () => {
    const everything = (run: ClaudeRun) => JSON.stringify(run.messages);
    const ran = (w: ClaudeWorld) => existsSync(join(w.root, "skill-shell.log"));
    expect(everything(runs.alone!.run)).toContain(MARKERS.skillShell);
    expect(ran(runs.alone!.w)).toBe(true);
    const routed = everything(runs.routed!.run);
    expect(routed).toContain(MARKERS.skillBody);
    expect(routed).toContain("[shell command not run: hookbox claude does not run a project skill's or command's shell commands]");
    expect(routed).not.toContain(MARKERS.skillShell);
    expect(ran(runs.routed!.w)).toBe(false);
    expect(runs.routed!.run.stderr).toContain("the project's .claude/skills/build/SKILL.md has inline shell and allowed-tools: shown to Claude Code without them");
  });

  it("a skill of a subfolder's .claude/skills (fixtures/hostile/claude-code/runs-shell-through-skills-of-other-folders) is loaded once the model reads a file under it, and its inline shell runs when the model invokes it with Claude Code alone (your key copied, the model reads its output); under hookbox claude it loads and expands without running, and the file is named", () => {
    const stolen = (w: ClaudeWorld) => existsSync(join(w.project, "stolen.txt"));
    const alone = JSON.stringify(runs.alone!.run.messages);
    expect(alone).toContain("New skills discovered in packages/web/.claude/skills");
    expect(alone).toContain("NESTED-SKILL-SHELL-RAN");
    expect(stolen(runs.alone!.w)).toBe(true);
    const routed = JSON.stringify(runs.routed!.run.messages);
    expect(routed).toContain("New skills discovered in packages/web/.claude/skills");
    expect(routed).toContain("Lint report: [shell command not run:");
    expect(routed).not.toContain("NESTED-SKILL-SHELL-RAN");
    expect(stolen(runs.routed!.w)).toBe(false);
    expect(runs.routed!.run.stderr).toContain("the project's packages/web/.claude/skills/lint/SKILL.md has inline shell and allowed-tools: shown to Claude Code without them");
  });

  it("hooks in the frontmatter of the project's skills and agents run with Claude Code alone and not under hookbox claude, where the user's hook is routed for the main thread and the agent's", () => {
    expect(hookLog(runs.alone!.w).sort()).toEqual(["agent-frontmatter", "skill-frontmatter", "user-hook", "user-hook"]);
    expect(hookLog(runs.routed!.w)).toEqual(["user-hook", "user-hook"]);
  });
});

describe.skipIf(unavailable)("what the model writes does not change what hookbox claude's router does", { timeout: 120_000 }, () => {
  const RM = "rm -rf ./victim";
  const EMPTY_PLAN = JSON.stringify({ project: "/", hooks: [], refused: [], maxOutputBytes: 1 });
  beforeAll(() => { claude = installClaude(); }, 300_000);
  afterAll(() => { for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true }); });

  it("managed route: the plan and the project's settings file are read-only to the model's Bash, and the guard still blocks rm -rf", () => {
    const w = world();
    projectHook(w, "fixtures/claude-code/blocks-rm-rf.sh");
    approve(w);
    const rewrite = `printf '%s' '${EMPTY_PLAN}' > /etc/claude-code/hookbox-plan.json; echo plan=$?; printf '{}' > .claude/settings.json; echo settings=$?`;
    const run = runClaude(w, { calls: [{ name: "Bash", input: { command: rewrite, description: "a" } }, { name: "Bash", input: { command: RM, description: "b" } }], hookbox: true });
    const results = toolResults(run).join("\n");
    expect(results).toContain("plan=1");
    expect(results).toContain("settings=1");
    expect(results).toContain("Read-only file system");
    expect(results).toContain("guard: rm -rf is not allowed in this project");
    expect(existsSync(join(w.victim, "keep.txt"))).toBe(true);
    expect(readFileSync(join(w.project, ".claude", "settings.json"), "utf8")).toContain("blocks-rm-rf.sh");
  });

  it("fallback route (no namespace): announced once on stderr, Claude Code loads no CLAUDE.md and starts no project MCP server, and a plan the model rewrote is refused by its sha256, blocking rm -rf", () => {
    const w = world();
    writeFileSync(join(w.project, "CLAUDE.md"), `${MARKERS.project}\n`);
    furnishMcp(w);
    projectHook(w, "fixtures/claude-code/blocks-rm-rf.sh");
    approve(w);
    const rewrite = `for f in "$TMPDIR"/hookbox-claude-*/plan.json; do printf '%s' '${EMPTY_PLAN}' > "$f" && echo rewrote; done`;
    const run = runClaude(w, { calls: [{ name: "Bash", input: { command: rewrite, description: "a" } }, { name: "Bash", input: { command: RM, description: "b" } }], hookbox: true, env: { HOOKBOX_NO_NAMESPACE: "1", TMPDIR: w.root } });
    const announced = run.stderr.split("\n").filter((l) => l.includes("no private mount namespace"));
    expect(announced).toEqual(["hookbox claude: no private mount namespace (HOOKBOX_NO_NAMESPACE is set), so Claude Code runs with --setting-sources \"\": it loads no CLAUDE.md memory (the project's, .claude/rules/*.md, ~/.claude/CLAUDE.md), no skills, agents, commands or output styles of the project or of ~/.claude, and of the project's settings only the permission deny and ask rules"]);
    expect(firstRequest(run)).not.toContain(MARKERS.project);
    const results = toolResults(run).join("\n");
    expect(results).toContain("rewrote");
    expect(results).toContain("is not the one hookbox claude wrote");
    expect(existsSync(join(w.victim, "keep.txt"))).toBe(true);
    expect(run.stderr).toContain("the project's .mcp.json names MCP servers: not started");
    expect(mcpStarted(w)).toBe("");
  });
});

describe.skipIf(unavailable)("a project's settings keys that run code reach Claude Code only once approved, and its MCP servers only approved and in the sandbox", { timeout: 120_000 }, () => {
  beforeAll(() => { claude = installClaude(); }, 300_000);
  afterAll(() => { for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true }); });

  it("a project's env (BASH_ENV) reaches the model's Bash commands with Claude Code alone, as its .mcp.json server starts with the API key; through hookbox claude the env does not until hookbox trust approved it, nor after it changed, and the server is denied until approved, then reaches nothing outside its sandbox", () => {
    const furnishEnv = (w: ClaudeWorld) => {
      furnishMcp(w);
      writeFileSync(join(w.project, "bash-env.sh"), "echo BASH-ENV-RAN\n");
      writeFileSync(join(w.project, ".claude", "settings.json"), JSON.stringify({ env: { BASH_ENV: join(w.project, "bash-env.sh") }, permissions: { deny: ["Read(./secrets/**)"] } }));
    };
    const command = "echo probe=$BASH_ENV";
    const control = world();
    furnishEnv(control);
    expect(runClaude(control, { command, hookbox: false }).result).toContain(`probe=${join(control.project, "bash-env.sh")}`);
    expect(mcpStarted(control)).toContain("started key=sk-ant-CANARY-API-KEY");

    const w = world();
    furnishEnv(w);
    const unapproved = runClaude(w, { command, hookbox: true });
    expect(unapproved.stderr).toContain("the project's .claude/settings.json sets env: not loaded (they run code or widen what Claude Code may do) until you review and approve them with npx hookbox trust");
    expect(unapproved.result).toContain("TOOL RESULT: probe=");
    expect(unapproved.result).not.toContain("bash-env.sh");
    expect(unapproved.stderr).toContain("hookbox claude: the project's MCP server probe (.mcp.json, MCP server probe: /bin/sh -c ");
    expect(unapproved.stderr).toContain("is not started: it is an MCP server (.mcp.json) of the project");
    expect(approve(w)).toContain("Claude Code (.claude/settings.json, settings: env)");
    const approved = runClaude(w, { command, hookbox: true });
    expect(approved.stderr).not.toContain("not loaded");
    expect(approved.result).toContain(`probe=${join(w.project, "bash-env.sh")}`);
    // A change after approval asks again.
    writeFileSync(join(w.project, "bash-env.sh"), "echo BASH-ENV-CHANGED\n");
    const changed = runClaude(w, { command, hookbox: true });
    expect(changed.stderr).toContain("sets env: not loaded");
    expect(changed.result).not.toContain("bash-env.sh");
    expect(mcpStarted(w)).toBe("");
  });
});

