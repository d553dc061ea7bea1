/**
 * The settings of a project's file that run code or widen what the agent may do (the dialect's
 * `powerKeys`: `env`, `apiKeyHelper`, `statusLine`, `permissions.allow`, …): approved together, per
 * file, like a hook (`hookbox trust`), and read by the agent only as approved. The fingerprint pins
 * their values and every project file a string among them names (a helper script).
 */
import { projectKey, type ApprovalStore, type Fingerprint } from "../approval/store.js";
import { pinnedFingerprint, PinReader } from "../approval/pins.js";
import { filesNamed, PROJECT_HOOK_POLICY } from "../approval/command-hook.js";
import { CLAUDE_CODE, type ClaudeDialect } from "./dialect.js";

/** The power keys `settings` sets (dotted), with their values. */
export function powerValues(dialect: Pick<ClaudeDialect, "powerKeys">, settings: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of dialect.powerKeys) {
    const [a, b] = key.split(".");
    const outer = settings[a!];
    const v = b === undefined ? outer : typeof outer === "object" && outer !== null ? (outer as Record<string, unknown>)[b] : undefined;
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** The key of a settings file's power keys in the approvals store. */
export const powerKey = (file: string): string => `${file}#power`;

const strings = (v: unknown): string[] => (typeof v === "string" ? [v] : typeof v === "object" && v !== null ? Object.values(v).flatMap(strings) : []);

/** The fingerprint of a settings file's power keys as they are now. */
export function powerFingerprint(project: string, file: string, values: Record<string, unknown>): Promise<Fingerprint> {
  const root = projectKey(project);
  const files = strings(values).flatMap((s) => filesNamed(root, s, CLAUDE_CODE.projectDirVars));
  return pinnedFingerprint(powerKey(file), { settings: values }, { root, files: [...new Set(files)], folders: [] }, PROJECT_HOOK_POLICY, new PinReader());
}

/** Whether the store approves `values` of `file` as they are. */
export async function powerApproved(store: ApprovalStore, project: string, file: string, values: Record<string, unknown>): Promise<boolean> {
  try {
    return (await store.checkPinned(project, { path: powerKey(file), policy: PROJECT_HOOK_POLICY, pinned: () => powerFingerprint(project, file, values), noun: "a Claude Code settings file's keys" })) === undefined;
  } catch {
    return false;
  }
}
