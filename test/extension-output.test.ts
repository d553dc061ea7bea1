/**
 * hookbox/extension's AgentOutput, the writer of isolated modules' output to the agent's stderr, on
 * a terminal of a given width (test/host-output.test.ts runs it through pi's runner and script(1)).
 */
import { describe, expect, it } from "vitest";
import stringWidth from "string-width";
import { AgentOutput, MAX_BYTES, MAX_LINES, droppedNotice } from "../src/extension/output.js";
import { terminalText } from "../src/gates/terminal-text.js";

/** A module's gated line written by an AgentOutput onto a terminal of `columns`; the rows it makes. */
async function rows(line: string, columns: number): Promise<string[]> {
  let out = "";
  const output = new AgentOutput(() => "text", "/project", (text) => { out += text; }, () => columns);
  await output.ready;
  output.onLog("/project/m.ts", "stderr", terminalText(line, { multiline: true }));
  return out.split("\n").slice(0, -1);
}

describe("AgentOutput on a terminal", () => {
  it("cuts a styled line into rows of the terminal's width, each starting with the module's name unstyled (a reset before it)", async () => {
    const got = await rows(`\x1b[8m${"x".repeat(50)}`, 20);
    expect(got.length).toBe(4);
    for (const [i, row] of got.entries()) {
      // The prefix comes first on every row, and on every row after the first a reset comes before the row ends.
      expect(row.startsWith("[m.ts] ")).toBe(true);
      expect(stringWidth(row)).toBeLessThanOrEqual(20);
      if (i < got.length - 1) expect(row.endsWith("\x1b[0m")).toBe(true);
    }
  });

  it("counts wide characters as two cells: a row never holds more than the terminal's width", async () => {
    for (const row of await rows("漢".repeat(40), 21)) expect(stringWidth(row)).toBeLessThanOrEqual(21);
  });
});

describe("AgentOutput's bound", () => {
  /** What `count` lines of `chars` characters from one module make on a stderr that is not a terminal. */
  function flood(count: number, chars: number): string[] {
    let out = "";
    const output = new AgentOutput(() => "text", "/project", (text) => { out += text; }, () => undefined);
    for (let i = 0; i < count; i++) output.onLog("/project/m.ts", "stderr", `${i} ${"x".repeat(chars)}`);
    return out.split("\n").slice(0, -1);
  }

  it(`${MAX_BYTES / 1024} KiB in a window: fewer than ${MAX_LINES} lines of 4000 characters are shown, then one line says the rest is dropped (control: as many short lines all show)`, () => {
    const shown = Math.floor(MAX_BYTES / Buffer.byteLength(`[m.ts] 10 ${"x".repeat(4000)}\n`));
    const lines = flood(40, 4000);
    expect(lines).toHaveLength(shown + 1);
    expect(lines.slice(0, shown).every((l, i) => l.startsWith(`[m.ts] ${i} x`))).toBe(true);
    expect(lines.at(-1)).toBe(droppedNotice("m.ts"));
    expect(flood(40, 10)).toHaveLength(40);
  });
});
