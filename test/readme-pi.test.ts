/**
 * README "Use it in pi": its guard is the file the end-to-end runs use (fixtures/extensions/blocks-rm-rf.ts,
 * copied as guard.ts by `runReadmeGuard`: test/install-git.test.ts, test/pack.test.ts, test/e2e-pi.test.ts run
 * it inside pi), byte for byte, and it type-checks as a pi user's file does: against pi 0.73.1's own
 * `ExtensionAPI`, under `"module": "nodenext"` in a folder as `npm init -y` makes it (`"type": "commonjs"`).
 */
import { spawnSync } from "node:child_process";
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "./helpers/files.js";
import { ROOT } from "./helpers/host.js";
import { installPiDir } from "./support/pi-agent.js";

const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const GUARD = readFileSync(join(ROOT, "fixtures", "extensions", "blocks-rm-rf.ts"), "utf8");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

/** `source` as guard.ts in a fresh CommonJS folder whose node_modules is pi 0.73.1's install, checked by tsc. */
function typeCheck(source: string) {
  const dir = tempDir("hookbox-readme-pi-");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "readme-pi", version: "1.0.0", type: "commonjs" }));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", noEmit: true, skipLibCheck: true, types: [] },
    files: ["guard.ts"],
  }));
  writeFileSync(join(dir, "guard.ts"), source);
  symlinkSync(join(installPiDir(), "node_modules"), join(dir, "node_modules"), "dir");
  return spawnSync(process.execPath, [tsc, "-p", dir], { encoding: "utf8" });
}

describe("README: the pi guard", () => {
  it("is fixtures/extensions/blocks-rm-rf.ts, the file the README's pi runs use, byte for byte", () => {
    expect(readme).toContain("```ts\n" + GUARD + "```");
    expect(GUARD).toMatch(/^\/\/ guard\.ts: /);
  });

  it("type-checks against pi 0.73.1's ExtensionAPI with \"module\": \"nodenext\" in a CommonJS folder", { timeout: 120_000 }, () => {
    const r = typeCheck(GUARD);
    expect(r.stdout + r.stderr).toBe("");
    expect(r.status).toBe(0);
  });

  it("control: the same check fails a guard whose result pi's type does not allow", { timeout: 120_000 }, () => {
    const r = typeCheck(GUARD.replace("block: true", 'block: "yes"'));
    expect(r.status).not.toBe(0);
    expect(r.stdout).toContain("guard.ts(");
  });
});
