/**
 * What an isolated module writes itself (`console`, `process.stdout` / `process.stderr`,
 * `pi.logger`) reaches the agent's stderr, as the module's own writes reach it in the agent's
 * process: pi sends an extension's stdout to its stderr in `-p` and `--mode rpc` (its stdout is the
 * protocol there), so every stream goes to stderr, never to the agent's stdout, which a module must
 * not be able to write protocol lines to.
 *
 * Each line arrives already passed as the module's `policy.terminal` says (src/isolation/
 * supervisor.ts). Under `"raw"` (trusted) it is written as the module wrote it: no prefix, so the
 * agent's stderr reads as in-process. Under `"text"` each line starts with `[<module>] `: why a
 * prefix: the person must know which isolated module wrote a line, and a module they did not write
 * must not be able to pass its lines off as the agent's or hookbox's own.
 *
 * One line of the terminal has one writer: a line a module left open (text without a newline) is
 * ended where another module writes, in this `isolate()` or another, so the first one's next text
 * starts a line with its own prefix. Why: a continuation is written bare, and after another's
 * newline it would start a line of the terminal without the module's name.
 *
 * Where the agent's stderr is a terminal, a `"text"` module's line is cut into rows of the
 * terminal's width, each row after the first prefixed too (`wrapRows`). Why: the terminal would wrap
 * a longer line itself, and the row it starts would begin with the module's text, unprefixed.
 *
 * Bounded per module: `MAX_LINES` lines and `MAX_BYTES` bytes per `WINDOW_MS`; past either, the
 * rest of that window is dropped and one line says so. Nothing is queued, so a flood costs no memory.
 */
import { resolvePolicy, type TerminalAccess } from "../policy/policy.js";
import { hookOptions, type LoadOptions } from "../runner/loader.js";
import { below } from "../gates/inside.js";
import { RESET, terminalText } from "../gates/terminal-text.js";

/** Lines one module may write to the agent's stderr per window. */
export const MAX_LINES = 200;
/** Bytes one module may write to the agent's stderr per window. */
export const MAX_BYTES = 64 * 1024;
/** The window of both bounds, in ms. */
export const WINDOW_MS = 10_000;

/** The line said once per window when a module's output starts being dropped. */
export function droppedNotice(name: string): string {
  return `[hookbox] output of ${name} is being dropped: over ${MAX_LINES} lines or ${MAX_BYTES / 1024} KiB in ${WINDOW_MS / 1000} s (it resumes when the ${WINDOW_MS / 1000} s are over)`;
}

/**
 * How a module is named on the agent's stderr: its path from the agent's folder when inside it, else
 * its absolute path, through the terminal-text gate (a cloned repository names its files: a name may
 * hold an OSC or a carriage return).
 */
export function moduleName(hookPath: string, cwd: string): string {
  return terminalText(below(cwd, hookPath) || hookPath, { colors: false });
}

/**
 * What counts a terminal's cells: `string-width` and a grapheme segmenter, loaded by `terminalCells()`
 * when output first goes to a terminal. Why not at import: the first `Intl.Segmenter` loads ICU's
 * break data, and with `string-width` it is about 10 ms of the agent's start, which a start whose
 * stderr is not a terminal (pi -p, rpc) never needs.
 */
let cells: { width: (text: string) => number; graphemes: Intl.Segmenter } | undefined;
let loading: Promise<void> | undefined;

/** Loads what `wrapRows` counts cells with (once; later calls share the load). */
export function terminalCells(): Promise<void> {
  return (loading ??= import("string-width").then(({ default: width }) => {
    cells = { width, graphemes: new Intl.Segmenter(undefined, { granularity: "grapheme" }) };
  }));
}

/**
 * `text` in rows of at most `columns` cells, where the terminal would wrap it a newline and `prefix`
 * put in (after a reset, when the text is styled), so that no row of the screen starts with the
 * module's own text. `column`: the cells the current row already holds; returned: the text and the
 * column after it. A terminal that draws a character wider than `string-width` says wraps sooner.
 * Needs `terminalCells()` done (`AgentOutput.ready`); before that the text is returned uncut.
 */
export function wrapRows(text: string, prefix: string, column: number, columns: number): { text: string; column: number } {
  if (!cells) return { text, column };
  const { width: stringWidth, graphemes } = cells;
  const indent = stringWidth(prefix);
  if (columns <= indent) return { text, column };
  let out = "";
  let styled = false;
  for (const part of text.split(/(\x1b\[[0-9;:]*m)/)) {
    if (part.startsWith("\x1b[")) { out += part; styled = true; continue; }
    for (const { segment } of graphemes.segment(part)) {
      if (segment === "\n") { out += segment; column = 0; continue; }
      const width = segment === "\t" ? 8 - (column % 8) : stringWidth(segment);
      if (column + width > columns) {
        out += `${styled ? RESET : ""}\n${prefix}`;
        column = indent;
      }
      out += segment;
      column += width;
    }
  }
  return { text: out, column };
}

/** The agent's stderr as it is at the time of each write (the agent may replace it). */
const toStderr = (text: string): void => { process.stderr.write(text); };
/** Per destination (each `write`), the module whose line is open on it, shared by every AgentOutput. */
const openLines = new WeakMap<(text: string) => void, { by?: ModuleState }>();

interface ModuleState {
  windowStart: number;
  lines: number;
  bytes: number;
  dropping: boolean;
  /** The last text written left its line open: the next one continues it (no prefix). */
  open: boolean;
  /** The cells the open line's current row holds on the terminal. */
  column: number;
}

export class AgentOutput {
  readonly #modules = new Map<string, ModuleState>();
  readonly #terminalOf: (hookPath: string) => TerminalAccess;
  readonly #cwd: string;
  readonly #write: (text: string) => void;
  readonly #line: { by?: ModuleState };
  readonly #columns: () => number | undefined;
  /**
   * Resolves when what counts a terminal's cells is loaded, where `columns` names a terminal now
   * (at once otherwise): the agent's start waits for it before any module can write.
   */
  readonly ready: Promise<void>;

  /**
   * `terminalOf(hookPath)`: the module's `policy.terminal`. `write` is where the text goes: the
   * agent's `process.stderr` as it is at the time of the write (the agent may have replaced it).
   */
  constructor(terminalOf: (hookPath: string) => TerminalAccess, cwd: string, write: (text: string) => void = toStderr,
    /** The terminal's width where `write` draws on one (the agent's stderr: when it is a TTY), else undefined. */
    columns: () => number | undefined = () => (write === toStderr && process.stderr.isTTY ? process.stderr.columns : undefined)) {
    this.#columns = columns;
    this.#terminalOf = terminalOf;
    this.#cwd = cwd;
    this.#write = write;
    let line = openLines.get(write);
    if (!line) openLines.set(write, line = {});
    this.#line = line;
    this.ready = columns() === undefined ? Promise.resolve() : terminalCells();
  }

  /** The `onLog` of `isolate()` when the caller gave none. */
  readonly onLog = (hookPath: string, _level: string, line: string, unterminated?: boolean): void => {
    const state = this.#state(hookPath);
    const shared = this.#line;
    if (shared.by !== undefined && shared.by !== state) {
      shared.by.open = false;
      shared.by = undefined;
      this.#emit("\n");
    }
    const raw = this.#terminalOf(hookPath) === "raw";
    const prefix = raw ? "" : `[${moduleName(hookPath, this.#cwd)}] `;
    // A logger line may hold newlines: each line it makes is one line on the screen, each prefixed.
    const text = (raw || !line.includes("\n") ? line : line.split("\n").join(`\n${prefix}`)) + (unterminated ? "" : "\n");
    let out = state.open ? text : prefix + text;
    const columns = raw ? undefined : this.#columns();
    let column = 0;
    // A stderr that became a terminal after the start: its rows are cut once the counting is loaded.
    if (columns && !cells) void terminalCells();
    if (columns) ({ text: out, column } = wrapRows(out, prefix, state.open ? state.column : 0, columns));
    const now = Date.now();
    if (now - state.windowStart >= WINDOW_MS) Object.assign(state, { windowStart: now, lines: 0, bytes: 0, dropping: false });
    const bytes = Buffer.byteLength(out);
    if (state.dropping || state.lines + 1 > MAX_LINES || state.bytes + bytes > MAX_BYTES) {
      if (!state.dropping) {
        state.dropping = true;
        this.#emit(`${state.open ? "\n" : ""}${droppedNotice(moduleName(hookPath, this.#cwd))}\n`);
        state.open = false;
        shared.by = undefined;
      }
      return;
    }
    state.lines++;
    state.bytes += bytes;
    state.open = unterminated === true;
    state.column = column;
    shared.by = state.open ? state : undefined;
    this.#emit(out);
  };

  #state(hookPath: string): ModuleState {
    let state = this.#modules.get(hookPath);
    if (!state) this.#modules.set(hookPath, state = { windowStart: -Infinity, lines: 0, bytes: 0, dropping: false, open: false, column: 0 });
    return state;
  }

  #emit(text: string): void {
    try { this.#write(text); } catch { /* the agent's stderr is gone: nothing to tell */ }
  }
}

/**
 * `options` with `onLog` writing to the agent's stderr (`AgentOutput`), unless the caller gave one
 * (then the caller's `onLog` gets every line, as under `loadHooks`). Each module's prefix follows
 * its own policy (`perHook` included); a policy that does not resolve fails that module's load, and
 * any line it wrote first is shown as `"text"`.
 */
export function withAgentOutput<T extends LoadOptions>(options: T, cwd = process.cwd()): { options: T; ready: Promise<void> } {
  if (options.onLog) return { options, ready: Promise.resolve() };
  const known = new Map<string, TerminalAccess>();
  const terminalOf = (hookPath: string): TerminalAccess => {
    let terminal = known.get(hookPath);
    if (terminal === undefined) {
      try { terminal = resolvePolicy(hookOptions(options, hookPath, hookPath).policy).terminal; } catch { terminal = "text"; }
      known.set(hookPath, terminal);
    }
    return terminal;
  };
  const output = new AgentOutput(terminalOf, cwd);
  return { options: { ...options, onLog: output.onLog }, ready: output.ready };
}
