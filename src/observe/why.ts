/**
 * A record in words a user understands: what happened to the call, why, and what would change it
 * (the command to type, the option to give), for `hookbox log --why`.
 */
import type { DecisionRecord } from "./record.js";

const hookName = (r: DecisionRecord) => (r.hook ? `The hook ${r.hook.path}` : "A hook");
const what = (r: DecisionRecord) => (r.tool ? `the ${r.tool.name ?? "tool"} call${r.tool.callId ? ` ${r.tool.callId}` : ""}` : `the ${r.event} event`);
const stopped = (r: DecisionRecord) => (r.blocked ? (r.tool ? "hookbox blocked it" : "it was stopped") : "hookbox went on without its answer");

/** What happened, why, and what changes it, in a few sentences. */
export function explain(r: DecisionRecord): string {
  const lines: string[] = [`${r.time} (${r.agent}${r.project ? ` in ${r.project}` : ""}): ${what(r)} (${r.event}) ${r.blocked ? "was blocked" : "went on"}.`];
  switch (r.code) {
    case "not_approved":
      lines.push(`${hookName(r)} comes from the project and is not approved as it is now (it is new, it changed since you approved it, or the approvals cannot be read), so it did not run and ${stopped(r)}: a hook that guards tool calls is not skipped.`);
      break;
    case "effect_refused":
      lines.push(`${hookName(r)} answered with more than its policy lets it do to the agent (it tried to change the call or what the agent does, and may only observe or restrict), so its answer was not applied and ${stopped(r)}.`);
      break;
    case "timeout":
      lines.push(`${hookName(r)} did not answer within its deadline${r.limitMs !== undefined ? ` of ${r.limitMs} ms` : ""}, so ${stopped(r)}${r.blocked ? " (fail closed: a guard that does not answer does not let the call through)" : ""}.`);
      break;
    case undefined:
      if (r.outcome === "blocked") lines.push(`${hookName(r)} itself decided to block it${r.content?.reason ? `, saying: ${r.content.reason}` : " (its reason is kept in the log only with HOOKBOX_AUDIT_CONTENT=1)"}. To let such calls through, change the hook or remove it.`);
      else if (r.outcome === "dropped") lines.push(r.why ?? "records were dropped over the log's rate.");
      else lines.push(`${hookName(r)} ${r.outcome === "allowed" ? "let it through" : r.outcome}.`);
      break;
    default:
      lines.push(`${hookName(r)} ${r.outcome === "skipped" ? "was skipped" : r.outcome === "refused" ? "was refused" : "failed"} (${r.code}), so ${stopped(r)}${r.blocked ? " (fail closed)" : ""}.`);
  }
  if (r.why) lines.push(`hookbox said: ${r.why}`);
  if (r.allow) lines.push(`To change it: ${r.allow}`);
  return lines.join("\n");
}
