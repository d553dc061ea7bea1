/**
 * oh-my-pi's and the original's message roles type-check with `hookbox/hooks/omp`, the import
 * docs/extension.md ("Types") gives the oh-my-pi line: test/types/omp-messages.ts, a module that
 * narrows `AgentMessage` on `pythonExecution`, `fileMention`, `hookMessage` and `developer`, checked
 * by tsc alone (a program of its own, so no other file's import of `hookbox/hooks/omp` widens
 * `AgentMessage` for it, as in the repository's own `tsc`). The control checks the same module with
 * `hookbox/hooks`, whose `AgentMessage` is exactly pi's: every one of those narrowings must fail. The
 * embedding entry `hookbox`, the original's host API, has the original's roles as `hookbox/hooks/omp` does.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "./helpers/files.js";
import { ROOT } from "./helpers/host.js";
import { tscErrors } from "./support/pi-examples-types.js";

const MODULE = join(ROOT, "test", "types", "omp-messages.ts");
/** pi 0.73.1's `AgentMessage` roles: pi-ai's `Message`, then pi-coding-agent's `CustomAgentMessages`. */
const PI_ROLES = ["user", "assistant", "toolResult", "custom", "bashExecution", "branchSummary", "compactionSummary"];

/** tsc's errors for test/types/omp-messages.ts alone, its `hookbox/hooks/omp` import replaced by `entry`. */
function check(entry: "hookbox/hooks/omp" | "hookbox/hooks" | "hookbox"): string[] {
  const dir = tempDir("hookbox-omp-types-");
  const source = readFileSync(MODULE, "utf8").replace('from "hookbox/hooks/omp";', `from "${entry}";`);
  writeFileSync(join(dir, "omp-messages.ts"), source);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "omp-module", version: "1.0.0", type: "module" }));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: {
      strict: true, allowJs: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", noEmit: true, skipLibCheck: true,
      types: ["node"], typeRoots: [join(ROOT, "node_modules", "@types")],
      paths: { "hookbox/hooks/omp": [join(ROOT, "src", "hooks-omp.ts")], "hookbox/hooks": [join(ROOT, "src", "hooks.ts")], hookbox: [join(ROOT, "src", "index.ts")] },
    },
    files: ["omp-messages.ts"],
  }));
  return tscErrors(dir, `${dir}/`);
}

describe("hookbox/hooks/omp: oh-my-pi's and the original's messages", () => {
  it("a module that narrows AgentMessage on pythonExecution, fileMention, hookMessage and developer type-checks with hookbox/hooks/omp", { timeout: 60_000 }, () => {
    expect(check("hookbox/hooks/omp")).toEqual([]);
  });

  it("a program that embedded the original and swapped its import for hookbox keeps the original's roles (hookMessage, developer)", { timeout: 60_000 }, () => {
    // The module's own errors: tsc also reads hookbox's source tree here, whose untyped runtime files
    // (worker/*.mjs, comlink's adapter) are typed by declarations only the repository's build has.
    expect(check("hookbox").filter((e) => e.startsWith("omp-messages.ts"))).toEqual([]);
  });

  it("control: with hookbox/hooks (pi's messages only) each of those narrowings is an error naming the role", { timeout: 60_000 }, () => {
    const comparisons = check("hookbox/hooks").filter((e) => / error TS2367: /.test(e));
    // tsc names the roles it compared against: pi's, and only pi's.
    expect(comparisons[0]).toContain(`'${PI_ROLES.map((r) => `"${r}"`).join(" | ")}'`);
    for (const role of ["pythonExecution", "fileMention", "hookMessage", "developer"]) {
      expect(comparisons, role).toContainEqual(expect.stringMatching(new RegExp(`^omp-messages\\.ts\\(\\d+,\\d+\\): error TS2367: .*"${role}"`)));
    }
  });
});
