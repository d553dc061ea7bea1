/**
 * The one gate for hook text bound for a terminal: the embedder's UI (prompts, notifications, the
 * status line, renderer and `custom()` lines, block reasons, error messages) and hookbox's own CLI.
 * Why a gate: OSC 52 writes the user's clipboard, OSC 0 the window title, CSI 2J clears the screen,
 * cursor moves redraw what the user reads, and DCS or a C1 CSI (0x9b) does the same in one byte.
 *
 * Closed: every control sequence `ansi-regex` matches (OSC, DCS/SOS/PM/APC, CSI with ESC or C1
 * introducers, ESC escapes) is removed, except SGR styling that matches `ESC [ [0-9;:]* m` exactly
 * (kept unless `colors: false`); then every remaining C0 control, DEL and C1 (0x80-0x9f) character
 * is removed, so an unterminated sequence leaves visible litter at worst, never a live control; a
 * format character that reorders or hides text is shown by its code point.
 * Newline and tab are layout, not controls: where the text may have several lines (a dialog's title
 * or message, a notification, an editor's text) both are kept as the hook wrote them, as the agent
 * shows them in-process; on one line (a status, an option, a renderer line) a tab becomes spaces and
 * a newline a space.
 *
 * A kept SGR sequence styles what follows it on the terminal, past the hook's text: a line that
 * leaves an attribute set (conceal, black on black, a colour) ends with a reset (`ESC[0m`), so the
 * text written after it (the agent's, hookbox's, the next line's `[module]` prefix) shows as written.
 */
import ansiRegex from "ansi-regex";

/** How hook text is shown: `colors: false` removes SGR styling too (the `terminalText` option). */
export interface TerminalTextOptions {
  /** Keep SGR colours and styles (`ESC[…m`). Default true. */
  colors?: boolean;
}

export interface GateOptions extends TerminalTextOptions {
  /** Keep newlines and tabs (a dialog's title or message, a notification, an editor's text); otherwise they become spaces. */
  multiline?: boolean;
}

const SEQUENCE = ansiRegex();
const SGR = /^\x1b\[[0-9;:]*m$/;
/** Anything the gate has to look at: a C0 control other than newline, DEL, C1. */
const SUSPECT = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
/** The same, less tab: what multi-line text must not hold. */
const SUSPECT_MULTILINE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const CONTROL_KEEP_LAYOUT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;
/**
 * Format characters that reorder or hide what the reader sees (bidirectional controls, zero-width
 * spaces, the word joiner, the byte order mark, line and paragraph separators): shown as `<U+XXXX>`.
 * Why shown and not removed: a file name with a zero-width space reads as another file's name, and a
 * right-to-left override shows a command in an order it does not run in (Trojan Source); the reader
 * must see that they are there (`hookbox trust` lists a project's commands this way).
 */
const HIDING = /[\u061c\u200b\u200e\u200f\u2028-\u202e\u2060\u2066-\u2069\ufeff]/g;
const HIDING_TEST = /[\u061c\u200b\u200e\u200f\u2028-\u202e\u2060\u2066-\u2069\ufeff]/;
const shown = (c: string) => `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}>`;
const TAB = /\t/g;

/** SGR `ESC[0m`: every attribute back to the terminal's default. */
export const RESET = "\x1b[0m";
/**
 * Each SGR attribute's group: the parameters that set it (a range), the one that clears it.
 * A parameter in no group but 0 is counted as set until a full reset (kept, conservatively).
 */
const GROUPS: Array<{ sets: (p: number) => boolean; clear: number }> = [
  { sets: (p) => p === 1 || p === 2, clear: 22 },
  { sets: (p) => p === 3, clear: 23 },
  { sets: (p) => p === 4 || p === 21, clear: 24 },
  { sets: (p) => p === 5 || p === 6, clear: 25 },
  { sets: (p) => p === 7, clear: 27 },
  { sets: (p) => p === 8, clear: 28 },
  { sets: (p) => p === 9, clear: 29 },
  { sets: (p) => (p >= 30 && p <= 38) || (p >= 90 && p <= 97), clear: 39 },
  { sets: (p) => (p >= 40 && p <= 48) || (p >= 100 && p <= 107), clear: 49 },
  { sets: (p) => p === 51 || p === 52, clear: 54 },
  { sets: (p) => p === 53, clear: 55 },
  { sets: (p) => p === 58, clear: 59 },
];

/** Whether the SGR sequences of `line`, in order, leave an attribute set at its end. */
function leavesStyle(line: string): boolean {
  const set = new Set<number>();
  for (const [sequence] of line.matchAll(/\x1b\[([0-9;:]*)m/g)) {
    const params = sequence.slice(2, -1).split(";");
    for (let i = 0; i < params.length; i++) {
      // A colon sub-parameter list (`38:2::1:2:3`) is one attribute: its first number says which.
      const p = params[i] === "" ? 0 : Number.parseInt(params[i]!, 10);
      if (p === 0) { set.clear(); continue; }
      const cleared = GROUPS.findIndex((g) => g.clear === p);
      if (cleared >= 0) { set.delete(cleared); continue; }
      const group = GROUPS.findIndex((g) => g.sets(p));
      set.add(group >= 0 ? group : -1);
      // `38;5;n` and `38;2;r;g;b` (also 48, 58): the colour's own parameters follow.
      if ((p === 38 || p === 48 || p === 58) && !params[i]!.includes(":")) i += params[i + 1] === "5" ? 2 : params[i + 1] === "2" ? 4 : 0;
    }
  }
  return set.size > 0;
}

/** `text` with every line that leaves an SGR attribute set ended by a reset. */
function closeStyles(text: string): string {
  if (!text.includes("\x1b")) return text;
  return text.split("\n").map((line) => (leavesStyle(line) ? line + RESET : line)).join("\n");
}

/** `text` with every terminal control removed but SGR styling (kept unless `colors: false`), each line's styling closed. */
export function terminalText(text: string, options: GateOptions = {}): string {
  if ((options.multiline ? !SUSPECT_MULTILINE.test(text) : !SUSPECT.test(text) && !text.includes("\n")) && !HIDING_TEST.test(text)) return text;
  const colors = options.colors ?? true;
  const plain = options.multiline ? (part: string) => part.replace(CONTROL_KEEP_LAYOUT, "").replace(HIDING, shown)
    : (part: string) => part.replace(TAB, "    ").replace(CONTROL, (c) => (c === "\n" ? " " : "")).replace(HIDING, shown);
  let out = "";
  let last = 0;
  for (const m of text.matchAll(SEQUENCE)) {
    out += plain(text.slice(last, m.index));
    if (colors && SGR.test(m[0])) out += m[0];
    last = m.index + m[0].length;
  }
  return closeStyles(out + plain(text.slice(last)));
}

/** Each string of `lines` through the gate (one line each: a newline becomes a space). */
export function terminalLines(lines: readonly string[], options: TerminalTextOptions = {}): string[] {
  return lines.map((line) => terminalText(line, options));
}

/**
 * Text a module wrote to its own output (stdout, stderr, `console`, `pi.logger`), as its policy's
 * `terminal` field passes it: `raw` as written (the module may write escapes to the person's
 * terminal: `trusted` only), otherwise through the gate with newlines and tabs kept.
 */
export function outputText(text: string, raw: boolean, options: TerminalTextOptions = {}): string {
  return raw ? text : terminalText(text, { ...options, multiline: true });
}
