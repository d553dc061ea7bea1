/**
 * The fields of a Claude Code hook's answer that hookbox once refused (src/claude/output-fields.ts),
 * through the real router (src/agents/router.ts over Claude Code's row) with real processes and the
 * real sandbox: a user's hook that answers with one gets to Claude Code the answer it would read
 * from the hook alone (the differential: what the router prints is what the hook printed), and a
 * project's hook is held to the field's class: a substitute is `effect_refused` whatever it was
 * granted, an annotate or continue only with its grant.
 */
import { describe, expect, it } from "vitest";
import { recordingLayerAvailable } from "../src/claude/granted.js";
import { proposeGrants } from "../src/claude/propose.js";
import { CONTINUE_LIMIT } from "../src/policy/grants.js";
import { sandboxAvailability } from "../src/isolation/bubblewrap/bwrap.js";
import { claudeProject } from "./support/claude-project.js";

/** One answer per field hookbox used to refuse, on its event, with the input Claude Code gives that event. */
const CASES: Array<{ event: string; input?: Record<string, unknown>; specific: Record<string, unknown> }> = [
  { event: "PostToolUse", input: { tool_name: "Bash", tool_input: { command: "ls" }, tool_response: { stdout: "a", stderr: "", interrupted: false } }, specific: { updatedToolOutput: { stdout: "REWRITTEN", stderr: "", interrupted: false, isImage: false } } },
  { event: "PostToolUse", input: { tool_name: "Bash", tool_input: { command: "ls" } }, specific: { classifierContext: "the user asked for this" } },
  { event: "PermissionDenied", input: { tool_name: "Bash", tool_input: { command: "ls" }, reason: "classifier" }, specific: { retry: true } },
  { event: "MessageDisplay", input: { turn_id: "t", message_id: "m", index: 0, final: true, delta: "hello" }, specific: { displayContent: "HELLO" } },
  { event: "UserPromptExpansion", input: { command_name: "review", prompt: "/review" }, specific: { additionalContext: "expanded", suppressOriginalPrompt: true } },
  { event: "PostToolBatch", input: { tool_calls: [] }, specific: { additionalContext: "batch done" } },
  { event: "Stop", specific: { additionalContext: "one more check" } },
  { event: "SubagentStop", input: { agent_type: "Explore" }, specific: { additionalContext: "one more check" } },
  { event: "Notification", input: { notification_type: "idle_prompt", message: "waiting" }, specific: { additionalContext: "noted" } },
  { event: "Elicitation", input: { mcp_server_name: "s" }, specific: { action: "accept", content: { name: "x" } } },
  { event: "ElicitationResult", input: { mcp_server_name: "s" }, specific: { action: "decline" } },
  { event: "CwdChanged", input: { old_cwd: "/a", new_cwd: "/b" }, specific: { watchPaths: ["/b/.env"] } },
  { event: "FileChanged", input: { file_path: "/b/.env", event: "change" }, specific: { watchPaths: ["/b/.envrc"] } },
  { event: "WorktreeCreate", input: { name: "w" }, specific: { worktreePath: "/tmp/w" } },
  { event: "PreToolUse", input: { tool_name: "Bash", tool_input: { command: "ls" } }, specific: { permissionDecision: "ask", permissionDisplay: { title: "t", description: "d", displayName: "n" } } },
];

const world = (event: string, script: string, source: "user" | "project") => claudeProject(event, script, { source, prefix: "hookbox-claude-fields-" });
const answering = (output: unknown) => `#!/bin/sh\ncat >/dev/null\ncat <<'EOF'\n${JSON.stringify(output)}\nEOF\n`;

describe("a user's hook answering with a field Claude Code accepts", () => {
  it.each(CASES)("gets Claude Code the answer it printed, as without hookbox: $event $specific", async ({ event, input, specific }) => {
    const output = { hookSpecificOutput: { hookEventName: event, ...specific } };
    const answer = await world(event, answering(output), "user").route(input);
    expect(answer.stderr).toBe("");
    expect(answer.code).toBe(0);
    expect(JSON.parse(answer.stdout)).toEqual(output);
  });
});

describe("a user's hook replacing what the user reads of the model's message", () => {
  it("has its displayContent pass the terminal-text gate, as every text a hook writes: a title-setting or clipboard sequence is removed, newlines kept", async () => {
    const output = { hookSpecificOutput: { hookEventName: "MessageDisplay", displayContent: "\u001b]0;pwned\u0007HELLO\u001b]52;c;ZXZpbA==\u0007\nworld" } };
    const answer = await world("MessageDisplay", answering(output), "user").route(CASES.find((c) => c.event === "MessageDisplay")!.input);
    expect(JSON.parse(answer.stdout)).toEqual({ hookSpecificOutput: { hookEventName: "MessageDisplay", displayContent: "HELLO\nworld" } });
  });
});

describe("a user's hook answering in the background", () => {
  it("is refused by name (invalid_result): hookbox runs no async hook, so the answer it would give later is not lost silently", async () => {
    const answer = await world("PostToolUse", answering({ async: true, asyncTimeout: 30 }), "user").route({ tool_name: "Bash" });
    expect(answer.code).toBe(1);
    expect(answer.stderr).toContain("its answer's async is an async answer (the hook goes on in the background), which hookbox does not run");
    expect(answer.stderr).toContain("(invalid_result)");
  });
});

describe.skipIf(!(sandboxAvailability().ok && recordingLayerAvailable()))("a project's hook answering with such a field", { timeout: 60_000 }, () => {
  it("is refused a substitute (a rewritten tool result, a display changed, a worktree chosen) as effect_refused, whatever it was granted", async () => {
    for (const { event, input, specific } of CASES.filter((c) => ["updatedToolOutput", "displayContent", "worktreePath", "classifierContext", "permissionDisplay"].some((k) => k in c.specific))) {
      const field = Object.keys(specific).find((k) => k !== "permissionDecision")!;
      const w = world(event, answering({ hookSpecificOutput: { hookEventName: event, ...specific } }), "project");
      await w.approve("effects:annotate", "effects:continue");
      const answer = await w.route(input);
      // A tool call is blocked (exit 2); elsewhere Claude Code keeps its own value and shows the failure (exit 1).
      expect(answer.code, event).toBe(event === "PreToolUse" ? 2 : 1);
      expect(answer.stdout).toBe("");
      expect(answer.stderr).toContain(`answered hookSpecificOutput.${field} during ${event}, a substitute effect`);
      expect(answer.stderr).toContain("No grant allows it for a project's hook. (effect_refused)");
    }
  });

  it("gets a retry or a Stop's added context only with its grant (effects:annotate, effects:continue, bounded per session as a Stop's block is), labelled with its name", async () => {
    for (const [c, grant] of [[CASES.find((x) => x.event === "PermissionDenied")!, "effects:annotate"], [CASES.find((x) => x.event === "Stop")!, "effects:continue"]] as const) {
      const output = { hookSpecificOutput: { hookEventName: c.event, ...c.specific } };
      const w = world(c.event, answering(output), "project");
      await w.approve();
      const refused = await w.route(c.input);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`To allow it, grant ${grant}`);
      expect(refused.stderr).toContain("(effect_refused)");
      await w.approve(grant);
      const granted = await w.route(c.input);
      expect(granted.code, granted.stderr).toBe(0);
      const s = JSON.parse(granted.stdout).hookSpecificOutput as Record<string, unknown>;
      if (c.event === "Stop") expect(s.additionalContext).toBe("[hook .claude/hooks/hook.sh] one more check");
      else expect(s).toEqual(output.hookSpecificOutput);
      if (c.event === "Stop") {
        // As a Stop block does, its context keeps the agent going at most CONTINUE_LIMIT times a session.
        for (let i = 1; i < CONTINUE_LIMIT; i++) expect((await w.route(c.input)).code).toBe(0);
        const bounded = await w.route(c.input);
        expect(bounded.code).toBe(1);
        expect(bounded.stderr).toContain(`kept the agent going ${CONTINUE_LIMIT} times this session, the bound of effects:continue; this time the agent stops. (effect_refused)`);
      }
      // hookbox trust proposes that grant, and only it, by reading the hook.
      expect(proposeGrants(w.dir, w.hook)).toEqual([grant]);
    }
  });
});
