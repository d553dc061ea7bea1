/**
 * The hook status line: texts set with `ctx.ui.setStatus(key, text)`, stored by key, sorted by key,
 * sanitised, joined with spaces and truncated to a display width. ANSI SGR styling (`ESC[…m`) is
 * kept and takes no width; every other control character becomes a space (the original's HEAD
 * turns ESC into a space too, which leaves `[..m` litter on screen; hookbox keeps the styling the
 * HookUIContext documentation promises).
 */

const SGR = /\x1b\[[0-9;]*m/g;
const CONTROL = /[\u0000-\u001a\u001c-\u001f\u007f-\u009f]|\x1b(?!\[[0-9;]*m)/g;

/** Control characters to spaces (SGR sequences kept), runs of spaces collapsed, trimmed. */
export function sanitizeStatusText(text: string): string {
  return text.replace(CONTROL, " ").replace(/ +/g, " ").trim();
}

/** Display width of one code point: 0 for combining marks, 2 for East Asian wide and emoji, else 1. */
export function charWidth(cp: number): number {
  if (cp < 32 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || cp === 0xfe0f) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0x303e) || (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) || (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) || (cp >= 0x20000 && cp <= 0x3fffd)
  ) return 2;
  return 1;
}

/** Width on screen, ignoring SGR sequences. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text.replace(SGR, "")) width += charWidth(ch.codePointAt(0)!);
  return width;
}

/** Cut `text` to `width` columns, ending with `ellipsis` when cut; SGR sequences are kept and reset. */
export function truncateToWidth(text: string, width: number, ellipsis = "…"): string {
  if (displayWidth(text) <= width) return text;
  const room = Math.max(0, width - displayWidth(ellipsis));
  let out = "";
  let used = 0;
  let styled = false;
  for (const part of text.split(/(\x1b\[[0-9;]*m)/)) {
    if (part.startsWith("\x1b[")) { out += part; styled = true; continue; }
    for (const ch of part) {
      const w = charWidth(ch.codePointAt(0)!);
      if (used + w > room) return out + (styled ? "\x1b[0m" : "") + ellipsis;
      out += ch;
      used += w;
    }
  }
  return out + ellipsis;
}

/** The store behind `ctx.ui.setStatus`, for hosts to render. */
export class StatusLine {
  readonly #entries = new Map<string, string>();

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
      .map(([, text]) => sanitizeStatusText(text))
      .filter((t) => t.length > 0)
      .join(" ");
    return [truncateToWidth(line, width)];
  }
}
