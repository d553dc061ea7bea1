/**
 * `hookbox replay <hook…> --events <file.jsonl>`: run a recorded stream of events, one JSON event
 * per line, in order; print one line per event and a per-hook table from `runner.stats()`. A
 * malformed line is reported with its line number, skipped and counted.
 */
import { readFileSync, watch } from "node:fs";
import type { HookError } from "../contract/errors.js";
import { BadEvent, isRefusal, outcomeJson, parseEvent, runEvent, type Outcome } from "./events.js";
import { watchHooks } from "../runner/watch.js";
import { openHost, settle, type CliHost } from "./host.js";
import { Progress, editLines, errorLine, errorWithStack, preview, refusedLine, statsTable, type Output } from "./render.js";
import { promptLine } from "./ui.js";
import {
  COMMON_FLAGS, EXIT, POLICY_SECTION, TIMEOUT_FLAG, UI_SECTION, UsageError, command, hostOptions, readCommand, type Flags,
} from "./usage.js";

const REPLAY_FLAGS = {
  events: { type: "string", arg: "<file>", help: "the JSONL stream (\"-\" for stdin)" },
  watch: {
    type: "boolean",
    help: "keep running: when a hook's file (or a file it imports) changes, reload that\nhook and replay the stream again; when the events file changes, read it\nagain and replay it (Ctrl-C to stop)",
  },
} as const satisfies Flags;

export const REPLAY = command("replay", {
  usage: "Usage: hookbox replay <hook…> --events <file.jsonl> [--agent hooks|pi|omp] [--json] [--watch]",
  about: `Run a recorded stream of events through a real HookRunner, in order: one JSON event per line,
each with its "type" (an event of the hooks' agent: --agent). Prints one line per event (result,
blocked, errors), below it every edit the hooks made to the event that the host applied (field
path: before → after) and what the host refused (each HookError of that kind, with its code), then
a per-hook table: calls per event, p50 / p99 latency, errors by code, restarts. A malformed line is
reported with its line number and skipped; the summary counts it. On a terminal a progress bar is
drawn while the stream runs; piped output has none.`,
  sections: [
    { title: "Options:", flags: REPLAY_FLAGS },
    { title: "Common options:", flags: { ...COMMON_FLAGS, ...TIMEOUT_FLAG } },
    POLICY_SECTION,
    UI_SECTION,
  ],
  tail: `Examples (examples/ ships in the package):
  hookbox replay examples/hooks/confirm-destructive.ts --events examples/session.jsonl --confirm no
  hookbox replay hooks/*.ts --events session.jsonl --json > report.json
`,
});
export const REPLAY_HELP = REPLAY.help;

interface Line { line: number; text: string }
interface Ran { line: number; outcome: Outcome; errors: HookError[]; prompts: CliHost["prompts"]; logs: CliHost["logs"] }
interface Malformed { line: number; error: string }

/** Run `replay`; returns the exit code (resolves only on Ctrl-C with `--watch`). */
export async function replay(args: string[], out: Output, signal?: AbortSignal, err: Output = out): Promise<number> {
  const read = readCommand(args, REPLAY, out);
  if (read === undefined) return EXIT.ok;
  const { values, paths } = read;
  if (values.events === undefined) throw new UsageError("--events <file.jsonl> is required");
  if (values.watch && values.json) throw new UsageError("--watch prints text as it goes; it cannot be combined with --json");
  const options = hostOptions(values);
  const file = values.events;
  if (values.watch && file === "-") throw new UsageError("--watch needs an events file it can watch, not stdin");
  const lines = readLines(file);
  const host = await openHost(paths, options);
  try {
    if (host.inferred && !values.json) err.write(`agent: ${host.agent} (inferred: ${host.inferred}; --agent chooses)\n`);
    for (const e of host.loadErrors) out.write(errorLine({ code: e.code, hookPath: e.path, event: "load", error: e.error }, ""));
    const summary = await runStream(host, lines, out, Boolean(values.json), err);
    if (values.watch) await watchAndReplay(host, file, lines, out, err, signal);
    if (host.loadErrors.length > 0) return EXIT.hookErrors;
    return options.failOnError && summary.errors > 0 ? EXIT.hookErrors : EXIT.ok;
  } finally {
    await host.dispose();
  }
}

function readLines(file: string): Line[] {
  let text: string;
  try {
    text = readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (err) {
    throw new UsageError(`cannot read --events ${file}: ${(err as Error).message}`);
  }
  return text.split(/\r?\n/).map((t, i) => ({ line: i + 1, text: t })).filter((l) => l.text.trim() !== "");
}

interface Summary { events: number; malformed: number; blocked: number; errors: number; edited: number; refused: number }

async function runStream(host: CliHost, lines: Line[], out: Output, json: boolean, err: Output): Promise<Summary> {
  const ran: Ran[] = [];
  const malformed: Malformed[] = [];
  const progress = new Progress(out, lines.length, !json && lines.length >= 20);
  const width = String(lines.at(-1)?.line ?? 1).length;
  for (const { line, text } of lines) {
    let event;
    try {
      event = parseEvent(text, undefined, host.agent);
    } catch (err) {
      if (!(err instanceof BadEvent)) throw err;
      malformed.push({ line, error: err.message });
      if (!json) progress.line(`line ${String(line).padStart(width)}  skipped: ${err.message}\n`);
      progress.tick();
      continue;
    }
    const prompted = host.prompts.length;
    const logged = host.logs.length;
    const outcome = await runEvent(host.runner, event);
    await settle();
    const errors = host.takeErrors();
    ran.push({ line, outcome, errors, prompts: host.prompts.slice(prompted), logs: host.logs.slice(logged) });
    if (!json) {
      for (const l of host.logs.slice(logged)) err.write(`line ${String(line).padStart(width)}  log ${l.hookPath} ${l.level}: ${l.line}\n`);
      progress.line(describe(line, width, outcome, errors, host.prompts.slice(prompted).map(promptLine)));
    }
    progress.tick();
  }
  progress.clear();
  const stats = host.runner.stats();
  const blocked = ran.filter((r) => r.outcome.blocked).length;
  const errorCount = ran.reduce((n, r) => n + r.errors.length + (r.outcome.thrown ? 1 : 0), 0);
  const edited = ran.filter((r) => r.outcome.edits.length > 0).length;
  const refused = ran.reduce((n, r) => n + r.errors.filter(isRefusal).length, 0);
  const summary = { events: ran.length, malformed: malformed.length, blocked, errors: errorCount, edited, refused };
  if (json) {
    const events = ran.map((r) => ({
      line: r.line, ...outcomeJson(r.outcome, r.errors), ...(r.prompts.length ? { prompts: r.prompts } : {}), ...(r.logs.length ? { logs: r.logs } : {}),
    }));
    out.write(`${JSON.stringify({ summary, events, malformed, stats }, null, 2)}\n`);
    return summary;
  }
  const skipped = malformed.length ? `, ${malformed.length} malformed line${malformed.length === 1 ? "" : "s"} skipped (${malformed.map((m) => m.line).join(", ")})` : "";
  const changes = `${edited ? `, ${edited} edited` : ""}${refused ? `, ${refused} refused` : ""}`;
  out.write(`\n${ran.length} event${ran.length === 1 ? "" : "s"} replayed${skipped}; ${blocked} tool call${blocked === 1 ? "" : "s"} blocked, ${errorCount} error${errorCount === 1 ? "" : "s"}${changes}\n\n`);
  out.write(statsTable(stats));
  return summary;
}

function describe(line: number, width: number, o: Outcome, errors: HookError[], prompts: string[]): string {
  let what: string;
  if (o.blocked) what = `blocked: ${o.reason}`;
  else if (o.type === "tool_call") what = "allowed";
  else if (o.result === undefined) what = "ok";
  else what = `result ${preview(o.result)}`;
  const indent = " ".repeat(width + 7);
  const edits = o.edits.length ? editLines(o.edits, o.moreEdits, `${indent}edit `) : "";
  const problems = [...(o.thrown ? [o.thrown] : []), ...errors].map((e) => (isRefusal(e) ? refusedLine(e, indent) : errorWithStack(e, indent))).join("");
  return `line ${String(line).padStart(width)}  ${o.type.padEnd(20)}  ${what}\n${prompts.map((p) => `${indent}ui ${p}`).join("")}${edits}${problems}`;
}

/**
 * `--watch`: replay again after each successful reload of a hook, and after each change of the
 * events file (read again), until `signal` aborts (default: Ctrl-C).
 */
async function watchAndReplay(host: CliHost, file: string, initial: Line[], out: Output, err: Output, signal?: AbortSignal): Promise<void> {
  let lines = initial;
  await new Promise<void>((resolve) => {
    let running = Promise.resolve();
    let reread: ReturnType<typeof setTimeout> | undefined;
    // Editors write a file in several steps (truncate, write, rename): wait for the writes to settle.
    const eventsWatcher = watch(file, { persistent: false }, () => {
      clearTimeout(reread);
      reread = setTimeout(() => {
        running = running.then(async () => {
          try {
            lines = readLines(file);
          } catch (e) {
            out.write(`\n${(e as Error).message}\n`);
            return;
          }
          out.write(`\n${file} changed; replaying ${lines.length} line${lines.length === 1 ? "" : "s"}\n\n`);
          await runStream(host, lines, out, false, err);
          out.write("\nwatching (Ctrl-C to stop)\n");
        });
      }, 100);
    });
    const watcher = watchHooks(host.runner, {
      onReload: (hookPath, error) => {
        host.takeErrors();
        if (error) {
          out.write(`\n${errorLine(error, "")}`);
          return;
        }
        running = running.then(async () => {
          out.write(`\n${hookPath} reloaded; replaying ${lines.length} line${lines.length === 1 ? "" : "s"}\n\n`);
          await runStream(host, lines, out, false, err);
          out.write("\nwatching (Ctrl-C to stop)\n");
        });
      },
    });
    // Printed once the folders are watched, so an edit made on seeing it is never missed.
    out.write("\nwatching the hooks, the files they import and the events file; edit one to replay again (Ctrl-C to stop)\n");
    // Idle workers are unref()'d and the folder watchers are not persistent: hold the process
    // open while waiting for an edit.
    const keepAlive = setInterval(() => {}, 1 << 30);
    const stop = () => {
      clearInterval(keepAlive);
      clearTimeout(reread);
      eventsWatcher.close();
      watcher.close();
      void running.then(() => resolve());
    };
    if (signal) signal.addEventListener("abort", stop, { once: true });
    else process.once("SIGINT", stop);
  });
}
