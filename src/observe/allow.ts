/**
 * What would allow what the wall refused or what failed, as a user acts on it: the command to type
 * or the option to give. One place, used by the records (`allow`) and `hookbox log --why`.
 */
import type { HookFailure } from "../contract/errors.js";
import { approvalCommand } from "../approval/project.js";

/** For the agents whose command hooks hookbox routes, by their name in records: where the user's own hooks are, and a hook's timeout unit. */
const ROUTED: Readonly<Record<string, { name: string; own: string; unit: string }>> = {
  claude: { name: "Claude Code", own: "~/.claude/settings.json", unit: "seconds" },
  codex: { name: "Codex CLI", own: "$CODEX_HOME/hooks.json (or config.toml's [hooks])", unit: "seconds" },
  gemini: { name: "Gemini CLI", own: "~/.gemini/settings.json", unit: "milliseconds" },
};

/** The command, grant or option that would let `failure` through next time, or undefined when only changing the hook does. */
export function allowOf(failure: Pick<HookFailure, "code" | "message">, project: string, agent: string): string | undefined {
  const routed = Object.hasOwn(ROUTED, agent) ? ROUTED[agent] : undefined;
  switch (failure.code) {
    case "not_approved":
      return approvalCommand(project);
    case "effect_refused": {
      if (routed) return `only a hook of your own ${routed.own} may change what ${routed.name} does (a project's hook may block, deny or ask)`;
      const effect = /policy\.effects: "(\w+)" grants it/.exec(failure.message)?.[1];
      return effect ? `policy.effects: "${effect}" in the module's options (isolate() or loadHooks), for a module you trust to change what the agent does` : undefined;
    }
    case "timeout":
      return routed ? `a larger "timeout" (${routed.unit}) on the hook in its settings file` : "a longer deadline for the event: the deadlines option of isolate() or loadHooks";
    case "disabled":
      return "fix the hook, then reload it (or restart the agent)";
    default:
      return undefined;
  }
}
