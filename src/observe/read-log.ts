/**
 * The audit log read back: every file, oldest first, each line parsed with the record's schema.
 * A line that is not a record (cut by a full disk, written by hand) is counted, not trusted.
 */
import { readFileSync } from "node:fs";
import { AUDIT_DEFAULTS, auditFiles } from "./audit-log.js";
import { decisionRecordSchema, type DecisionRecord } from "./record.js";

export interface ReadLog { records: DecisionRecord[]; invalid: number }

export function readAuditLog(dir: string, files: number = AUDIT_DEFAULTS.files): ReadLog {
  const records: DecisionRecord[] = [];
  let invalid = 0;
  for (const file of auditFiles(dir, files)) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw err;
    }
    for (const line of text.split("\n")) {
      if (line === "") continue;
      let parsed;
      try {
        parsed = decisionRecordSchema.safeParse(JSON.parse(line));
      } catch {
        parsed = undefined;
      }
      if (parsed?.success) records.push(parsed.data);
      else invalid++;
    }
  }
  return { records, invalid };
}

export interface LogFilter { project?: string; hook?: string; outcome?: string; code?: string; callId?: string }

/** The records that match every filter given (`hook`: a part of the hook's path; `project`: the project's path or a part of it). */
export function filterRecords(records: readonly DecisionRecord[], f: LogFilter): DecisionRecord[] {
  return records.filter((r) =>
    (f.project === undefined || (r.project ?? "").includes(f.project))
    && (f.hook === undefined || (r.hook?.path ?? "").includes(f.hook))
    && (f.outcome === undefined || r.outcome === f.outcome)
    && (f.code === undefined || r.code === f.code)
    && (f.callId === undefined || r.tool?.callId === f.callId));
}
