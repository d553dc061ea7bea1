/**
 * A run as compared: normalized (paths named, ids as ordinals, times and durations as
 * placeholders), what its agent shows by design or by timing taken out or set apart, the state
 * responses apart from the events.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ExampleAgent } from "./agents.js";
import type { Side } from "./runs.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const ISO_DATE = /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g;
const CLOCK = /\b\d{1,2}:\d{2}:\d{2}(?:\s?[AP]M)?\b/g;
const DURATION = /\b\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds?)\b/g;
/** A time in milliseconds since the epoch, written into text (`bookmark-${Date.now()}`), as a number value is (`v > 1e12`). */
const EPOCH_MS = /\b\d{13}\b/g;
/** Keys whose value is an id (an ordinal keeps which ids are the same). */
const ID_KEY = /^(?:id|parentId|sessionId|entryId|firstKeptEntryId|leafId|fromId|targetId)$/;
const TIME_KEY = /^(?:timestamp|created|createdAt|updatedAt|elapsedMs|durationMs|duration|wallTimeMs|ttft)$/;

/** A normalizer for one run: its paths (longest first) replaced by names, ids by ordinals, times and durations by placeholders. */
function normalizer(paths: Array<[string, string]>, absent: Readonly<Record<string, unknown>> = {}) {
  const sorted = [...paths].filter(([from]) => from.length > 1).sort(([a], [b]) => b.length - a.length);
  const ids = new Map<string, string>();
  const idOf = (v: string) => {
    if (!ids.has(v)) ids.set(v, `<id${ids.size + 1}>`);
    return ids.get(v)!;
  };
  const text = (s: string): string => {
    for (const [from, to] of sorted) s = s.split(from).join(to);
    return s.replace(UUID, (m) => idOf(m)).replace(ISO_DATE, "<date>").replace(CLOCK, "<clock>").replace(DURATION, "<duration>").replace(EPOCH_MS, "<time>");
  };
  const value = (v: unknown, key = ""): unknown => {
    if (typeof v === "string") return ID_KEY.test(key) ? idOf(v) : text(v);
    if (typeof v === "number") return TIME_KEY.test(key) || (v > 1e12 && v < 1e13) ? "<time>" : v;
    if (Array.isArray(v)) return v.map((x) => value(x));
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(Object.keys(v).sort().filter((k) => !(Object.hasOwn(absent, k) && Object.is(absent[k], (v as Record<string, unknown>)[k])))
        .map((k) => [k, value((v as Record<string, unknown>)[k], k)]));
    }
    return v;
  };
  return { text, value };
}

export interface Observed {
  events: unknown[];
  /** The records whose place depends on timing, apart from the events (ExampleAgent's `apart`). */
  apart: unknown[];
  requests: unknown[];
  stderr: string[];
  state: unknown[];
  exit: unknown;
  files: Record<string, string>;
}

const STATE_COMMANDS = new Set(["get_state", "get_messages"]);

/**
 * UI requests an example makes from a timer, not from an event: how many a run has depends on how
 * long each step took, in either run. They are taken out of both streams before comparing (the
 * table's head says which). Listed by hand, from the example's source.
 */
export const TIMER_DRIVEN: Readonly<Record<string, { method: string; why: string }>> = {
  "titlebar-spinner.ts": { method: "setTitle", why: "a spinner frame every 80 ms while the agent works" },
};

/**
 * A streamed assistant message's snapshots without what depends on timing: pi emits the message
 * object it is still filling, so what `message_start` and each `message_update` carry depends on how
 * far the stream got when pi wrote them (an extension's awaited handler shifts it). Kept: each
 * update's kind and delta; `message_end` and `turn_end` carry the whole message.
 */
function withoutSnapshots(record: unknown): unknown {
  const r = record as { type?: string; message?: { role?: string }; assistantMessageEvent?: { type?: string; delta?: unknown; contentIndex?: unknown } };
  if (r?.type === "message_update") {
    const { type, delta, contentIndex } = r.assistantMessageEvent ?? {};
    return { type: r.type, assistantMessageEvent: { type, delta, contentIndex } };
  }
  if (r?.type === "message_start" && r.message?.role === "assistant") return { type: r.type, message: { role: "assistant" } };
  return record;
}

/**
 * `records` with each step's (from one `sent` marker to the next) sorted by content, ids and times
 * aside (ExampleAgent's `unorderedSteps`); the records `apart` keep their order.
 */
function unorderedSteps(records: unknown[], apart: (r: unknown) => boolean, paths: Array<[string, string]>): unknown[] {
  const key = (r: unknown) => JSON.stringify(normalizer(paths).value(withoutSnapshots(r))).replace(/<id\d+>/g, "<id>");
  const out: unknown[] = [];
  let step: Array<{ r: unknown; k: string }> = [];
  const flush = () => { out.push(...step.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0)).map((s) => s.r)); step = []; };
  for (const r of records) {
    if ((r as { sent?: unknown }).sent !== undefined) { flush(); out.push(r); continue; }
    if (apart(r)) out.push(r);
    else step.push({ r, k: key(r) });
  }
  flush();
  return out;
}

/** One run as compared: normalized, the state responses apart from the events. */
export function observe(side: Side, file: string, example: string, examples: string, piDir: string, hookbox: string, agent: ExampleAgent, isolated: boolean): Observed {
  const notice = isolated ? agent.notice : undefined;
  const paths: Array<[string, string]> = [
    [side.extension, "<extension>"], [example, "<extension>"],
    // The extension's folder (pi's baseDir for what it registers): the example's, or isolated.ts's.
    [dirname(side.extension), "<extension folder>"], [dirname(example), "<extension folder>"], [examples, "<examples>"], [side.world.project, "<project>"],
    [side.world.home, "<home>"], [join(side.world.home, ".."), "<root>"], [piDir, "<pi>"], [hookbox, "<hookbox>"], [ROOT.replace(/\/$/, ""), "<hookbox>"],
  ];
  const { value, text } = normalizer(paths, agent.absent);
  const events: unknown[] = [];
  const state: unknown[] = [];
  const apart: unknown[] = [];
  const timer = TIMER_DRIVEN[file]?.method;
  let records = side.run.transcript.filter((record) => {
    const r = record as { type?: string; method?: string; message?: string };
    if (timer !== undefined && r.type === "extension_ui_request" && r.method === timer) return false;
    return !(notice && r.type === "extension_ui_request" && r.method === "notify" && notice.test(r.message ?? ""));
  });
  if (agent.unorderedSteps) records = unorderedSteps(records, (r) => agent.apart?.(r as never) ?? false, paths);
  const output: string[] = [];
  for (const record of records) {
    const r = record as { type?: string; command?: string; method?: string; stdout?: string };
    if (agent.moduleOutputOnStdout && typeof r.stdout === "string") { output.push(text(r.stdout)); continue; }
    (r.type === "response" && STATE_COMMANDS.has(r.command ?? "") ? state : agent.apart?.(r) ? apart : events).push(value(withoutSnapshots(record)));
  }

  return {
    events, state, apart,
    requests: side.run.requests.map((r) => value(r)),
    stderr: [...text(side.run.stderr).split("\n").filter((l) => l.trim() !== "" && !agent.timingLines?.test(l)), ...output],
    exit: { code: side.run.code, signal: side.run.signal },
    files: value(Object.fromEntries(Object.entries(side.files).map(([k, v]) => [text(k), v]).filter(([k]) => !agent.ignoredFiles?.test(k!)))) as Record<string, string>,
  };
}
