/**
 * A project's skill, command or agent file with power parts (./skill-view.ts) as the user approves
 * it (`hookbox trust`), like a settings file's power keys (./power.ts): one power item per file
 * (src/approval/power-item.ts), in the same store under the same policy; its fingerprint pins the
 * file's content and every project file what it leaves out names (a script its inline shell runs, as
 * bash parses it; a path in its `mcpServers` or `allowed-tools`). Approved and unchanged, Claude Code
 * reads the file as it was hashed; changed, it reads the view without them again.
 */
import { powerItemApproval, powerItemFingerprint, type PowerItem } from "../approval/power-item.js";
import { powerKey } from "../approval/keys.js";
import type { ApprovalStore, Fingerprint, PinReader } from "../approval/store.js";
import { CLAUDE_CODE } from "./dialect.js";
import type { SkillView } from "./skill-view.js";

/** The key of a skill's, command's or agent's power parts in the approvals store. */
export const viewKey = powerKey;

/** What the file does, as `hookbox trust` lists it: `Claude Code (.claude/skills/deploy/SKILL.md, skill: runs shell, allowed-tools)`. */
export const viewOrigin = (view: SkillView): string =>
  `Claude Code (${view.rel}, ${view.kind.label.replace(/^project /, "")}: ${view.power.map((p) => (p === "inline shell" ? "runs shell" : p)).join(", ")})`;

/** `view`'s file as a power item: shown whole when approved; what it leaves out names the files pinned with it (each inline command as bash reads it, each word of the frontmatter keys). */
export function viewItem(view: SkillView): PowerItem {
  const words = view.removed.keys.join("\n").split(/[\s"'[\]{}(),]+/).filter((w) => w !== "" && !w.endsWith(":"));
  return {
    file: view.path, origin: viewOrigin(view), noun: `a Claude Code ${view.kind.label}`, subject: { kind: view.kind.folder, power: view.power }, original: view.original,
    mentions: [...view.removed.shell, ...words], projectVars: CLAUDE_CODE.projectDirVars,
    shows: [...view.removed.shell.map((c) => `runs: ${JSON.stringify(c)}`), ...(view.removed.keys.length > 0 ? [`frontmatter: ${JSON.stringify(view.removed.keys.join("\n"))}`] : [])],
  };
}

/** The fingerprint of `view`'s file as it is now: its content, and every project file its power parts name. */
export function viewFingerprint(project: string, view: SkillView, reader?: PinReader): Promise<Fingerprint> {
  return powerItemFingerprint(project, viewItem(view), reader);
}

/** `approved`: the store approves the file as it is, and the content hashed is what Claude Code is shown; `changed`: approved once, not as it is now. */
export function viewApproval(store: ApprovalStore, project: string, view: SkillView): Promise<{ approved: boolean; changed: boolean }> {
  return powerItemApproval(store, project, viewItem(view));
}
