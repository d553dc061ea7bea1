/**
 * The permission flags a hook's runtime starts with (src/policy/policy.ts `permissionArgs`): one
 * flag per grant, however the folder was named. Why it matters: Node 20 aborts the whole process
 * (an assertion in its permission tree) when one folder is granted twice, and in worker mode that
 * process is the host. The control: the same flags with the grant repeated abort a real node.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveSandboxOptions } from "../src/options/options.js";
import { permissionArgs } from "../src/policy/policy.js";
import { ownPermissionFlag } from "../src/policy/runtime.js";
import { tempDir, writeHook } from "./helpers/files.js";

const nodeWith = (args: string[]) => spawnSync(process.execPath, [...args, "-e", "0"], { encoding: "utf8" });

describe("a hook runtime's permission flags", () => {
  it("a folder granted both by the hook's place and by policy.fsRead, with its trailing slash, is one flag, and node starts with them", () => {
    const dir = tempDir("hookbox-grants-");
    const hook = writeHook(dir, "hook.mjs", "export default () => {};\n");
    const { policy } = resolveSandboxOptions({ policy: { fsRead: [`${dir}/`] } });
    const args = permissionArgs(policy, hook, ownPermissionFlag())!;
    const grants = args.filter((a) => a.startsWith("--allow-fs-read="));
    expect(grants.filter((g) => g === `--allow-fs-read=${join(dir, "*")}`)).toHaveLength(1);
    expect(new Set(grants).size).toBe(grants.length);
    expect(nodeWith(args)).toMatchObject({ status: 0, signal: null });
  });

  // Measured on Node 20.20; a later Node may no longer abort.
  it.runIf(process.versions.node.startsWith("20."))("control: the same flags with that folder's grant repeated abort node 20", () => {
    const dir = tempDir("hookbox-grants-");
    const hook = writeHook(dir, "hook.mjs", "export default () => {};\n");
    const { policy } = resolveSandboxOptions({});
    const args = permissionArgs(policy, hook, ownPermissionFlag())!;
    expect(nodeWith([...args, `--allow-fs-read=${join(dir, "*")}`])).toMatchObject({ status: null, signal: "SIGABRT" });
  });
});
