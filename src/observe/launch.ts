/**
 * What the launchers and `isolate()` record, by default, in the audit log (src/observe/audit-log.ts):
 * the records of a runner and the wall's decisions outside a hook call (a module that did not load or
 * is not approved blocks a tool call). The routers' records are ./hook-recorder.ts. Each is one call
 * from its launcher.
 */
import type { HookErrorCode } from "../contract/errors.js";
import { auditProblem, auditWorthy, defaultAuditLog } from "./audit-log.js";
import { otlpProblem } from "./otlp.js";
import { allowOf } from "./allow.js";
import { toolOf } from "./observer.js";
import { cutText, isOwnWords, type DecisionRecord, type RecordListener } from "./record.js";

/** Append what `runner` records to the default audit log (none when `HOOKBOX_AUDIT=off`). */
export function auditRunner(runner: { onRecord(listener: RecordListener, options?: { content?: boolean }): () => void }): void {
  const audit = defaultAuditLog();
  if (audit) runner.onRecord((r) => { if (auditWorthy(r)) audit.log.append(r); }, { content: audit.content });
}

/** A module refused before any event (not approved, not loaded, refused by the agent) that blocks `event`, a tool call. */
export function unloadedRecord(module: { path: string; code: HookErrorCode; error: string }, event: Record<string, unknown> & { type: string }, agent: string, project: string): DecisionRecord {
  const failure = { code: module.code, message: module.error };
  const record: DecisionRecord = {
    v: 1, time: new Date().toISOString(), agent, project, hook: { path: cutText(module.path, 4000) }, event: cutText(event.type, 100),
    outcome: module.code === "not_approved" || module.code === "effect_refused" ? "refused" : "failed", blocked: true, code: module.code, effect: "restrict",
  };
  const tool = toolOf(event);
  if (tool) record.tool = tool;
  if (isOwnWords(module.code)) record.why = cutText(module.error, 1_900);
  const allow = allowOf(failure, project, agent);
  if (allow) record.allow = allow;
  return record;
}

/** What a launcher says once at its start about its records: an audit log it cannot write, OTLP export it cannot do. */
export function launchProblems(env: NodeJS.ProcessEnv = process.env): string[] {
  return [auditProblem(env), otlpProblem(env)].filter((p): p is string => p !== undefined);
}
