/**
 * The settings of a project's file that run code or widen what the agent may do (the dialect's
 * `powerKeys`: `env`, `apiKeyHelper`, `statusLine`, `permissions.allow`, …): approved together, per
 * file, like a hook (`hookbox trust`), and read by the agent only as approved: a power item
 * (src/approval/power-item.ts, one mechanism for every agent's), pinning their values and every
 * project file a string among them names (a helper script).
 */
import { powerItemApproval, powerItemFingerprint, showValues, strings, type PowerItem } from "../approval/power-item.js";
import { powerKey } from "../approval/keys.js";
import type { ApprovalStore, Fingerprint } from "../approval/store.js";
import { CLAUDE_CODE, type ClaudeDialect } from "./dialect.js";
import { keyValues } from "../agents/dotted.js";

export { powerKey };

/** The power keys `settings` sets (dotted), with their values. */
export function powerValues(dialect: Pick<ClaudeDialect, "powerKeys">, settings: Record<string, unknown>): Record<string, unknown> {
  return keyValues(settings, dialect.powerKeys);
}

/** A settings file's power keys as one power item; `rel` how the file is named. */
export function claudePowerItem(file: string, rel: string, values: Record<string, unknown>): PowerItem {
  return {
    file, origin: `Claude Code (${rel}, settings: ${Object.keys(values).join(", ")})`, noun: "a Claude Code settings file's keys",
    subject: { settings: values }, mentions: strings(values), projectVars: CLAUDE_CODE.projectDirVars, shows: showValues(values),
  };
}

/** The fingerprint of a settings file's power keys as they are now. */
export function powerFingerprint(project: string, file: string, values: Record<string, unknown>): Promise<Fingerprint> {
  return powerItemFingerprint(project, claudePowerItem(file, file, values));
}

/** Whether the store approves `values` of `file` as they are. */
export async function powerApproved(store: ApprovalStore, project: string, file: string, values: Record<string, unknown>): Promise<boolean> {
  return (await powerItemApproval(store, project, claudePowerItem(file, file, values))).approved;
}
