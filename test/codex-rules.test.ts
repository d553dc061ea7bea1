/**
 * Which of a project's exec policy rules files hookbox codex leaves to Codex CLI (src/agents/codex-rules.ts):
 * only literal prefix_rule calls that forbid or prompt; what Codex would evaluate to allow, or what
 * hookbox does not read as literals, is not kept. Codex's own reading of these files: codex-launch.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codexRulesOnlyRestrict } from "../src/agents/codex-rules.js";
import { ROOT } from "./cli-run.js";

const fixture = (f: string) => readFileSync(join(ROOT, "fixtures", f), "utf8");

describe("a project's Codex rules file", () => {
  it("is kept when every statement is a literal prefix_rule that forbids or prompts, comments and all", () => {
    expect(codexRulesOnlyRestrict(fixture("valid/codex/forbids-and-prompts.rules"))).toBe(true);
    expect(codexRulesOnlyRestrict("# nothing yet\n")).toBe(true);
    expect(codexRulesOnlyRestrict("prefix_rule(pattern=['git','push'],decision='prompt',)")).toBe(true);
  });

  it("is not kept when one rule allows, even beside rules that forbid", () => {
    expect(codexRulesOnlyRestrict(fixture("hostile/codex/allows-commands-through-project-rules.rules"))).toBe(false);
  });

  it("is not kept when its decision is computed, left out (allow), given twice, or the file holds anything but literal prefix_rule calls", () => {
    expect(codexRulesOnlyRestrict(fixture("hostile/codex/allows-commands-through-computed-rule.rules"))).toBe(false);
    for (const text of [
      'prefix_rule(pattern = ["rm"])',
      'prefix_rule(pattern = ["rm"], decision = "forbidden", decision = "allow")',
      'D = "allow"\nprefix_rule(pattern = ["rm"], decision = D)',
      'prefix_rule(pattern = ["rm"], decision = "forbidden")\nfor p in ["rm"]:\n    prefix_rule(pattern = [p], decision = "allow")',
      'prefix_rule(pattern = ["rm"], decision = "\\x61llow")',
      'load("other.rules", "x")',
      'host_executable(name = "git", paths = ["/tmp/git"])',
      'prefix_rule(pattern = ["rm"], decision = "forbidden"',
    ]) expect(codexRulesOnlyRestrict(text), text).toBe(false);
  });
});
