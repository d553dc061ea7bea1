/**
 * Which files Node loads as ES modules, decided once (worker/module-format.mjs) for the host's
 * export maps and the worker's deferred agent packages, and checked against Node itself: every
 * layout's files are loaded by a real `node`, through `import()` and through `require()`, each file
 * reporting its own top-level `this` (undefined in an ES module, `module.exports` in CommonJS).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { moduleFormat, packageScope } from "../worker/module-format.mjs";
import { tempDir } from "./helpers/files.js";

const PROBE = `globalThis.format = this === undefined ? "module" : "commonjs";\n`;

/** The layout: each package.json's text, and the probe files. */
const MANIFESTS: Record<string, string> = {
  "package.json": `{"type":"module"}`,
  "typed/package.json": `{"type":"commonjs"}`,
  "mod/package.json": `{"type":"module","name":"mod"}`,
  "mod/nested/package.json": `{"name":"nested"}`,
  "plain/package.json": `{"name":"plain"}`,
  "broken/package.json": `{ "type": "module",`,
  "empty/package.json": ``,
  "null/package.json": `null`,
  "mod/lib/node_modules/package.json": `{"type":"module"}`,
};
const FILES = [
  "root.js", "deep/er/root.js", "typed/a.js", "mod/a.js", "mod/nested/a.js", "mod/nested/deeper/a.js", "plain/a.js",
  "plain/a.mjs", "mod/a.cjs", "broken/a.js", "broken/a.mjs", "broken/a.cjs", "empty/a.js", "null/a.js",
  "mod/folder-manifest/a.js", "mod/lib/node_modules/a.js",
];

/** What a real node does with each file, in a fresh process per loader: the format it loaded it as, or "threw". */
function nodeLoads(dir: string, loader: "import" | "require"): Record<string, string> {
  const load = loader === "import" ? "await import(file)" : "require(file)";
  const script = `(async () => {
  const out = {};
  for (const file of ${JSON.stringify(FILES.map((f) => join(dir, f)))}) {
    globalThis.format = undefined;
    try { ${load}; out[file] = globalThis.format; } catch { out[file] = "threw"; }
  }
  process.stdout.write(JSON.stringify(out));
})();`;
  return JSON.parse(execFileSync(process.execPath, ["--no-warnings", "-e", script], { encoding: "utf8", timeout: 20_000 })) as Record<string, string>;
}

describe("whether Node loads a file as an ES module", () => {
  it("is what node itself does, through import() and require(), for every layout: the nearest package.json's type, .mjs and .cjs whatever it says, a manifest that is not JSON refused, none read in or above node_modules", () => {
    const dir = tempDir("hookbox-module-format-");
    for (const [path, text] of Object.entries(MANIFESTS)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    // A folder named package.json is not a manifest: Node looks further up.
    mkdirSync(join(dir, "mod/folder-manifest/package.json"), { recursive: true });
    for (const file of FILES) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), PROBE);
    }
    const ours = Object.fromEntries(FILES.map((f) => {
      const format = moduleFormat(join(dir, f));
      return [join(dir, f), format === "invalid" ? "threw" : format];
    }));
    expect(ours).toEqual(nodeLoads(dir, "import"));
    expect(ours).toEqual(nodeLoads(dir, "require"));
    // The layouts mean what they say: each answer is seen at least once, so the comparison can fail.
    expect(Object.fromEntries(FILES.map((f) => [f, moduleFormat(join(dir, f))]))).toEqual({
      "root.js": "module", "deep/er/root.js": "module", "typed/a.js": "commonjs", "mod/a.js": "module", "mod/nested/a.js": "commonjs",
      "mod/nested/deeper/a.js": "commonjs", "plain/a.js": "commonjs", "plain/a.mjs": "module", "mod/a.cjs": "commonjs",
      "broken/a.js": "invalid", "broken/a.mjs": "module", "broken/a.cjs": "commonjs", "empty/a.js": "invalid", "null/a.js": "invalid",
      "mod/folder-manifest/a.js": "module", "mod/lib/node_modules/a.js": "commonjs",
    });
  });

  it("names the package.json that decided, and none for a name that is not JavaScript's", () => {
    const dir = tempDir("hookbox-module-format-");
    mkdirSync(join(dir, "a/b"), { recursive: true });
    writeFileSync(join(dir, "a/package.json"), `{"type":"module"}`);
    expect(packageScope(join(dir, "a/b"))).toEqual({ manifest: join(dir, "a/package.json"), type: "module" });
    expect(moduleFormat(join(dir, "a/b/x.ts"))).toBeUndefined();
    expect(moduleFormat(join(dir, "a/b/x.json"))).toBeUndefined();
  });
});
