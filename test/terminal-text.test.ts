import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { gatedOutput } from "../src/cli/output.js";
import { terminalText } from "../src/gates/terminal-text.js";
import { hookbox, ROOT } from "./cli-run.js";

const SGR_ONLY = /\x1b\[[0-9;:]*m/g;
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe("terminalText", () => {
  it.each([
    ["OSC 52 (clipboard), BEL-terminated", "a\x1b]52;c;ZXZpbA==\x07b", "ab"],
    ["OSC 0 (title), ST-terminated", "a\x1b]0;pwned\x1b\\b", "ab"],
    ["OSC with the C1 introducer", "a\u009d0;pwned\u0007b", "ab"],
    ["CSI 2J (clear screen)", "a\x1b[2Jb", "ab"],
    ["a cursor move", "a\x1b[10;10Hb", "ab"],
    ["C1 CSI", "a\u009b2Jb", "ab"],
    ["DCS", "a\x1bP1$qm\x1b\\b", "ab"],
    ["an ESC escape (save cursor)", "a\x1b7b", "ab"],
    ["an unterminated OSC: litter at worst, no ESC", "a\x1b]52;c;Zm9v", "a]52;c;Zm9v"],
    ["BEL, CR, DEL, NUL, a lone C1", "a\x07\r\x7f\x00\u0085b", "ab"],
    ["a tab", "a\tb", "a    b"],
    ["SGR colours, truecolor with colons", "\x1b[31mred\x1b[0m \x1b[38:2::1:2:3mx\x1b[m", "\x1b[31mred\x1b[0m \x1b[38:2::1:2:3mx\x1b[m"],
  ])("removes %s", (_what, input, output) => {
    expect(terminalText(input)).toBe(output);
  });

  it("keeps newlines and tabs only in multi-line text, and removes SGR with colors: false", () => {
    expect(terminalText("a\nb")).toBe("a b");
    expect(terminalText("a\r\nb", { multiline: true })).toBe("a\nb");
    expect(terminalText("Dangerous command:\n\n\trm -rf build\n\nAllow?", { multiline: true })).toBe("Dangerous command:\n\n\trm -rf build\n\nAllow?");
    expect(terminalText("a\tb\x1b]0;t\x07\n", { multiline: true })).toBe("a\tb\n");
    expect(terminalText("\x1b[1;31mx\x1b[0m", { colors: false })).toBe("x");
  });

  it.each([
    ["conceal", "\x1b[8mhidden", "\x1b[8mhidden\x1b[0m"],
    ["black on black", "\x1b[30;40mx", "\x1b[30;40mx\x1b[0m"],
    ["a colour with 256-colour and truecolor parameters", "\x1b[38;5;196;48;2;1;2;3mx\x1b[49m", "\x1b[38;5;196;48;2;1;2;3mx\x1b[49m\x1b[0m"],
    ["an attribute it does not know", "\x1b[73mx", "\x1b[73mx\x1b[0m"],
    ["each line of multi-line text", "\x1b[8ma\nb\x1b[7m\nc", "\x1b[8ma\x1b[0m\nb\x1b[7m\x1b[0m\nc"],
  ])("ends a line that leaves an SGR attribute set (%s) with a reset", (_what, input, output) => {
    expect(terminalText(input, { multiline: true })).toBe(output);
  });

  it.each([
    ["a colour and its own reset", "\x1b[31mred\x1b[39m"],
    ["bold red closed attribute by attribute", "\x1b[1;31mx\x1b[22;39m"],
    ["256-colour and truecolor closed", "\x1b[38;5;196mx\x1b[39m \x1b[48;2;8;9;10my\x1b[49m"],
    ["a full reset", "\x1b[7mx\x1b[m"],
  ])("leaves a line whose styling is closed as it is (%s)", (_what, input) => {
    expect(terminalText(input)).toBe(input);
  });

  it("shows each format character that reorders or hides text (bidirectional controls, zero-width space, word joiner, byte order mark, line separators) by its code point, on one line and on several; emoji joiners stay", () => {
    const hiding = ["\u061c", "\u200b", "\u200e", "\u200f", "\u2028", "\u2029", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2060", "\u2066", "\u2067", "\u2068", "\u2069", "\ufeff"];
    for (const c of hiding) {
      const code = `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}>`;
      expect(terminalText(`a${c}b`)).toBe(`a${code}b`);
      expect(terminalText(`a${c}b\nc`, { multiline: true })).toBe(`a${code}b\nc`);
    }
    expect(terminalText("👨\u200d👩")).toBe("👨\u200d👩");
  });

  it("hookbox trust lists a hook whose script name holds a zero-width space, or whose command holds a right-to-left override, with each shown (fixtures/hostile/claude-code/hides-its-script-name): the name does not read as the guard beside it", async () => {
    const root = mkdtempSync(join(tmpdir(), "hookbox-hides-name-"));
    try {
      const project = join(root, "project");
      cpSync(join(ROOT, "fixtures", "hostile", "claude-code", "hides-its-script-name"), project, { recursive: true });
      const r = await hookbox(["trust", project, "--approvals", join(root, "approvals")], { env: { PATH: "/usr/bin:/bin", HOME: root } });
      expect(r.stdout).toContain(".claude/hooks/gu<U+200B>ard.sh");
      expect(r.stdout).toContain("# <U+202E>exit 0 <U+2066>");
      expect(r.stdout).not.toMatch(/[\u200b\u202e\u2066]/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("returns plain text as it is (the same string)", () => {
    const text = "plain text with ünïcode ✓ and 漢字";
    expect(terminalText(text)).toBe(text);
  });

  it("leaves no control character but the ESC of a closed SGR sequence, whatever the input", () => {
    const chars = fc.constantFrom("\x1b", "[", "]", "P", "\\", "\x07", "\u009b", "\u009d", "\u009c", "\r", "\n", "\t", "\x00", "\x7f", ";", "2", "J", "m", "a", ":", "H");
    fc.assert(fc.property(fc.array(chars, { maxLength: 40 }).map((a) => a.join("")), fc.boolean(), (input, multiline) => {
      const out = terminalText(input, { multiline });
      // A tab is layout, kept in multi-line text like a newline.
      expect(CONTROL.test(out.replace(SGR_ONLY, "").replace(multiline ? /\t/g : /(?!)/, ""))).toBe(false);
      expect(out.replace(SGR_ONLY, "").includes("\x1b")).toBe(false);
      if (!multiline) expect(out.includes("\n")).toBe(false);
      expect(terminalText(input, { multiline, colors: false }).includes("\x1b")).toBe(false);
    }), { numRuns: 2000 });
  });
});

describe("the CLI's output (gatedOutput)", () => {
  const through = (isTTY: boolean, text: string) => {
    let out = "";
    gatedOutput({ write: (t) => { out += t; }, isTTY }).write(text);
    return out;
  };
  const TEXT = "\u001b[31mred\u001b[0m \u001b]52;c;c2VjcmV0\u0007done\n";

  it("keeps SGR colours on a terminal and removes them when piped (docs/cli.md); an OSC 52 clipboard write is removed in both", () => {
    expect(through(true, TEXT)).toBe("\u001b[31mred\u001b[0m done\n");
    expect(through(false, TEXT)).toBe("red done\n");
  });
});
