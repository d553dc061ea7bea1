/**
 * Claude Code's hooks settings and hook output, parsed as Claude Code 2.1.328 reads them
 * (src/claude/settings.ts, src/claude/output.ts): the documented shapes, every event name, the
 * matcher rules, the output schema, and the effects rule for a project's (untrusted) hook.
 */
import { describe, expect, it } from "vitest";
import { CLAUDE_HOOK_EVENTS, DEFAULT_TIMEOUT_S, matcherSelects, parseClaudeSettings, selectHooks } from "../src/claude/settings.js";
import { interpretRun } from "../src/claude/output.js";

const FILE = "/p/.claude/settings.json";
const parse = (data: unknown) => parseClaudeSettings(JSON.stringify(data), FILE, "project");
const cmd = (command: string, extra: object = {}) => ({ type: "command", command, ...extra });

describe("Claude Code's hooks settings", () => {
  it("reads the documented shape: events, matcher groups, command hooks with a timeout in seconds", () => {
    const p = parse({
      model: "x",
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [cmd("\"$CLAUDE_PROJECT_DIR\"/.claude/guard.sh", { timeout: 5 })] }, { matcher: "Edit|Write", hooks: [cmd("a"), cmd("b")] }],
        Stop: [{ hooks: [cmd("notify")] }],
      },
    });
    expect(p.problems).toEqual([]);
    expect(p.refused).toEqual([]);
    expect(p.settings.model).toBe("x");
    expect(p.hooks.map((h) => [h.event, h.matcher, h.command, h.timeoutS, h.at])).toEqual([
      ["PreToolUse", "Bash", "\"$CLAUDE_PROJECT_DIR\"/.claude/guard.sh", 5, "hooks.PreToolUse[0].hooks[0]"],
      ["PreToolUse", "Edit|Write", "a", DEFAULT_TIMEOUT_S, "hooks.PreToolUse[1].hooks[0]"],
      ["PreToolUse", "Edit|Write", "b", DEFAULT_TIMEOUT_S, "hooks.PreToolUse[1].hooks[1]"],
      ["Stop", undefined, "notify", DEFAULT_TIMEOUT_S, "hooks.Stop[0].hooks[0]"],
    ]);
  });

  it("accepts every event name of Claude Code 2.1.328 and refuses, named, one it does not have", () => {
    expect(CLAUDE_HOOK_EVENTS).toHaveLength(33);
    const p = parse({ hooks: Object.fromEntries([...CLAUDE_HOOK_EVENTS, "PreToolUze"].map((e) => [e, [{ hooks: [cmd("x")] }]])) });
    expect(p.hooks.map((h) => h.event)).toEqual([...CLAUDE_HOOK_EVENTS]);
    expect(p.refused).toEqual([expect.objectContaining({ event: "PreToolUze", reason: expect.stringContaining("not an event of Claude Code") })]);
  });

  it("refuses, named, what hookbox does not run as Claude Code would: other hook types, async, an if rule of a form it does not evaluate, a malformed hook", () => {
    const p = parse({ hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "prompt", prompt: "ok?" }, cmd("x", { async: true }), cmd("x", { if: "Skill(deploy)" }), { type: "command" }, cmd("x", { timeout: -1 })] }] } });
    expect(p.hooks).toEqual([]);
    expect(p.refused.map((r) => r.reason)).toEqual([
      expect.stringContaining('a "prompt" hook is run by Claude Code itself'),
      expect.stringContaining("async"),
      expect.stringContaining('"if"'),
      expect.stringContaining("command"),
      expect.stringContaining("timeout"),
    ]);
  });

  it("names a file that is not JSON or not a settings object", () => {
    expect(parseClaudeSettings("{", FILE, "user").problems[0]).toContain("is not JSON");
    expect(parse({ hooks: { PreToolUse: "x" } }).problems[0]).toContain("hooks.PreToolUse");
  });
});

describe("Claude Code's matcher rules", () => {
  it("selects all with no matcher, \"\" or \"*\"", () => {
    for (const m of [undefined, "", "*"]) expect(matcherSelects("PreToolUse", m, "Bash")).toBe(true);
  });
  it("reads letters, digits, _ and | as exact names, never as a prefix", () => {
    expect(matcherSelects("PreToolUse", "Bash", "Bash")).toBe(true);
    expect(matcherSelects("PreToolUse", "Bash", "BashOutput")).toBe(false);
    expect(matcherSelects("PreToolUse", "Edit|Write", "Write")).toBe(true);
    expect(matcherSelects("PreToolUse", "Edit, Write", "Write")).toBe(true);
    // Not a name-list event: a comma makes it a regular expression.
    expect(matcherSelects("FileChanged", "a,b", "a,b")).toBe(true);
  });
  it("reads anything else as an unanchored regular expression; an invalid one selects nothing", () => {
    expect(matcherSelects("PreToolUse", "mcp__.*", "mcp__github__search")).toBe(true);
    expect(matcherSelects("PreToolUse", "Notebook.*", "NotebookEdit")).toBe(true);
    expect(matcherSelects("PreToolUse", "^Ba", "Bash")).toBe(true);
    expect(matcherSelects("PreToolUse", "(", "Bash")).toBe(false);
  });
  it("tests each event's own field (SessionStart: source, FileChanged: the file's name) and ignores matchers where an event has none", () => {
    const hooks = parse({ hooks: {
      SessionStart: [{ matcher: "startup", hooks: [cmd("s")] }, { matcher: "resume", hooks: [cmd("r")] }],
      FileChanged: [{ matcher: "package.json", hooks: [cmd("f")] }],
      Stop: [{ matcher: "nothing-matches-this", hooks: [cmd("stop")] }],
    } }).hooks;
    expect(selectHooks(hooks, "SessionStart", { source: "startup" }).map((h) => h.command)).toEqual(["s"]);
    expect(selectHooks(hooks, "FileChanged", { file_path: "/p/package.json" }).map((h) => h.command)).toEqual(["f"]);
    expect(selectHooks(hooks, "Stop", {}).map((h) => h.command)).toEqual(["stop"]);
  });
});

describe("a hook's answer", () => {
  const user = { name: "user hook", untrusted: false };
  const project = { name: "project hook", untrusted: true };
  const exited = (code: number, stdout = "", stderr = "") => ({ kind: "exited" as const, code, stdout, stderr });

  it("exit 2 blocks with stderr as the reason; exit 0 with JSON is parsed", () => {
    expect(interpretRun(project, "PreToolUse", exited(2, "", "no rm -rf here"))).toEqual({ kind: "block", reason: "no rm -rf here" });
    const deny = { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no" } };
    expect(interpretRun(project, "PreToolUse", exited(0, JSON.stringify(deny)))).toEqual({ kind: "ok", output: deny });
  });

  it("a crash, a timeout, too much output, another exit code: failed with its code", () => {
    const code = (o: Parameters<typeof interpretRun>[2]) => { const a = interpretRun(user, "PreToolUse", o); return a.kind === "failed" ? a.failure.code : a.kind; };
    expect(code({ kind: "timeout", ms: 2000, stderr: "" })).toBe("timeout");
    expect(code({ kind: "signaled", signal: "SIGSEGV", stderr: "" })).toBe("crashed");
    expect(code({ kind: "too_large", stream: "stdout", bytes: 2, limit: 1 })).toBe("result_too_large");
    expect(code(exited(1, "", "oops"))).toBe("crashed");
  });

  it("malformed or unknown output is refused, named: invalid_result", () => {
    const failed = (stdout: string) => { const a = interpretRun(user, "PreToolUse", exited(0, stdout)); return a.kind === "failed" ? [a.failure.code, a.failure.message] : [a.kind, ""]; };
    expect(failed("{not json")).toEqual(["invalid_result", expect.stringContaining("not JSON")]);
    expect(failed(JSON.stringify({ decisoin: "block" }))).toEqual(["invalid_result", expect.stringContaining("decisoin")]);
    expect(failed(JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "yes" } }))).toEqual(["invalid_result", expect.stringContaining("permissionDecision")]);
    expect(failed(JSON.stringify({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "x" } }))).toEqual(["invalid_result", expect.stringContaining("during PreToolUse")]);
  });

  it("a project's hook may deny or ask, never substitute: updatedInput, additionalContext, allow are effect_refused", () => {
    const ask = { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask" } };
    expect(interpretRun(project, "PreToolUse", exited(0, JSON.stringify(ask))).kind).toBe("ok");
    for (const s of [{ updatedInput: { command: "echo" } }, { additionalContext: "psst" }, { permissionDecision: "allow" }]) {
      const a = interpretRun(project, "PreToolUse", exited(0, JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", ...s } })));
      expect(a.kind === "failed" && a.failure.code).toBe("effect_refused");
      // The user's own hook may.
      expect(interpretRun(user, "PreToolUse", exited(0, JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", ...s } }))).kind).toBe("ok");
    }
    const prompt = interpretRun(project, "UserPromptSubmit", exited(0, "injected context"));
    expect(prompt.kind === "failed" && prompt.failure.code).toBe("effect_refused");
    const stop = interpretRun(project, "Stop", exited(2, "", "keep going"));
    expect(stop.kind === "failed" && stop.failure.code).toBe("effect_refused");
  });
});
