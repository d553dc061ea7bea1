/**
 * hookbox reads a Claude Code hook's answer with the fields Claude Code itself accepts, each classed
 * (src/claude/output-fields.ts). Claude Code 2.1.328 validates a command hook's JSON with a zod schema
 * in its binary (the object whose first field is `continue: …describe("Whether Claude should
 * continue after hook…")`, with one `hookSpecificOutput` object per event, and beside it the async
 * answer `{async, asyncTimeout}`); this test reads that schema from the pinned binary and its list of
 * events, and compares them with hookbox's tables, so a field Claude Code adds fails here rather than
 * blocking a user's hook with `invalid_result`.
 */
import { createReadStream } from "node:fs";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { NOT_ROUTED_FIELDS, SPECIFIC_FIELDS, TOP_FIELDS, type OutputField } from "../src/claude/output-fields.js";
import { CLAUDE_HOOK_EVENTS } from "../src/claude/settings.js";
import { installClaude } from "./support/claude-run.js";

/** The text of the binary from the first match of `start` on, `length` characters of it. */
async function textAt(binary: string, start: RegExp, length: number): Promise<string> {
  let text = "";
  let found = -1;
  for await (const chunk of createReadStream(binary, { encoding: "latin1", highWaterMark: 1 << 22 })) {
    text += chunk as string;
    if (found < 0) {
      const m = start.exec(text);
      if (m) found = m.index;
      else { text = text.slice(-4096); continue; }
    }
    if (text.length - found >= length) return text.slice(found, found + length);
  }
  return found < 0 ? "" : text.slice(found);
}

/** The index just past the bracket that closes the one at `open` (strings skipped). */
function closing(src: string, open: number): number {
  let depth = 0;
  for (let i = open; i < src.length; i++) {
    const ch = src[i]!;
    if (ch === '"' || ch === "'" || ch === "`") {
      for (i++; i < src.length && src[i] !== ch; i++) if (src[i] === "\\") i++;
    } else if ("([{".includes(ch)) depth++;
    else if (")]}".includes(ch) && --depth === 0) return i + 1;
  }
  throw new Error("unbalanced");
}

/** The fields of the object literal at `open` (a `{`): each key with its value's source. */
function fields(src: string, open: number): Map<string, string> {
  const out = new Map<string, string>();
  const end = closing(src, open) - 1;
  let i = open + 1;
  while (i < end) {
    const key = /^([A-Za-z_$][\w$]*):/.exec(src.slice(i, i + 100));
    if (!key) throw new Error(`no key at ${src.slice(i, i + 40)}`);
    let j = i + key[0].length;
    const from = j;
    while (j < end && src[j] !== ",") j = "([{\"'`".includes(src[j]!) ? ("\"'`".includes(src[j]!) ? closingQuote(src, j) : closing(src, j)) : j + 1;
    out.set(key[1]!, src.slice(from, j));
    i = j + 1;
  }
  return out;
}
const closingQuote = (src: string, at: number) => { let i = at + 1; for (; src[i] !== src[at]; i++) if (src[i] === "\\") i++; return i + 1; };

/** Whether a zod chain's own calls (not its arguments) include `.optional()`. */
const optional = (value: string): boolean => {
  let own = "";
  for (let i = 0; i < value.length;) {
    if ("([{".includes(value[i]!)) { const j = closing(value, i); own += value[i] === "(" && j === i + 2 ? "()" : "(…)"; i = j; } else own += value[i++];
  }
  return own.includes(".optional()");
};

/** Each `c({<discriminator>:E("<name>"),…})` object in `src`: its name and fields. */
function variants(src: string, discriminator: string): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  const re = new RegExp(`\\{${discriminator}:[A-Za-z_$]+\\("([A-Za-z]+)"\\)`, "g");
  for (const m of src.matchAll(re)) {
    const f = fields(src, m.index);
    f.delete(discriminator);
    out.set(m[1]!, f);
  }
  return out;
}

/** A field's shape in Claude Code's schema and in hookbox's table: its name, and whether it is required. */
const claudeShape = (f: Map<string, string>) => [...f].map(([k, v]) => `${k}${optional(v) ? "" : " (required)"}`).sort();
const hookboxShape = (row: Readonly<Record<string, OutputField>>) => Object.entries(row).map(([k, f]) => `${k}${f.required ? " (required)" : ""}`).sort();

describe("the fields of a Claude Code hook's answer", { timeout: 60_000 }, () => {
  it("every field and event Claude Code 2.1.328's own schema of a hook's answer accepts is a classed row of hookbox's table, and hookbox accepts none it does not", async () => {
    const binary = installClaude();
    const schema = await textAt(binary, /c\(\{continue:[A-Za-z_$]+\(\)\.describe\("Whether Claude should continue after hook/, 40_000);
    // Control: the schema was found.
    expect(schema.length).toBeGreaterThan(1000);
    const top = fields(schema, schema.indexOf("{"));
    const specific = top.get("hookSpecificOutput")!;
    top.delete("hookSpecificOutput");
    expect(claudeShape(top)).toEqual(hookboxShape(TOP_FIELDS));

    const events = variants(specific, "hookEventName");
    // Control: the reported fields are there.
    expect(events.get("PostToolUse")?.has("updatedToolOutput")).toBe(true);
    expect(events.get("PermissionDenied")?.has("retry")).toBe(true);
    expect(events.get("MessageDisplay")?.has("displayContent")).toBe(true);
    expect(events.has("UserPromptExpansion")).toBe(true);
    const rows = SPECIFIC_FIELDS as Record<string, Readonly<Record<string, OutputField>>>;
    expect([...events.keys()].sort()).toEqual(Object.keys(rows).sort());
    for (const [event, f] of events) expect(claudeShape(f), event).toEqual(hookboxShape(rows[event]!));

    // PermissionRequest's decision: one object per behavior, the same fields.
    const decisions = variants(events.get("PermissionRequest")!.get("decision")!, "behavior");
    const ours = (rows.PermissionRequest!.decision!.schema as unknown as { options: Array<z.ZodObject> }).options;
    expect(Object.fromEntries([...decisions].map(([b, f]) => [b, claudeShape(f)]))).toEqual(Object.fromEntries(ours.map((o) => {
      const { behavior, ...rest } = o.shape as Record<string, z.ZodType>;
      return [(behavior as unknown as { value: string }).value, Object.entries(rest).map(([k, v]) => `${k}${v.safeParse(undefined).success ? "" : " (required)"}`).sort()];
    })));

    // The async answer beside it: not routed, each of its fields named with the reason.
    const async = await textAt(binary, /c\(\{async:[A-Za-z_$]+\(!0\),asyncTimeout:/, 200);
    expect([...fields(async, async.indexOf("{")).keys()].sort()).toEqual(Object.keys(NOT_ROUTED_FIELDS).sort());
  });

  it("Claude Code 2.1.328's list of hook events is hookbox's", async () => {
    const list = await textAt(installClaude(), /\["PreToolUse","PostToolUse","PostToolUseFailure"(?:,"[A-Za-z]+")+\]/, 2000);
    expect(JSON.parse(list.slice(0, list.indexOf("]") + 1))).toEqual([...CLAUDE_HOOK_EVENTS]);
  });
});
