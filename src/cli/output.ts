/**
 * Where a command writes, and the gate every write passes. Its own module, so that what Claude Code
 * runs on every event (`hookbox claude-hook`) loads the gate without the CLI's rendering (./render.ts).
 */
import { terminalText } from "../gates/terminal-text.js";

/** Where a command writes. `isTTY` decides whether a progress bar is drawn. */
export interface Output {
  write(text: string): void;
  readonly isTTY: boolean;
  /** Terminal width, when known. */
  readonly columns?: number;
  /** hookbox's own terminal controls (the progress bar), written as they are; `write` otherwise. */
  control?(sequence: string): void;
}

/**
 * `out` with every write through the terminal-text gate (src/gates/terminal-text.ts): control sequences
 * removed, SGR colours kept on a terminal only. `control` writes stay hookbox's own.
 */
export function gatedOutput(out: Output): Output {
  return {
    write: (text) => out.write(terminalText(text, { multiline: true, colors: out.isTTY })),
    control: (sequence) => (out.control ? out.control(sequence) : out.write(sequence)),
    get isTTY() { return out.isTTY; },
    get columns() { return out.columns; },
  };
}

