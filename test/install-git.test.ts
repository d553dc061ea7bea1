/**
 * The install route before hookbox is published: `npm install git+<url>` of a fresh clone, into an
 * empty project as `npm init -y` makes it (npm 11: `"type": "commonjs"`). The clone has no `dist/`
 * (it is not committed): npm builds it with the package's `prepare` script while it packs the git
 * dependency, then the project imports it as ESM and requires it as CommonJS. The clone is of this
 * checkout's HEAD (what is committed), like any git URL.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "./helpers/files.js";
import { ROOT } from "./helpers/host.js";
import { installPi, piUnavailable, runReadmeGuard } from "./support/pi-agent.js";

/** README "Use it in pi": the file a pi user writes (test/pack.test.ts checks the README shows exactly this). */
const ISOLATED = `import { isolate } from "hookbox/extension";
export default isolate(["./guard.ts"]);
`;

const env = { ...process.env, npm_config_update_notifier: "false" };
let project: string;
let clone: string;
let install: { code: number | null; stderr: string };

beforeAll(() => {
  const out = tempDir("hookbox-git-");
  clone = join(out, "hookbox");
  const head = execFileSync("git", ["-C", ROOT, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
  execFileSync("git", ["clone", "--quiet", "--no-checkout", ROOT, clone]);
  execFileSync("git", ["-C", clone, "checkout", "--quiet", "-B", "main", head]);
  project = join(out, "project");
  execFileSync("mkdir", ["-p", project]);
  execFileSync("npm", ["init", "-y"], { cwd: project, stdio: "pipe", env });
  const r = spawnSync("npm", ["install", `git+file://${clone}`, "--no-audit", "--no-fund", "--prefer-offline"], { cwd: project, encoding: "utf8", env });
  install = { code: r.status, stderr: r.stderr };
}, 600_000);

describe("npm install from a git URL of a fresh clone", { timeout: 60_000 }, () => {
  it("control: the fresh clone has no dist/ (so what the project gets was built on install)", () => {
    expect(existsSync(join(clone, "package.json"))).toBe(true);
    expect(existsSync(join(clone, "dist"))).toBe(false);
  });

  it("installs, and npm's prepare built dist/ in the installed package", () => {
    expect(install.code, install.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(project, "package.json"), "utf8")).type).toBe("commonjs");
    expect(existsSync(join(project, "node_modules", "hookbox", "dist", "src", "index.js"))).toBe(true);
    expect(existsSync(join(project, "node_modules", "hookbox", "src"))).toBe(false);
  });

  it("imports as ESM (hookbox, hookbox/extension) in the default CommonJS project", () => {
    writeFileSync(join(project, "probe.mjs"), `const h = await import("hookbox");\nconst e = await import("hookbox/extension");\nconsole.log(typeof h.loadHooks, typeof h.HookRunner, typeof e.isolate, typeof e.isolate([]));\n`);
    const r = spawnSync("node", ["probe.mjs"], { cwd: project, encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("function function function function\n");
  });

  it("README \"Use it in pi\" runs as written in that npm 11 project (\"type\": \"commonjs\"): pi -e ./isolated.ts blocks the model's rm -rf", (ctx) => {
    expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain("```ts\n// isolated.ts\n" + ISOLATED + "```");
    const why = piUnavailable();
    if (why) {
      console.log(`test/install-git.test.ts: the pi run skipped: ${why}`);
      ctx.skip();
    }
    const { build, run: r } = runReadmeGuard(installPi(), project, ISOLATED);
    expect(r.code, r.stderr).toBe(0);
    expect(r.toolResult).toBe(`guard refused: rm -rf ${build}`);
    expect(existsSync(join(build, "keep.txt"))).toBe(true);
  }, 300_000);

  it("requires as CommonJS on a Node that allows require(esm), else says ERR_REQUIRE_ESM", () => {
    writeFileSync(join(project, "probe.js"), `const h = require("hookbox");\nconst e = require("hookbox/extension");\nconsole.log(typeof h.loadHooks, typeof e.isolate);\n`);
    const r = spawnSync("node", ["probe.js"], { cwd: project, encoding: "utf8" });
    const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
    if (major > 22 || (major === 22 && minor >= 12) || (major === 20 && minor >= 19)) {
      expect(r.stdout, r.stderr).toBe("function function\n");
    } else {
      expect(r.stderr).toMatch(/ERR_REQUIRE_ESM/);
    }
  });
});
