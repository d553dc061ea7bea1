/**
 * The import graph's packages: what a module names, and (for an approval, which pins them) what
 * those packages depend on. The dependencies are not walked for every module: a module naming an
 * agent's package would read hundreds of manifests through it at every start.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importGraph } from "../src/policy/import-graph.js";
import { tempDir } from "./helpers/files.js";

function project(): string {
  const dir = tempDir("hookbox-graph-deps-");
  const pkg = (name: string, manifest: object) => {
    mkdirSync(join(dir, "node_modules", name), { recursive: true });
    writeFileSync(join(dir, "node_modules", name, "package.json"), JSON.stringify({ name, main: "index.js", ...manifest }));
    writeFileSync(join(dir, "node_modules", name, "index.js"), "module.exports = {};\n");
  };
  pkg("wrapper", { dependencies: { inner: "^1.0.0" }, peerDependencies: { peer: "*" } });
  pkg("inner", { optionalDependencies: { deeper: "*" } });
  pkg("deeper", {});
  pkg("peer", {});
  writeFileSync(join(dir, "hook.ts"), `import "wrapper";\nexport default function () {}\n`);
  return dir;
}
const names = (dir: string, dependencies?: boolean) => importGraph(join(dir, "hook.ts"), dependencies).packages.map((p) => p.specifier).sort();

describe("the import graph's packages", () => {
  it("are the packages a module names, not what those depend on, unless asked", () => {
    const dir = project();
    expect(names(dir)).toEqual(["wrapper"]);
  });

  it("with dependencies (an approval's pins) take each package's dependencies, optional and peer ones, transitively", () => {
    const dir = project();
    expect(names(dir, true)).toEqual(["deeper", "inner", "peer", "wrapper"]);
  });
});
