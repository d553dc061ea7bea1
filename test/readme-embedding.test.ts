/**
 * The README's hook module and embedding program, extracted and run as written (only the package
 * name is pointed at this checkout): a new user who copies them gets a running host.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { ROOT } from "./cli-run.js";
import { tempDir, writeHook } from "./helpers/files.js";

const readme = readFileSync(join(ROOT, "README.md"), "utf8");

/** The first ```ts block after `marker`. */
function blockAfter(marker: string): string {
  const at = readme.indexOf(marker);
  expect(at, `README has "${marker}"`).toBeGreaterThan(-1);
  const start = readme.indexOf("```ts\n", at) + "```ts\n".length;
  return readme.slice(start, readme.indexOf("\n```", start) + 1);
}

/** The first plain ``` block after `marker`. */
function outputAfter(marker: string): string {
  const at = readme.indexOf(marker);
  const start = readme.indexOf("```\n", at) + "```\n".length;
  return readme.slice(start, readme.indexOf("```", start));
}

function project(rewrite = true): { dir: string; main: string } {
  const dir = tempDir("hookbox-readme-");
  writeHook(dir, "hooks/guard.ts", blockAfter("Save it as `hooks/guard.ts`:"));
  const program = rewrite
    ? blockAfter("## Embedding it").replaceAll('from "hookbox"', `from ${JSON.stringify(join(ROOT, "src/index.ts"))}`)
      .replaceAll("./node_modules/hookbox/examples/", `${join(ROOT, "examples")}/`)
    : blockAfter("## Embedding it");
  const main = join(dir, "main.ts");
  writeFileSync(main, program);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "readme-host", private: true, type: "module" }));
  return { dir, main };
}

describe("README: embedding", () => {
  it("the embedding program runs as written with the README's hook module and prints what the README shows", () => {
    const { dir, main } = project();
    const r = spawnSync(process.execPath, ["--import", pathToFileURL(join(ROOT, "node_modules/tsx/dist/esm/index.mjs")).href, main], { cwd: dir, encoding: "utf8", env: { ...process.env, NODE_PATH: join(ROOT, "node_modules") } });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(outputAfter("It prints:"));
  });

  it("the embedding program and the hook module type-check, with no name left undefined", () => {
    const { dir } = project(false);
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
      compilerOptions: {
        target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, skipLibCheck: true,
        allowJs: true, types: ["node"], typeRoots: [join(ROOT, "node_modules/@types")],
        paths: { "hookbox/hooks": [join(ROOT, "src/hooks.ts")], hookbox: [join(ROOT, "src/index.ts")] },
      },
      // The ambient declarations of the untyped packages the source reaches (comlink; mvdan-sh, through pi.exec's pins check).
      files: ["main.ts", "hooks/guard.ts", join(ROOT, "src/isolation/comlink.d.ts"), join(ROOT, "src/approval/mvdan-sh.d.ts")],
    }));
    const r = spawnSync(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", dir], { cwd: dir, encoding: "utf8" });
    expect(r.stdout + r.stderr).toBe("");
    expect(r.status).toBe(0);
  }, 180_000); // a cold tsc over the source tree, on a shared machine
});
