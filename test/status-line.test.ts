/** src/runner/status-line.ts: the setStatus store, sanitising, sorting and truncation to a width. */
import { describe, expect, it } from "vitest";
import { StatusLine, displayWidth, sanitizeStatusText, truncateToWidth } from "../src/index.js";
import { charWidth } from "../src/runner/status-line.js";

const RED = "\x1b[31m";
const RESET = "\x1b[0m";

describe("sanitizeStatusText", () => {
  it("turns \\r, \\n and \\t into spaces, collapses runs of spaces and trims", () => {
    expect(sanitizeStatusText("  a\r\nb\t\tc   d  ")).toBe("a b c d");
  });

  it("removes every other C0 and C1 control character (the terminal-text gate)", () => {
    expect(sanitizeStatusText("a\u0000b\u0007c\u007fd\u0085e f")).toBe("abcde f");
    // 0x9b is the C1 CSI introducer: with "e" as its final byte it is a whole sequence, removed.
    expect(sanitizeStatusText("d\u009be f")).toBe("d f");
  });

  it("keeps ANSI SGR styling, as the HookUIContext documentation promises", () => {
    expect(sanitizeStatusText(`${RED}red${RESET}\nnext`)).toBe(`${RED}red${RESET} next`);
  });

  it("removes a control sequence that is not SGR whole, leaving no litter", () => {
    expect(sanitizeStatusText("a\x1b]0;title\x07b")).toBe("ab");
    expect(sanitizeStatusText("a\x1b[2Jb")).toBe("ab");
    expect(sanitizeStatusText("a \x1b]52;c;ZXZpbA==\x07b")).toBe("a b");
  });

  it("removes SGR styling too with colors: false", () => {
    expect(sanitizeStatusText(`${RED}red${RESET}`, { colors: false })).toBe("red");
  });
});

describe("display width", () => {
  it("counts East Asian wide characters and emoji as two columns and combining marks as none", () => {
    expect(charWidth("漢".codePointAt(0)!)).toBe(2);
    expect(charWidth("😀".codePointAt(0)!)).toBe(2);
    expect(charWidth(0x301)).toBe(0);
    expect(displayWidth("e\u0301")).toBe(1);
    expect(displayWidth("ab漢😀")).toBe(6);
  });

  it("counts 🚀 ✅ ⚡ as two columns each and a ZWJ family as two, not six", () => {
    expect(displayWidth("🚀✅⚡")).toBe(6);
    expect(displayWidth("👨‍👩‍👧‍👦")).toBe(2);
    expect(displayWidth("状态 ok")).toBe(7);
  });

  it("never cuts a ZWJ sequence in half when truncating", () => {
    expect(truncateToWidth("👨‍👩‍👧‍👦👨‍👩‍👧‍👦", 3)).toBe("👨‍👩‍👧‍👦…");
  });

  it("ignores SGR sequences", () => {
    expect(displayWidth(`${RED}abc${RESET}`)).toBe(3);
  });
});

describe("truncateToWidth", () => {
  it("returns text that fits unchanged", () => {
    expect(truncateToWidth("abc", 3)).toBe("abc");
    expect(truncateToWidth(`${RED}abc${RESET}`, 3)).toBe(`${RED}abc${RESET}`);
  });

  it("cuts text that does not fit and ends it with the ellipsis, within the width", () => {
    expect(truncateToWidth("abcdef", 4)).toBe("abc…");
    expect(displayWidth(truncateToWidth("abcdef", 4))).toBe(4);
    expect(truncateToWidth("abcdef", 4, "...")).toBe("a...");
  });

  it("never splits a wide character over the edge", () => {
    expect(truncateToWidth("漢字漢字", 4)).toBe("漢…");
    expect(displayWidth(truncateToWidth("漢字漢字", 4))).toBe(3);
  });

  it("resets styling before the ellipsis when it cuts styled text", () => {
    expect(truncateToWidth(`${RED}abcdef`, 4)).toBe(`${RED}abc${RESET}…`);
  });
});

describe("StatusLine", () => {
  it("renders nothing while no status is set", () => {
    expect(new StatusLine().render(80)).toEqual([]);
  });

  it("renders one line: entries sorted by key, sanitised, joined with spaces", () => {
    const line = new StatusLine();
    line.set("zeta", "last");
    line.set("alpha", "first\nline");
    line.set("mid", "  middle ");
    expect(line.render(80)).toEqual(["first line middle last"]);
  });

  it("replaces the text of a key that is set again, and clears a key set to undefined", () => {
    const line = new StatusLine();
    line.set("a", "one");
    line.set("b", "two");
    line.set("a", "uno");
    expect(line.render(80)).toEqual(["uno two"]);
    line.set("a", undefined);
    expect(line.size).toBe(1);
    expect(line.render(80)).toEqual(["two"]);
    line.set("b", undefined);
    expect(line.render(80)).toEqual([]);
  });

  it("sorts keys with localeCompare, not by code unit", () => {
    const line = new StatusLine();
    line.set("b", "2");
    line.set("B", "1");
    line.set("a", "0");
    // Code-unit order would be B, a, b.
    expect(line.render(80)).toEqual(["0 2 1"]);
  });

  it("stores text raw and sanitises it only when rendering", () => {
    const line = new StatusLine();
    line.set("k", "a\tb");
    line.set("k2", "c");
    expect(line.render(80)).toEqual(["a b c"]);
  });

  it("truncates the joined line to the display width", () => {
    const line = new StatusLine();
    line.set("a", "0123456789");
    line.set("b", "abcdefghij");
    expect(line.render(12)).toEqual(["0123456789 …"]);
    expect(displayWidth(line.render(12)[0]!)).toBe(12);
  });
});
