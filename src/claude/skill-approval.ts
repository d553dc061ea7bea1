/**
 * A project's skill, command or agent file with power parts (./skill-view.ts) as the user approves
 * it (`hookbox trust`), like a settings file's power keys (./power.ts): one item per file, in the
 * same store under the same policy; its fingerprint pins the file's content and every project file
 * what it leaves out names (a script its inline shell runs, as bash parses it; a path in its
 * `mcpServers` or `allowed-tools`). Approved and unchanged, Claude Code reads the file as it was
 * hashed; changed, it reads the view without them again.
 */
import { createHash } from "node:crypto";
import { PinReader, pinnedFingerprint, projectKey, type ApprovalStore, type Fingerprint } from "../approval/store.js";
import { filesNamed, PROJECT_HOOK_POLICY } from "../approval/command-hook.js";
import { CLAUDE_CODE } from "./dialect.js";
import type { SkillView } from "./skill-view.js";

/** The key of a skill's, command's or agent's power parts in the approvals store. */
export const viewKey = (file: string): string => `${file}#power`;

/** What the file does, as `hookbox trust` lists it: `Claude Code (.claude/skills/deploy/SKILL.md, skill: runs shell, allowed-tools)`. */
export const viewOrigin = (view: SkillView): string =>
  `Claude Code (${view.rel}, ${view.kind.label.replace(/^project /, "")}: ${view.power.map((p) => (p === "inline shell" ? "runs shell" : p)).join(", ")})`;

/** The project files the left-out parts name: each inline command as bash reads it, each word of the frontmatter keys. */
function named(root: string, view: SkillView): string[] {
  const words = view.removed.keys.join("\n").split(/[\s"'[\]{}(),]+/).filter((w) => w !== "" && !w.endsWith(":"));
  const texts = [...view.removed.shell, ...words];
  return [...new Set(texts.flatMap((t) => { try { return filesNamed(root, t, CLAUDE_CODE.projectDirVars); } catch { return []; } }))];
}

/** The fingerprint of `view`'s file as it is now: its content, and every project file its power parts name. */
export function viewFingerprint(project: string, view: SkillView, reader: PinReader = new PinReader()): Promise<Fingerprint> {
  // Names read as the shell reads them, from the project (Claude Code's working folder); pinned within the file's own tree, which holds the project.
  return pinnedFingerprint(viewKey(view.path), { kind: view.kind.folder, power: view.power }, { root: projectKey(view.root), files: [view.path, ...named(projectKey(project), view)], folders: [] }, PROJECT_HOOK_POLICY, reader);
}

/**
 * `approved`: the store approves the file as it is, and the content hashed is the content read
 * (`view.original`, what Claude Code is shown); `changed`: approved once, not as it is now.
 */
export async function viewApproval(store: ApprovalStore, project: string, view: SkillView): Promise<{ approved: boolean; changed: boolean }> {
  const sha = createHash("sha256").update(view.original).digest("hex");
  const changed = { approved: false, changed: true };
  try {
    const known = store.read().projects[projectKey(project)]?.modules[viewKey(view.path)] !== undefined;
    if (!known) return { approved: false, changed: false };
    const fp = await viewFingerprint(project, view);
    const read = Object.entries(fp.files).some(([k, v]) => (k === view.path || k.startsWith(`${view.path} -> `)) && v === sha);
    if (!read) return changed;
    const refused = await store.checkPinned(project, { path: viewKey(view.path), policy: PROJECT_HOOK_POLICY, pinned: async () => fp, noun: `a Claude Code ${view.kind.label}` });
    return refused === undefined ? { approved: true, changed: false } : changed;
  } catch {
    return { approved: false, changed: false };
  }
}
