/**
 * hookbox/extension's AgentOutput, the writer of isolated modules' output to the agent's stderr, on
 * a terminal of a given width (test/host-output.test.ts runs it through pi's runner and script(1)).
 */
import { describe, expect, it } from "vitest";
import stringWidth from "string-width";
import { AgentOutput } from "../src/extension/output.js";
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
