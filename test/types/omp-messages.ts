// An oh-my-pi module written with the import docs/extension.md ("Types") gives the oh-my-pi line,
// `hookbox/hooks/omp`: it narrows the agent's messages on oh-my-pi's roles and the original's.
// test/omp-types.test.ts checks it alone with tsc, and, as its control, with `hookbox/hooks`
// (pi's messages only), where each of these narrowings is an error.
import type { AgentMessage, HookAPI } from "hookbox/hooks/omp";

/** What a message says, by role: oh-my-pi's `$` Python cells and `@file` mentions, the original's legacy hook message. */
function describe(message: AgentMessage): string {
  if (message.role === "pythonExecution") return `python (${message.exitCode ?? "cancelled"}): ${message.code}`;
  if (message.role === "fileMention") return message.files.map((f) => f.path).join(", ");
  if (message.role === "hookMessage") return `${message.customType}: ${message.display}`;
  if (message.role === "developer") return "developer";
  return message.role;
}

export default function (pi: HookAPI) {
  pi.on("context", async (event) => ({
    messages: event.messages.filter((m) => !(m.role === "pythonExecution" && m.excludeFromContext)),
  }));
  pi.on("turn_end", async (event) => {
    pi.appendEntry("turn", { said: describe(event.message) });
  });
}
