/**
 * What run B isolates each example with: `trusted` in worker and process isolation (a person
 * wrapping an extension they trust); in sandbox isolation `untrusted` with the narrowest grant over
 * it that runs the example as in the agent's process (`SANDBOX_NEEDS`), written into the isolated
 * module's source.
 */
import { join } from "node:path";
import { presets, type PolicyOption } from "../../src/policy/policy.js";
import { MODEL_PORT } from "../../test/support/pi-rpc-session.mjs";
import type { PiWorld } from "../../test/support/pi-run.js";

export type Isolation = "worker" | "process" | "sandbox";

/** A grant over `untrusted`, for the run's world (its project, HOME and agent folder are fresh per run). */
export type SandboxGrant = (world: PiWorld) => Exclude<PolicyOption, string>;

/** Changing the agent (a substitute effect: a built-in tool replaced, a prompt or result rewritten). */
const substitute = { effects: "substitute" } as const;
/** Changing the agent through its setters (`pi.setLabel`, `sendUserMessage`, `ctx.compact`, …): `policy.agent` "write" too. */
const setters = { effects: "substitute", agent: "write" } as const;
/** A tool that does the agent's own work in the project: reads and writes it, and (bash) starts a shell from /usr. */
const projectTools = (w: PiWorld) => ({ ...substitute, fsRead: [w.project, "/usr", "/bin"], fsWrite: [w.project], childProcess: true });
/** Its own model call (pi's `complete`), as pi's process makes it: the key, and the fake model's address (a real one: its provider's host:443). */
const modelCall = () => ({ modelRegistry: "all", network: { allow: [`127.0.0.1:${MODEL_PORT}`] } }) as const satisfies Exclude<PolicyOption, string>;

/**
 * What each example needs beyond `untrusted` in sandbox isolation (`--isolation sandbox`), merged
 * over the `untrusted` preset, the narrowest grant that runs it as in pi's process: named programs
 * with their arguments, named folders, the one effect class. An example not listed needs nothing
 * (or is refused by name whatever its policy; handoff.ts and qna.ts call the model from a custom()
 * component, whose factory never runs in sandbox isolation). Worker and process isolation use
 * `trusted` for every example (a person wrapping an extension they trust).
 */
export const SANDBOX_NEEDS: Readonly<Record<string, SandboxGrant>> = {
  // git in the project, with the arguments it passes (its commit message is "[pi] " and a line).
  "auto-commit-on-exit.ts": (w) => ({ exec: { allow: [{ command: "git", args: ["status", "--porcelain", "add", "-A", "commit", "-m", /\[pi\] .*/] }] }, fsWrite: [w.project] }),
  // Its bash tool runs the model's commands in its own sandbox; its shell sources ~/.profile, at the
  // same path there (the sandbox's own empty home is mounted at HOME's path).
  "bash-spawn-hook.ts": projectTools,
  "bookmark.ts": () => setters,
  "built-in-tool-renderer.ts": projectTools,
  // Its rules folder, read if there.
  "claude-rules.ts": (w) => ({ fsRead: [join(w.project, ".claude")] }),
  "custom-compaction.ts": modelCall,
  // Where it looks for its WAD (the project, ~/doom1.wad, ~/.doom), and the WAD a command's argument names (in the project).
  "doom-overlay/index.ts": (w) => ({ fsRead: [w.project, join(w.home, "doom1.wad"), join(w.home, ".doom")] }),
  "dynamic-resources/index.ts": () => substitute,
  "dynamic-tools.ts": () => substitute,
  // The file it watches (bound when it exists: the sandbox's /tmp is its own). Clearing it after a
  // trigger needs policy.fsWrite of it, which fails the load while the file does not exist (a write bind).
  "file-trigger.ts": () => ({ fsRead: ["/tmp/agent-trigger.txt"] }),
  "git-checkpoint.ts": (w) => ({ exec: { allow: [{ command: "git", args: ["stash", "create", "apply", /[0-9a-f]{40}/] }] }, fsWrite: [w.project] }),
  "github-issue-autocomplete.ts": (w) => ({
    exec: { allow: [
      { command: "git", args: ["remote", "-v"] },
      { command: "gh", args: ["issue", "list", "--repo", /[\w.-]+\/[\w.-]+/, "--state", "open", "--limit", /\d+/, "--json", "number,title,state"] },
    ] },
    fsRead: [w.project],
  }),
  // The session's `!{echo differential}` (INPUT_PROMPTS), run by bash in the project (pi.exec's
  // working directory), and the prompt it rewrites.
  "inline-bash.ts": (w) => ({ ...substitute, exec: { allow: [{ command: "bash", args: ["-c", "echo differential"] }] }, fsRead: [w.project] }),
  // The `?quick ` prompt it rewrites (INPUT_PROMPTS).
  "input-transform.ts": () => substitute,
  "minimal-mode.ts": projectTools,
  "model-status.ts": () => ({ terminal: "raw" }),
  "notify.ts": () => ({ terminal: "raw" }),
  "plan-mode/index.ts": () => setters,
  // Its /pirate rewrites the system prompt of the turns after it (before_agent_start's systemPrompt).
  "pirate.ts": () => substitute,
  // pi's agent folder (PI_CODING_AGENT_DIR: the sandbox's HOME is its own) and the project's .pi, where
  // its presets are; applying one sets the tools, model and thinking level.
  "preset.ts": (w) => ({ ...setters, env: ["PI_CODING_AGENT_DIR"], fsRead: [w.agentDir, join(w.project, ".pi")] }),
  "prompt-customizer.ts": () => substitute,
  // Its log in the project's .pi (process.cwd(): the project, bound).
  "provider-payload.ts": (w) => ({ fsWrite: [w.project] }),
  "send-user-message.ts": () => setters,
  "session-name.ts": () => setters,
  "ssh.ts": projectTools,
  "structured-output.ts": () => substitute,
  "summarize.ts": modelCall,
  "tic-tac-toe.ts": () => substitute,
  // Its read tool, and its log in pi's agent folder.
  "tool-override.ts": (w) => ({ ...substitute, env: ["PI_CODING_AGENT_DIR"], fsRead: [w.project, w.agentDir], fsWrite: [w.agentDir] }),
  "trigger-compact.ts": () => setters,
  // oh-my-pi's examples (named relative to its examples/): the same grants as pi's namesakes ("[omp] " is its commit prefix).
  "extensions/chalk-logger.ts": () => ({ terminal: "raw" }),
  "hooks/auto-commit-on-exit.ts": (w) => ({ exec: { allow: [{ command: "git", args: ["status", "--porcelain", "add", "-A", "commit", "-m", /\[omp\] .*/] }] }, fsWrite: [w.project] }),
  "hooks/file-trigger.ts": () => ({ fsRead: ["/tmp/agent-trigger.txt"] }),
  "hooks/git-checkpoint.ts": (w) => ({ exec: { allow: [{ command: "git", args: ["stash", "create", "apply", /[0-9a-f]{40}/] }] }, fsWrite: [w.project] }),
};

/** What run B isolates: the options `isolate` gets for `file` in `isolation`, in `world` (written into isolated.ts by `optionsSource`). */
export function isolateOptions(file: string, isolation: Isolation | undefined, world: PiWorld, grant = SANDBOX_NEEDS[file]): Record<string, unknown> {
  if (isolation === "sandbox") return { isolation, policy: { ...presets.untrusted, ...grant?.(world) } };
  return { ...(isolation ? { isolation } : {}), policy: "trusted" };
}

/** `value` as JavaScript source: JSON, but a RegExp (an exec rule's argument) as its literal. */
export function optionsSource(value: unknown): string {
  const regexps: RegExp[] = [];
  const json = JSON.stringify(value, (_key, v: unknown) => (v instanceof RegExp ? `\u0000re${regexps.push(v) - 1}` : v));
  return json.replace(/"\\u0000re(\d+)"/g, (_m, i: string) => String(regexps[Number(i)]));
}
