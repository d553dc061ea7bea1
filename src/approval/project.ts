/**
 * A project as the approvals store (./store.ts) keys it, and the command that approves its modules.
 * Apart from the store: a refusal's record names the command (src/observe/allow.ts) at every
 * agent start, which must not load the store, its schema and the fingerprints to say it.
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";

/** The key of a project: its real path (a moved or re-linked project is another project). */
export function projectKey(project: string): string {
  try {
    return realpathSync(resolve(project));
  } catch {
    return resolve(project);
  }
}

/** The command that reviews and approves a project's modules, as a user types it. */
export function approvalCommand(project: string, policyName = "untrusted"): string {
  const quoted = /^[\w./@:+-]+$/.test(project) ? project : `'${project.replace(/'/g, "'\\''")}'`;
  return `npx hookbox trust ${quoted}${policyName === "untrusted" ? "" : ` --policy ${policyName}`}`;
}
