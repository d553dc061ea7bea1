/**
 * Scripted UI answers for the CLI: `--confirm`, `--select`, `--input` answer every prompt of their
 * kind; `--ui answers.json` gives answers in order per method. The UI records every prompt and
 * notification with the answer it gave, so the output shows what the hook asked.
 */
import { readFileSync } from "node:fs";
import { createNoOpUIContext } from "../bridge/ui.js";
import type { HookUIContext } from "../contract/types.js";
import { UsageError } from "./usage-error.js";

export interface UiFlags { ui?: string; confirm?: string; select?: string; input?: string }

type Answer = string | number | boolean;
/** Answers per prompt kind: a list is used in order, then the last one repeats. */
export interface ScriptedAnswers { confirm?: Answer[]; select?: Answer[]; input?: Answer[]; editor?: Answer[] }

/** One thing the hook showed or asked, with the answer it got. */
export interface Prompt {
  kind: "confirm" | "select" | "input" | "editor" | "notify" | "status";
  title: string;
  message?: string;
  options?: string[];
  answer?: string | boolean | null;
}

const KINDS = ["confirm", "select", "input", "editor"] as const;

/** The answers the flags give, checked; undefined when no UI flag is given (then `hasUI` is false). */
export function scriptedAnswers(flags: UiFlags): ScriptedAnswers | undefined {
  const { ui, confirm, select, input } = flags;
  if (ui === undefined && confirm === undefined && select === undefined && input === undefined) return undefined;
  const answers: ScriptedAnswers = {};
  if (ui !== undefined) {
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(ui, "utf8"));
    } catch (err) {
      throw new UsageError(`cannot read --ui ${ui}: ${(err as Error).message}`);
    }
    if (doc === null || typeof doc !== "object" || Array.isArray(doc)) throw new UsageError(`--ui ${ui}: expected a JSON object such as {"confirm":["yes"]}`);
    for (const [kind, value] of Object.entries(doc)) {
      if (!(KINDS as readonly string[]).includes(kind)) throw new UsageError(`--ui ${ui}: unknown key "${kind}" (keys: ${KINDS.join(", ")})`);
      const list = Array.isArray(value) ? value : [value];
      if (list.some((a) => !["string", "number", "boolean"].includes(typeof a))) throw new UsageError(`--ui ${ui}: "${kind}" answers must be strings, numbers or booleans`);
      answers[kind as (typeof KINDS)[number]] = list;
    }
  }
  if (confirm !== undefined) {
    if (confirm !== "yes" && confirm !== "no") throw new UsageError(`--confirm must be "yes" or "no", got "${confirm}"`);
    answers.confirm = [confirm];
  }
  if (select !== undefined) answers.select = [select];
  if (input !== undefined) answers.input = answers.editor = [input];
  return answers;
}

function yes(a: Answer): boolean {
  return a === true || a === "yes" || a === "y" || a === "true";
}

/** A UI that answers from `answers` and records every prompt in `prompts`. */
export function scriptedUI(answers: ScriptedAnswers, prompts: Prompt[]): HookUIContext {
  const used = { confirm: 0, select: 0, input: 0, editor: 0 };
  const next = (kind: (typeof KINDS)[number]): Answer | undefined => {
    const list = answers[kind];
    if (!list || list.length === 0) return undefined;
    return list[Math.min(used[kind]++, list.length - 1)];
  };
  const ui = createNoOpUIContext();
  return {
    ...ui,
    get theme() { return ui.theme; },
    confirm: async (title, message) => {
      const a = next("confirm");
      const answer = a === undefined ? false : yes(a);
      prompts.push({ kind: "confirm", title, message, answer });
      return answer;
    },
    select: async (title, options) => {
      const a = next("select");
      let answer: string | undefined;
      if (typeof a === "number" || (typeof a === "string" && /^\d+$/.test(a))) answer = options[Number(a) - 1];
      else if (typeof a === "string") answer = options.includes(a) ? a : undefined;
      prompts.push({ kind: "select", title, options, answer: answer ?? null });
      return answer;
    },
    input: async (title, placeholder) => {
      const a = next("input");
      const answer = a === undefined ? undefined : String(a);
      prompts.push({ kind: "input", title, ...(placeholder === undefined ? {} : { message: placeholder }), answer: answer ?? null });
      return answer;
    },
    editor: async (title, prefill) => {
      const a = next("editor");
      const answer = a === undefined ? undefined : String(a);
      prompts.push({ kind: "editor", title, ...(prefill === undefined ? {} : { message: prefill }), answer: answer ?? null });
      return answer;
    },
    notify: (message, type) => { prompts.push({ kind: "notify", title: type ?? "info", message }); },
    setStatus: (key, text) => { prompts.push({ kind: "status", title: key, message: text ?? "(cleared)" }); },
  };
}

/** One prompt as a line: `confirm  "Run rm -rf?" Dangerous command → yes`. */
export function promptLine(p: Prompt): string {
  const answer = p.answer === undefined ? "" : ` → ${p.answer === null ? "(no answer)" : typeof p.answer === "boolean" ? (p.answer ? "yes" : "no") : JSON.stringify(p.answer)}`;
  const options = p.options ? ` [${p.options.map((o, i) => `${i + 1}. ${o}`).join(", ")}]` : "";
  const message = p.message === undefined ? "" : ` ${p.message.replace(/\s*\n\s*/g, " ")}`;
  return `${p.kind.padEnd(8)}  ${JSON.stringify(p.title)}${message}${options}${answer}\n`;
}
