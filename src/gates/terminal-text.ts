/**
 * The one gate for hook text bound for a terminal: the embedder's UI (prompts, notifications, the
 * status line, renderer and `custom()` lines, block reasons, error messages) and hookbox's own CLI.
 * Why a gate: OSC 52 writes the user's clipboard, OSC 0 the window title, CSI 2J clears the screen,
 * cursor moves redraw what the user reads, and DCS or a C1 CSI (0x9b) does the same in one byte.
 *
 * Closed: every control sequence `ansi-regex` matches (OSC, DCS/SOS/PM/APC, CSI with ESC or C1
 * introducers, ESC escapes) is removed, except SGR styling that matches `ESC [ [0-9;:]* m` exactly
 * (kept unless `colors: false`); then every remaining C0 control, DEL and C1 (0x80-0x9f) character
 * is removed, so an unterminated sequence leaves visible litter at worst, never a live control.
 * Newline and tab are layout, not controls: where the text may have several lines (a dialog's title
 * or message, a notification, an editor's text) both are kept as the hook wrote them, as the agent
 * shows them in-process; on one line (a status, an option, a renderer line) a tab becomes spaces and
 * a newline a space.
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
const TAB = /\t/g;

/** `text` with every terminal control removed but SGR styling (kept unless `colors: false`). */
export function terminalText(text: string, options: GateOptions = {}): string {
  if (options.multiline ? !SUSPECT_MULTILINE.test(text) : !SUSPECT.test(text) && !text.includes("\n")) return text;
  const colors = options.colors ?? true;
  const plain = options.multiline ? (part: string) => part.replace(CONTROL_KEEP_LAYOUT, "")
    : (part: string) => part.replace(TAB, "    ").replace(CONTROL, (c) => (c === "\n" ? " " : ""));
  let out = "";
  let last = 0;
  for (const m of text.matchAll(SEQUENCE)) {
    out += plain(text.slice(last, m.index));
    if (colors && SGR.test(m[0])) out += m[0];
    last = m.index + m[0].length;
  }
  return out + plain(text.slice(last));
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
