/**
 * The approvals store (src/approval/): a project module runs only as the user approved it. Each
 * invalidation (content, a new file in the graph, a swapped symbolic link, a moved project, a
 * widened policy) and each broken store (missing, unreadable, corrupt) on real files.
 */
import { mkdirSync, readFileSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { approvalCommand, approvalsDir, ApprovalStore, fingerprint } from "../src/approval/store.js";
import { tempDir, writeHook } from "./helpers/files.js";

/** A project with `.pi/extensions/evil.ts` importing `./lib/words.ts`, and a store in its own folder. */
function world() {
  const root = tempDir("hookbox-approval-");
  const project = join(root, "project");
  const module = writeHook(project, ".pi/extensions/evil.ts", `import { word } from "./lib/words.ts";\nexport default (pi: any) => { pi.on("tool_call", () => ({ block: true, reason: word })); };\n`);
  writeHook(project, ".pi/extensions/lib/words.ts", `export const word = "hi";\n`);
  const store = new ApprovalStore({ dir: join(root, "config", "hookbox") });
  return { root, project, module, store };
}

const approve = (store: ApprovalStore, project: string, module: string, policy: "untrusted" | "confined" = "untrusted") =>
  store.approve(project, [fingerprint(module, policy)]);

describe("the approvals store", () => {
  it("lives in $XDG_CONFIG_HOME/hookbox, else ~/.config/hookbox, unless a folder is given", () => {
    expect(approvalsDir({}, { XDG_CONFIG_HOME: "/x/config", HOME: "/h" })).toBe("/x/config/hookbox");
    expect(approvalsDir({}, { HOME: "/h" })).toBe("/h/.config/hookbox");
    expect(approvalsDir({}, { XDG_CONFIG_HOME: "relative", HOME: "/h" })).toBe("/h/.config/hookbox");
    expect(approvalsDir({ dir: "/d" }, { XDG_CONFIG_HOME: "/x" })).toBe("/d");
  });

  it("a missing store approves nothing: not_approved, naming the module and the command", () => {
    const { project, module, store } = world();
    const refused = store.check(project, { path: module, policy: "untrusted" });
    expect(refused?.code).toBe("not_approved");
    expect(refused?.message).toContain(module);
    expect(refused?.message).toContain("you have not approved it");
    expect(refused?.message).toContain(approvalCommand(project));
  });

  it("an approved module passes; the store is written atomically outside the project, keyed by its real path", () => {
    const { project, module, store } = world();
    approve(store, project, module);
    expect(store.check(project, { path: module, policy: "untrusted" })).toBeUndefined();
    const data = JSON.parse(readFileSync(store.file, "utf8"));
    expect(Object.keys(data.projects)).toEqual([project]);
    expect(Object.keys(data.projects[project].modules)).toEqual([module]);
    expect(Object.keys(data.projects[project].modules[module].files)).toContain(join(project, ".pi/extensions/lib/words.ts"));
  });

  it("one byte of an imported file changed: not approved, naming the file", () => {
    const { project, module, store } = world();
    approve(store, project, module);
    const lib = join(project, ".pi/extensions/lib/words.ts");
    writeFileSync(lib, `export const word = "ho";\n`);
    const refused = store.check(project, { path: module, policy: "untrusted" });
    expect(refused?.code).toBe("not_approved");
    expect(refused?.message).toContain(`changed since you approved it (${lib} differs)`);
  });

  it("a new file in the graph (a package.json appearing above the module) needs approval again", () => {
    const { project, module, store } = world();
    approve(store, project, module);
    writeFileSync(join(project, ".pi/package.json"), `{"type":"module"}`);
    expect(store.check(project, { path: module, policy: "untrusted" })?.message).toContain(`${join(project, ".pi/package.json")} differs`);
  });

  it("a new file beside the module (a dynamic import could load it) needs approval again", () => {
    const { project, module, store } = world();
    approve(store, project, module);
    writeHook(project, ".pi/extensions/lib/extra.ts", "export const x = 1;\n");
    expect(store.check(project, { path: module, policy: "untrusted" })?.message).toContain(`${join(project, ".pi/extensions/lib/extra.ts")} is new`);
  });

  it("a symbolic link in the graph swapped to another file with the same content needs approval again", () => {
    const { root, project, store } = world();
    writeFileSync(join(root, "a.ts"), `export const word = "same";\n`);
    writeFileSync(join(root, "b.ts"), `export const word = "same";\n`);
    const link = join(project, ".pi/extensions/lib/linked.ts");
    symlinkSync(join(root, "a.ts"), link);
    const module = writeHook(project, ".pi/extensions/linking.ts", `import { word } from "./lib/linked.ts";\nexport default () => word;\n`);
    approve(store, project, module);
    expect(store.check(project, { path: module, policy: "untrusted" })).toBeUndefined();
    unlinkSync(link);
    symlinkSync(join(root, "b.ts"), link);
    const refused = store.check(project, { path: module, policy: "untrusted" });
    expect(refused?.code).toBe("not_approved");
    expect(refused?.message).toContain(link);
  });

  it("a moved project is another project: not approved", () => {
    const { root, project, store } = world();
    approve(store, project, join(project, ".pi/extensions/evil.ts"));
    const moved = join(root, "moved");
    renameSync(project, moved);
    const refused = store.check(moved, { path: join(moved, ".pi/extensions/evil.ts"), policy: "untrusted" });
    expect(refused?.code).toBe("not_approved");
    expect(refused?.message).toContain("you have not approved it");
  });

  it("a project reached through a symbolic link is keyed by its real path: the approval holds for the same folder", () => {
    const { root, project, module, store } = world();
    approve(store, project, module);
    const alias = join(root, "alias");
    symlinkSync(project, alias);
    // The module path as discovered through the link is another path: approved under its own name only.
    expect(store.check(alias, { path: module, policy: "untrusted" })).toBeUndefined();
  });

  it("a widened policy (untrusted approved, confined asked) needs approval again, and the command names the policy", () => {
    const { project, module, store } = world();
    approve(store, project, module, "untrusted");
    const refused = store.check(project, { path: module, policy: "confined" });
    expect(refused?.code).toBe("not_approved");
    expect(refused?.message).toContain("its policy was untrusted, now confined");
    expect(refused?.message).toContain(`${approvalCommand(project)} --policy confined`);
  });

  it("an unreadable store (a folder where the file should be) fails closed, named", () => {
    const { project, module, store } = world();
    mkdirSync(store.file, { recursive: true });
    const refused = store.check(project, { path: module, policy: "untrusted" });
    expect(refused?.code).toBe("not_approved");
    expect(refused?.message).toContain(`the approvals store ${store.file} cannot be read (EISDIR)`);
    expect(() => approve(store, project, module)).toThrow(/cannot be read/);
  });

  it.each([
    ["not JSON", "{ nope"],
    ["not what hookbox writes", JSON.stringify({ version: 1, projects: { "/p": { approved: "x", modules: { "/p/m.ts": { digest: "short", policy: "untrusted", files: {} } } } } })],
    ["another version", JSON.stringify({ version: 2, projects: {} })],
  ])("a corrupt store (%s) fails closed, named, and is not overwritten", (_what, text) => {
    const { project, module, store } = world();
    mkdirSync(store.dir, { recursive: true });
    writeFileSync(store.file, text);
    const refused = store.check(project, { path: module, policy: "untrusted" });
    expect(refused?.code).toBe("not_approved");
    expect(refused?.message).toContain(`the approvals store ${store.file} is corrupt`);
    expect(() => approve(store, project, module)).toThrow(/is corrupt/);
    expect(readFileSync(store.file, "utf8")).toBe(text);
  });

  it("revoke removes the project's approvals", () => {
    const { project, module, store } = world();
    approve(store, project, module);
    expect(store.revoke(project)).toBe(true);
    expect(store.check(project, { path: module, policy: "untrusted" })?.message).toContain("you have not approved it");
    expect(store.revoke(project)).toBe(false);
  });
});
