/**
 * src/claude/skill-view.ts: what of a project's skill or command file Claude Code 2.1.328 would run
 * or grant (inline shell by its own patterns, `allowed-tools` however spelled) is taken out; the rest
 * is kept byte for byte. The launcher's views: test/claude-launch.test.ts, the model's reading:
 * test/e2e-claude-managed.test.ts.
 */
import { describe, expect, it } from "vitest";
import { SHELL_PLACEHOLDER as P, withoutPower } from "../src/claude/skill-view.js";

describe("a project skill's power parts", () => {
  it("every spelling of allowed-tools Claude Code normalizes is removed with its value's lines; a spelling not removable line by line takes the whole frontmatter", () => {
    for (const key of ["allowed-tools", "allowed_tools", "allowedTools", "Allowed-Tools", "\"allowed-tools\""]) {
      expect(withoutPower(`---\nname: x\n${key}:\n  - Bash(*)\n- Write\ndescription: d\n---\nbody\n`)).toEqual({ text: "---\nname: x\ndescription: d\n---\nbody\n", power: ["allowed-tools"] });
    }
    expect(withoutPower("---\n{ name: x, allowed-tools: [Bash] }\n---\nbody\n")).toEqual({ text: "body\n", power: ["allowed-tools"] });
  });

  it("inline shell is replaced by Claude Code's own patterns (a ```! fence; !`…` after a space or at a line's start); a code span or a ! inside a word is kept", () => {
    expect(withoutPower("a !`id`\n!`whoami` b\n```!\nls\n```\nend")).toEqual({ text: `a ${P}\n${P} b\n${P}\nend`, power: ["inline shell"] });
    const plain = "run `npm test`; Hello!`not a command` and ```sh\nls\n```\n";
    expect(withoutPower(plain)).toEqual({ text: plain, power: [] });
  });
});
