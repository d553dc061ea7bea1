/**
 * discoverAndLoadHooks with the approvals store: a project-level hook loads only once the user
 * approved exactly its code and policy; until then it is not loaded and every tool call is blocked
 * naming it and the approval command. User-level hooks are not asked for.
 */
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { approvalCommand, ApprovalStore, fingerprint } from "../src/approval/store.js";
import { discoverAndLoadHooks, type LoadedHook } from "../src/index.js";
import { fixture, host, until } from "./helpers/host.js";
import { projectAndHome } from "./support/folders.js";
import type { DecisionRecord } from "../src/observe/record.js";

const loaded: LoadedHook[] = [];
afterEach(async () => {
  await Promise.all(loaded.splice(0).map((h) => h.sandbox?.dispose()));
});

function place(rel: string, dest: string) {
  mkdirSync(dirname(dest), { recursive: true });
  copyFileSync(fixture(rel), dest);
  return dest;
}

const rmCall = { type: "tool_call" as const, toolName: "bash", toolCallId: "1", input: { command: "rm -rf /tmp/x" } };
const lsCall = { type: "tool_call" as const, toolName: "read", toolCallId: "2", input: { path: "a" } };

describe("discoverAndLoadHooks: project hooks need approval", () => {
  it("an unapproved project hook is not loaded and every tool call is blocked naming it and the command; a user hook loads; after approval the project hook loads under its policy; one byte changed blocks again", async () => {
    const { cwd, home } = projectAndHome("hookbox-discovery-approval-");
    const dir = join(home, "config");
    const project = place("valid/blocks-rm-rf.ts", join(cwd, ".claude/hooks/pre/bash.ts"));
    const user = place("valid/drops-debug-messages.ts", join(home, ".claude/hooks/pre/user.ts"));
    const options = { home, approvals: { dir }, trust: { project: "confined" as const } };

    const first = await discoverAndLoadHooks([], cwd, options);
    loaded.push(...first.hooks);
    expect(first.errors.map((e) => [e.path, e.code])).toEqual([[project, "not_approved"]]);
    expect(first.hooks.map((h) => h.path)).toEqual(["hookbox:not-approved", user]);
    const { runner } = host(first.hooks, { cwd });
    for (const call of [rmCall, lsCall]) {
      const result = await runner.emitToolCall(call);
      expect(result?.block).toBe(true);
      expect(result?.reason).toContain(project);
      expect(result?.reason).toContain(`${approvalCommand(cwd, "confined")}`);
    }

    new ApprovalStore({ dir }).approve(cwd, [fingerprint(project, "confined")]);
    const second = await discoverAndLoadHooks([], cwd, options);
    loaded.push(...second.hooks);
    expect(second.errors).toEqual([]);
    expect(second.hooks.map((h) => h.path)).toEqual([project, user]);
    expect(second.discovery.trust.find((t) => t.path === project)).toMatchObject({ origin: "project", policy: "confined" });
    const approved = host(second.hooks, { cwd });
    expect(await approved.runner.emitToolCall(lsCall)).toBeUndefined();
    expect((await approved.runner.emitToolCall(rmCall))?.reason).toBe("rm -rf blocked (no UI)");

    writeFileSync(project, `${readFileSync(project, "utf8")} `);
    const third = await discoverAndLoadHooks([], cwd, options);
    loaded.push(...third.hooks);
    expect(third.errors.map((e) => e.code)).toEqual(["not_approved"]);
    expect(third.errors[0]!.error).toContain(`${project} differs`);
  });

  it("a project hook changed on disk after its approval and then crashed is not restarted from the new file: not_approved naming the file, the hook disabled (control: without approvals the restart runs the new code)", async () => {
    const NEW = `export default function (pi: any) { pi.on("tool_call", () => ({ block: true, reason: "new code ran" })); }\n`;
    const run = async (checked: boolean) => {
      const { cwd, home } = projectAndHome("hookbox-discovery-approval-");
      const dir = join(home, "config");
      const project = place("hostile/crashes-after-its-file-changed.ts", join(cwd, ".claude/hooks/pre/bash.ts"));
      new ApprovalStore({ dir }).approve(cwd, [fingerprint(project, "confined")]);
      const result = await discoverAndLoadHooks([], cwd, { home, approvals: checked && { dir }, trust: { project: "confined" } });
      loaded.push(...result.hooks);
      expect(result.errors).toEqual([]);
      const h = host(result.hooks, { cwd });
      writeFileSync(project, NEW);
      const sandbox = result.hooks[0]!.sandbox!;
      expect((await h.runner.emitToolCall(rmCall))?.block).toBe(true);
      await until(() => sandbox.state === "disabled" || (sandbox.state === "ready" && sandbox.restarts === 1), 10_000, "the restart decided");
      return { project, h, sandbox, after: await h.runner.emitToolCall(lsCall) };
    };
    const refused = await run(true);
    expect(refused.sandbox.state).toBe("disabled");
    expect(refused.h.errors.map((e) => e.code)).toEqual(["crashed", "not_approved"]);
    expect(refused.h.errors[1]!.error).toContain(`it changed since you approved it (${refused.project} differs)`);
    expect(refused.after?.block).toBe(true);
    expect(refused.after?.reason).not.toContain("new code ran");

    const control = await run(false);
    expect(control.sandbox.state).toBe("ready");
    expect(control.after).toEqual({ block: true, reason: "new code ran" });
  });

  it("a reload (watchHooks) of a project hook changed after its approval is refused with not_approved, and the approved version keeps running", async () => {
    const { cwd, home } = projectAndHome("hookbox-discovery-approval-");
    const dir = join(home, "config");
    const project = place("valid/blocks-rm-rf.ts", join(cwd, ".claude/hooks/pre/bash.ts"));
    new ApprovalStore({ dir }).approve(cwd, [fingerprint(project, "confined")]);
    const result = await discoverAndLoadHooks([], cwd, { home, approvals: { dir }, trust: { project: "confined" } });
    loaded.push(...result.hooks);
    const { runner } = host(result.hooks, { cwd });
    writeFileSync(project, `export default function (pi: any) { pi.on("tool_call", () => ({ block: true, reason: "new code ran" })); }\n`);
    const error = await runner.reload(project);
    expect(error?.code).toBe("not_approved");
    expect(error?.error).toContain(`${project} differs`);
    expect((await runner.emitToolCall(rmCall))?.reason).toBe("rm -rf blocked (no UI)");
  });

  it("an approval for one policy does not carry to a wider one (the default untrusted approved, trusted asked)", async () => {
    const { cwd, home } = projectAndHome("hookbox-discovery-approval-");
    const dir = join(home, "config");
    const project = place("valid/blocks-rm-rf.ts", join(cwd, ".claude/hooks/pre/bash.ts"));
    new ApprovalStore({ dir }).approve(cwd, [fingerprint(project, "untrusted")]);
    const result = await discoverAndLoadHooks([], cwd, { home, approvals: { dir }, trust: { project: "trusted" } });
    loaded.push(...result.hooks);
    expect(result.errors.map((e) => e.code)).toEqual(["not_approved"]);
    expect(result.errors[0]!.error).toContain("its policy was untrusted, now trusted");
  });

  it("a corrupt store fails closed for project hooks, named, and leaves user hooks loading", async () => {
    const { cwd, home } = projectAndHome("hookbox-discovery-approval-");
    const dir = join(home, "config");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "approvals.json"), "garbage");
    const project = place("valid/blocks-rm-rf.ts", join(cwd, ".claude/hooks/pre/bash.ts"));
    const user = place("valid/drops-debug-messages.ts", join(home, ".claude/hooks/pre/user.ts"));
    const result = await discoverAndLoadHooks([], cwd, { home, approvals: { dir }, trust: { project: "confined" } });
    loaded.push(...result.hooks);
    expect(result.errors.map((e) => [e.path, e.code])).toEqual([[project, "not_approved"]]);
    expect(result.errors[0]!.error).toContain(`the approvals store ${join(dir, "approvals.json")} is corrupt`);
    expect(result.hooks.map((h) => h.path)).toEqual(["hookbox:not-approved", user]);
  });

  it.each([["untrusted", "the sandbox", "MODULE_NOT_FOUND"], ["confined", "Node's permission model", "ERR_ACCESS_DENIED"]] as const)("a project hook runs only packages its approval pins (%s: %s, %s): a package a named one requires is pinned (changed, the hook is not_approved naming its file), and one it names only when it runs is not there to load, before or after a change (control: on main both ran their new bytes under the old approval)", async (policy, _where, notThere) => {
    const { cwd, home } = projectAndHome("hookbox-discovery-approval-");
    const dir = join(home, "config");
    const project = place("hostile/loads-packages-its-approval-does-not-pin.ts", join(cwd, ".claude/hooks/pre/loads.ts"));
    const pkg = (name: string, index: string, dependencies: Record<string, string> = {}) => {
      mkdirSync(join(cwd, "node_modules", name), { recursive: true });
      writeFileSync(join(cwd, "node_modules", name, "package.json"), JSON.stringify({ name, version: "1.0.0", main: "index.js", dependencies }));
      writeFileSync(join(cwd, "node_modules", name, "index.js"), index);
    };
    pkg("wrapper", `module.exports = { said: require("inner") };\n`, { inner: "1.0.0" });
    pkg("inner", `module.exports = "inner as approved";\n`);
    pkg("loose", `module.exports = "loose as approved";\n`);
    const options = { home, approvals: { dir }, trust: { project: policy } };
    const ask = async (parts: string[]) => {
      const found = await discoverAndLoadHooks([], cwd, options);
      loaded.push(...found.hooks);
      if (found.errors.length > 0) return found.errors.map((e) => `${e.code}: ${e.error}`).join("\n");
      return (await host(found.hooks, { cwd }).runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "p", input: { parts } }))?.reason;
    };
    new ApprovalStore({ dir }).approve(cwd, [fingerprint(project, policy)]);
    expect(await ask([])).toBe("inner as approved");
    expect(await ask(["lo", "ose"])).toBe(`error ${notThere}`);
    writeFileSync(join(cwd, "node_modules", "loose", "index.js"), `module.exports = "loose changed";\n`);
    expect(await ask(["lo", "ose"])).toBe(`error ${notThere}`);
    writeFileSync(join(cwd, "node_modules", "inner", "index.js"), `module.exports = "inner changed";\n`);
    const refused = await ask([]);
    expect(refused).toMatch(/^not_approved: /);
    expect(refused).toContain(`${join(cwd, "node_modules", "inner", "index.js")} differs`);
  });

  it.each(["untrusted", "confined"] as const)("a project hook's package reached through a link into pnpm's store loads with the package it depends on there, under what its approval pins (%s)", async (policy) => {
    const { cwd, home } = projectAndHome("hookbox-discovery-approval-");
    const dir = join(home, "config");
    const hook = join(cwd, ".claude/hooks/pre/linked.ts");
    mkdirSync(dirname(hook), { recursive: true });
    writeFileSync(hook, `import a from "a";\nexport default function (pi: any) { pi.on("tool_call", () => ({ block: true, reason: String(a) })); }\n`);
    const stored = (name: string) => join(cwd, "node_modules", ".pnpm", `${name}@1.0.0`, "node_modules", name);
    for (const [name, index, dependencies] of [["a", `module.exports = "a with " + require("b");\n`, { b: "1.0.0" }], ["b", `module.exports = "b";\n`, {}]] as const) {
      mkdirSync(stored(name), { recursive: true });
      writeFileSync(join(stored(name), "package.json"), JSON.stringify({ name, version: "1.0.0", main: "index.js", dependencies }));
      writeFileSync(join(stored(name), "index.js"), index);
    }
    symlinkSync("../../b@1.0.0/node_modules/b", join(cwd, "node_modules", ".pnpm", "a@1.0.0", "node_modules", "b"));
    symlinkSync(".pnpm/a@1.0.0/node_modules/a", join(cwd, "node_modules", "a"));
    new ApprovalStore({ dir }).approve(cwd, [fingerprint(hook, policy)]);
    const found = await discoverAndLoadHooks([], cwd, { home, approvals: { dir }, trust: { project: policy } });
    loaded.push(...found.hooks);
    expect(found.errors).toEqual([]);
    expect((await host(found.hooks, { cwd }).runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "l", input: {} }))?.reason).toBe("a with b");
  });

  it("a project hook's decision records carry the digest of the approval it loaded under (hook.hash); a user hook's carry none", async () => {
    const { cwd, home } = projectAndHome("hookbox-discovery-approval-");
    const dir = join(home, "config");
    const project = place("valid/blocks-rm-rf.ts", join(cwd, ".claude/hooks/pre/bash.ts"));
    const user = place("valid/records-call-order.ts", join(home, ".claude/hooks/pre/user.ts"));
    place("valid/lib/scripted.ts", join(home, ".claude/hooks/pre/lib/scripted.ts"));
    const approval = fingerprint(project, "confined");
    new ApprovalStore({ dir }).approve(cwd, [approval]);
    const found = await discoverAndLoadHooks([], cwd, { home, approvals: { dir }, trust: { project: "confined" as const } });
    loaded.push(...found.hooks);
    const { runner } = host(found.hooks, { cwd });
    const records: DecisionRecord[] = [];
    runner.onRecord((r) => records.push(r));
    await runner.emitToolCall(lsCall);
    expect(records.map((r) => [r.hook?.path, r.hook?.hash, r.outcome])).toEqual([[project, approval.digest, "allowed"], [user, undefined, "allowed"]]);
  });
});
