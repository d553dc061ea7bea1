/**
 * The hook status line: texts set with `ctx.ui.setStatus(key, text)`, stored by key, sorted by key,
 * sanitised, joined with spaces and truncated to a display width. Sanitising is the terminal-text
 * gate (src/gates/terminal-text.ts): ANSI SGR styling (`ESC[…m`) is kept and takes no width, every other
 * control sequence and character is removed (the original's HEAD turns ESC into a space, which
 * leaves `[..m` litter on screen; hookbox keeps the styling the HookUIContext documentation promises).
 */

import stringWidth from "string-width";
import { terminalText, type TerminalTextOptions } from "../gates/terminal-text.js";

const SGR = /\x1b\[[0-9;:]*m/g;

/** The terminal-text gate on one line (newlines and tabs become spaces), runs of spaces collapsed, trimmed. */
export function sanitizeStatusText(text: string, options: TerminalTextOptions = {}): string {
  return terminalText(text, options).replace(/ +/g, " ").trim();
}

/** Display width of one code point (kept for callers that measure code points): see `displayWidth`. */
export function charWidth(cp: number): number {
  return stringWidth(String.fromCodePoint(cp));
}

/**
 * Columns `text` takes on a terminal, SGR sequences ignored: East Asian wide characters and emoji
 * take 2, a ZWJ emoji sequence (a family) takes 2, combining marks take 0 (`string-width`).
 */
export function displayWidth(text: string): number {
  return stringWidth(text.replace(SGR, ""));
}

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Cut `text` to `width` columns, ending with `ellipsis` when cut; SGR sequences are kept and reset. Never splits a grapheme. */
export function truncateToWidth(text: string, width: number, ellipsis = "…"): string {
  if (displayWidth(text) <= width) return text;
  const room = Math.max(0, width - displayWidth(ellipsis));
  let out = "";
  let used = 0;
  let styled = false;
  for (const part of text.split(/(\x1b\[[0-9;:]*m)/)) {
    if (part.startsWith("\x1b[")) { out += part; styled = true; continue; }
    for (const { segment } of graphemes.segment(part)) {
      const w = stringWidth(segment);
      if (used + w > room) return out + (styled ? "\x1b[0m" : "") + ellipsis;
      out += segment;
      used += w;
    }
  }
  return out + ellipsis;
}

/** The store behind `ctx.ui.setStatus`, for hosts to render. */
export class StatusLine {
  readonly #entries = new Map<string, string>();
  readonly #options: TerminalTextOptions;

  /** `colors: false` removes SGR styling too. */
  constructor(options: TerminalTextOptions = {}) {
    this.#options = options;
  }

  /** `undefined` clears the key; text is stored raw and sanitised when rendered. */
  set(key: string, text: string | undefined): void {
    if (text === undefined) this.#entries.delete(key);
    else this.#entries.set(key, text);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** One line, or none when nothing is set: sorted by key, sanitised, joined, truncated. */
  render(width: number): string[] {
    if (this.#entries.size === 0) return [];
    const line = [...this.#entries]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([, text]) => sanitizeStatusText(text, this.#options))
      .filter((t) => t.length > 0)
      .join(" ");
    return [truncateToWidth(line, width)];
  }
}
