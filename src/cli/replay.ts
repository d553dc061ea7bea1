/**
 * `hookbox replay <hook…> --events <file.jsonl>`: run a recorded stream of events, one JSON event
 * per line, in order; print one line per event and a per-hook table from `runner.stats()`. A
 * malformed line is reported with its line number, skipped and counted.
 */
import { parseArgs } from "node:util";
import { readFileSync } from "node:fs";
import type { HookError } from "../errors.js";
import { BadEvent, outcomeJson, parseEvent, runEvent, type Outcome } from "./events.js";
import { watchHooks } from "../watch.js";
import { openHost, settle, type CliHost } from "./host.js";
import { Progress, errorLine, preview, statsTable, type Output } from "./render.js";
import { COMMON_HELP, COMMON_OPTIONS, EXIT, UsageError, hostOptions, parse, requireHooks } from "./usage.js";

export const REPLAY_HELP = `Usage: hookbox replay <hook…> --events <file.jsonl> [--json] [--watch]

Run a recorded stream of events through a real HookRunner, in order: one JSON event per line,
each with its "type". Prints one line per event (result, blocked, errors), then a per-hook table:
calls per event, p50 / p99 latency, errors by code, restarts. A malformed line is reported with
its line number and skipped; the summary counts it. On a terminal a progress bar is drawn while
the stream runs; piped output has none.

Options:
  --events <file>   the JSONL stream ("-" for stdin)
  --watch           keep running: when a hook's file (or a file it imports) changes, reload that
                    hook and replay the stream again (Ctrl-C to stop)

${COMMON_HELP}

Examples:
  hookbox replay fixtures/valid/blocks-rm-rf.ts --events demo/session.jsonl
  hookbox replay hooks/*.ts --events session.jsonl --json > report.json
`;

const REPLAY_OPTIONS = {
  events: { type: "string" },
  watch: { type: "boolean" },
} as const;

interface Line { line: number; text: string }
interface Ran { line: number; outcome: Outcome; errors: HookError[] }
interface Malformed { line: number; error: string }

/** Run `replay`; returns the exit code (resolves only on Ctrl-C with `--watch`). */
export async function replay(args: string[], out: Output, signal?: AbortSignal): Promise<number> {
  const { values, positionals } = parse("replay", (c) => parseArgs({ ...c, options: { ...COMMON_OPTIONS, ...REPLAY_OPTIONS } }), args);
  if (values.help) {
    out.write(REPLAY_HELP);
    return EXIT.ok;
  }
  const paths = requireHooks("replay", positionals);
  if (values.events === undefined) throw new UsageError("--events <file.jsonl> is required", "replay");
  if (values.watch && values.json) throw new UsageError("--watch prints text as it goes; it cannot be combined with --json", "replay");
  const lines = readLines(values.events);
  const host = await openHost(paths, hostOptions("replay", values));
  try {
    for (const e of host.loadErrors) out.write(errorLine({ code: e.code, hookPath: e.path, event: "load", error: e.error }, ""));
    await runStream(host, lines, out, Boolean(values.json));
    if (values.watch) await watchAndReplay(host, lines, out, signal);
    return host.loadErrors.length > 0 ? EXIT.hookErrors : EXIT.ok;
  } finally {
    await host.dispose();
  }
}

function readLines(file: string): Line[] {
  let text: string;
  try {
    text = readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (err) {
    throw new UsageError(`cannot read --events ${file}: ${(err as Error).message}`, "replay");
  }
  return text.split(/\r?\n/).map((t, i) => ({ line: i + 1, text: t })).filter((l) => l.text.trim() !== "");
}

async function runStream(host: CliHost, lines: Line[], out: Output, json: boolean): Promise<void> {
  const ran: Ran[] = [];
  const malformed: Malformed[] = [];
  const progress = new Progress(out, lines.length, !json && lines.length >= 20);
  const width = String(lines.at(-1)?.line ?? 1).length;
  for (const { line, text } of lines) {
    let event;
    try {
      event = parseEvent(text);
    } catch (err) {
      if (!(err instanceof BadEvent)) throw err;
      malformed.push({ line, error: err.message });
      if (!json) progress.line(`line ${String(line).padStart(width)}  skipped: ${err.message}\n`);
      progress.tick();
      continue;
    }
    const outcome = await runEvent(host.runner, event);
    await settle();
    const errors = host.takeErrors();
    ran.push({ line, outcome, errors });
    if (!json) progress.line(describe(line, width, outcome, errors));
    progress.tick();
  }
  progress.clear();
  const stats = host.runner.stats();
  const blocked = ran.filter((r) => r.outcome.blocked).length;
  const errorCount = ran.reduce((n, r) => n + r.errors.length + (r.outcome.thrown ? 1 : 0), 0);
  const summary = { events: ran.length, malformed: malformed.length, blocked, errors: errorCount };
  if (json) {
    const events = ran.map((r) => ({ line: r.line, ...outcomeJson(r.outcome, r.errors) }));
    out.write(`${JSON.stringify({ summary, events, malformed, stats }, null, 2)}\n`);
    return;
  }
  const skipped = malformed.length ? `, ${malformed.length} malformed line${malformed.length === 1 ? "" : "s"} skipped (${malformed.map((m) => m.line).join(", ")})` : "";
  out.write(`\n${ran.length} event${ran.length === 1 ? "" : "s"} replayed${skipped}; ${blocked} tool call${blocked === 1 ? "" : "s"} blocked, ${errorCount} error${errorCount === 1 ? "" : "s"}\n\n`);
  out.write(statsTable(stats));
}

function describe(line: number, width: number, o: Outcome, errors: HookError[]): string {
  let what: string;
  if (o.blocked) what = `blocked: ${o.reason}`;
  else if (o.type === "tool_call") what = "allowed";
  else if (o.result === undefined) what = "ok";
  else what = `result ${preview(o.result)}`;
  const all = [...(o.thrown ? [o.thrown] : []), ...errors];
  return `line ${String(line).padStart(width)}  ${o.type.padEnd(20)}  ${what}\n${all.map((e) => errorLine(e, " ".repeat(width + 7))).join("")}`;
}

/** `--watch`: replay again after each successful reload, until `signal` aborts (default: Ctrl-C). */
async function watchAndReplay(host: CliHost, lines: Line[], out: Output, signal?: AbortSignal): Promise<void> {
  await new Promise<void>((resolve) => {
    let running = Promise.resolve();
    const watcher = watchHooks(host.runner, {
      onReload: (hookPath, error) => {
        host.takeErrors();
        if (error) {
          out.write(`\n${errorLine(error, "")}`);
          return;
        }
        running = running.then(async () => {
          out.write(`\n${hookPath} reloaded; replaying ${lines.length} line${lines.length === 1 ? "" : "s"}\n\n`);
          await runStream(host, lines, out, false);
          out.write("\nwatching (Ctrl-C to stop)\n");
        });
      },
    });
    // Printed once the folders are watched, so an edit made on seeing it is never missed.
    out.write("\nwatching the hooks and the files they import; edit one to replay again (Ctrl-C to stop)\n");
    // Idle workers are unref()'d and the folder watchers are not persistent: hold the process
    // open while waiting for an edit.
    const keepAlive = setInterval(() => {}, 1 << 30);
    const stop = () => {
      clearInterval(keepAlive);
      watcher.close();
      void running.then(() => resolve());
    };
    if (signal) signal.addEventListener("abort", stop, { once: true });
    else process.once("SIGINT", stop);
  });
}
