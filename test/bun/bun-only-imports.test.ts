/**
 * A module that imports a package written for Bun only (its package.json's `engines` names bun, not
 * node: oh-my-pi's own packages are its TypeScript sources, which use `Bun`, `import.meta.dir` and
 * native addons), on a Bun host (vitest.bun.config.ts, bun-host project). In a Bun worker (policy
 * trusted) it loads, as in the agent's process. In process and sandbox isolation the hook runs on
 * Node, where the package fails inside itself ("Bun is not defined"): the load failure names the
 * package and why, and says where it runs (src/isolation/load.ts, src/policy/import-graph.ts).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadHooks } from "../../src/index.js";
import { sandboxAvailability } from "../../src/isolation/bubblewrap/bwrap.js";
import { toolCall } from "../helpers/events.js";
import { tempDir } from "../helpers/files.js";
import { host, ROOT } from "../helpers/host.js";

const sandbox = sandboxAvailability();

/** A folder with `hook.ts`, whose import of the package is `importLine`, and the package for Bun only in its node_modules. */
function project(importLine: string): string {
  const dir = tempDir("hookbox-bun-only-");
  const pkg = join(dir, "node_modules", "@hookbox-fixtures", "bun-only");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "@hookbox-fixtures/bun-only", type: "module", main: "./index.js", engines: { bun: ">=1.3.7" } }));
  // As oh-my-pi's packages do at their top: Bun's own global.
  writeFileSync(join(pkg, "index.js"), "export const runtime = `Bun ${Bun.version}`;\n");
  writeFileSync(join(dir, "hook.ts"), `${importLine}\n`
    + `export default function (pi: any) { pi.on("tool_call", () => ({ block: true, reason: typeof runtime === "string" ? runtime.split(" ")[0] : "no package" })); }\n`);
  return join(dir, "hook.ts");
}

const VALUE = `import { runtime } from "@hookbox-fixtures/bun-only";`;

describe("a module importing a package for Bun only, on a Bun host", () => {
  it("control: in a Bun worker (policy trusted) it loads and uses the package, as in the agent's process", async () => {
    const { hooks, errors } = await loadHooks([project(VALUE)], ROOT, { isolation: "worker", policy: "trusted" });
    expect(errors).toEqual([]);
    expect(await host(hooks).runner.emitToolCall(toolCall())).toEqual({ block: true, reason: "Bun" });
  });

  const modes: Array<["process" | "sandbox", "confined" | "untrusted"]> = [["process", "confined"], ...(sandbox.ok ? [["sandbox", "untrusted"] as ["sandbox", "untrusted"]] : [])];
  it.each(modes)("in %s isolation (policy %s) it does not load on Node, and the failure names the package, why, and where it runs", async (isolation, policy) => {
    const hook = project(VALUE);
    const { hooks, errors } = await loadHooks([hook], ROOT, { isolation, policy });
    expect(hooks).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.code).toBe("load_failed");
    expect(errors[0]!.error).toContain("Bun is not defined");
    expect(errors[0]!.error).toContain(`the hook imports "@hookbox-fixtures/bun-only", a package for Bun only: its package.json's engines name bun, not node, and in ${isolation} isolation the hook runs on Node.`);
    expect(errors[0]!.error).toContain(`isolation "worker" with policy "trusted"`);
  });

  it("a type-only import is erased, never loaded: the module loads on Node and nothing is said of the package", async () => {
    const hook = project(`import type { runtime as R } from "@hookbox-fixtures/bun-only"; const runtime: R | undefined = undefined;`);
    const { hooks, errors } = await loadHooks([hook], ROOT, { isolation: "process", policy: "confined" });
    expect(errors).toEqual([]);
    expect(await host(hooks).runner.emitToolCall(toolCall())).toEqual({ block: true, reason: "no package" });
  });
});
