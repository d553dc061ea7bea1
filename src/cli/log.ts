/**
 * `hookbox log`: the audit log (src/observe/audit-log.ts) read back: the last decisions, filtered
 * by project, hook, outcome or code, as lines or JSON; `--why <call id>` says in words why that
 * call was blocked and what would allow it (src/observe/why.ts).
 */
import { HOOK_ERROR_CODES } from "../contract/errors.js";
import { auditDir } from "../observe/audit-log.js";
import { filterRecords, readAuditLog } from "../observe/read-log.js";
import { OUTCOMES, type DecisionRecord } from "../observe/record.js";
import { explain } from "../observe/why.js";
import type { Output } from "./render.js";
import { EXIT, UsageError, command, parseFlags, type Flags } from "./usage.js";

const LOG_FLAGS = {
  project: { type: "string", arg: "<path>", help: "only the decisions in a project (its path, or a part of it)" },
  hook: { type: "string", arg: "<path>", help: "only the decisions about a hook (a part of its path)" },
  outcome: { type: "string", arg: "<outcome>", help: `only this outcome: ${OUTCOMES.join(", ")}` },
  code: { type: "string", arg: "<code>", help: "only this HookError code (timeout, not_approved, effect_refused, crashed, …)" },
  last: { type: "string", short: "n", arg: "<n>", help: "how many of the last decisions (default 20)" },
  why: { type: "string", arg: "<call id>", help: "say in words why that tool call was blocked, and what would allow it" },
  json: { type: "boolean", help: "one JSON record a line, as the log keeps them" },
  dir: { type: "string", arg: "<dir>", help: "the log's folder (default: $XDG_STATE_HOME/hookbox, else ~/.local/state/hookbox)" },
} as const satisfies Flags;

export const LOG = command("log", {
  usage: "Usage: hookbox log [--project <path>] [--hook <path>] [--outcome <o>] [--code <c>] [-n <n>] [--json] | --why <call id>",
  about: `The decisions hookbox's wall made, as the audit log keeps them: hookbox claude, codex, gemini and isolate() append
one record per tool call a hook saw and per other decision that was not "allowed" (a block, a
refusal, a fault), to $XDG_STATE_HOME/hookbox/decisions.jsonl (else ~/.local/state/hookbox), bounded
and rotated. HOOKBOX_AUDIT=off turns it off; HOOKBOX_AUDIT_CONTENT=1 also keeps what the hooks
received and answered.`,
  sections: [{ title: "Options:", flags: LOG_FLAGS }],
  tail: `Examples:
  hookbox log --outcome failed --code timeout
  hookbox log --why toolu_01ABC
`,
});
export const LOG_HELP = LOG.help;

const line = (r: DecisionRecord) => [
  r.time.replace("T", " ").replace(/\.\d+Z$/, "Z"),
  r.outcome.padEnd(7),
  (r.code ?? "").padEnd(14),
  r.agent.padEnd(7),
  `${r.event}${r.tool ? ` ${r.tool.name ?? ""}${r.tool.callId ? `(${r.tool.callId})` : ""}` : ""}`,
  r.hook?.path ?? "",
].join("  ").trimEnd();

/** Run `log`; returns the exit code (1 when `--why` finds no such call). */
export async function log(args: string[], out: Output): Promise<number> {
  const { values, positionals } = parseFlags(args, LOG);
  if (values.help) { out.write(LOG_HELP); return EXIT.ok; }
  if (positionals.length > 0) throw new UsageError(`hookbox log takes no positional argument (got "${positionals[0]}"); filter with --project, --hook, --outcome or --code`);
  if (values.outcome !== undefined && !(OUTCOMES as readonly string[]).includes(values.outcome)) throw new UsageError(`--outcome must be one of ${OUTCOMES.join(", ")}`);
  if (values.code !== undefined && !(HOOK_ERROR_CODES as readonly string[]).includes(values.code)) throw new UsageError(`--code must be a HookError code: ${HOOK_ERROR_CODES.join(", ")}`);
  const last = values.last === undefined ? 20 : Number(values.last);
  if (!Number.isInteger(last) || last < 1) throw new UsageError(`-n must be a whole number of decisions, got "${values.last}"`);
  const dir = values.dir ?? auditDir();
  const { records } = readAuditLog(dir);
  if (values.why !== undefined) {
    const about = filterRecords(records, { callId: values.why });
    if (about.length === 0) {
      out.write(`No decision about the call ${values.why} in ${dir}.\n`);
      return EXIT.hookErrors;
    }
    // The decisions that stopped it first; a call no hook stopped says so.
    const stops = about.filter((r) => r.blocked);
    if (values.json) { for (const r of stops.length > 0 ? stops : about) out.write(`${JSON.stringify(r)}\n`); return EXIT.ok; }
    if (stops.length === 0) out.write(`The call ${values.why} was not blocked: ${about.length} hook${about.length === 1 ? "" : "s"} let it through.\n`);
    out.write(`${(stops.length > 0 ? stops : about).map(explain).join("\n\n")}\n`);
    return EXIT.ok;
  }
  const filters = { project: values.project, hook: values.hook, outcome: values.outcome, code: values.code };
  const shown = filterRecords(records, filters).slice(-last);
  for (const r of shown) out.write(`${values.json ? JSON.stringify(r) : line(r)}\n`);
  // Said in words, as --why says it: an empty answer alone does not tell a first run from a wrong folder or filter.
  if (shown.length === 0 && !values.json) out.write(`No decision in ${dir}${Object.values(filters).some((v) => v !== undefined) ? " matches the filters" : ""}.\n`);
  return EXIT.ok;
}
