/**
 * hookbox reads a Gemini CLI hook's answer with the fields Gemini itself reads (src/agents/gemini.ts).
 * Gemini CLI 0.61.0 does not validate a hook's JSON: its bundle copies the answer's top fields into
 * `DefaultHookOutput` (declared in its class body) and reads `hookSpecificOutput`'s fields one by one
 * in the per-event subclasses and the aggregator (`"tool_input" in …hookSpecificOutput`,
 * `hookSpecificOutput["llm_request"]`, `hookSpecificOutput?.toolConfig`); its events are the
 * `HookEventName` enum. This test reads all three from the pinned bundle and compares them with
 * hookbox's schema and event list, so a field Gemini starts reading fails here rather than blocking
 * a user's hook with `invalid_result`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { GEMINI, GEMINI_EVENTS } from "../src/agents/gemini.js";
import { installGemini } from "./support/gemini-run.js";

/** The bundle file that defines DefaultHookOutput (its chunks are named by hash). */
function hookChunk(): string {
  const bundle = dirname(installGemini());
  for (const name of readdirSync(bundle).filter((n) => n.endsWith(".js"))) {
    const text = readFileSync(join(bundle, name), "utf8");
    if (text.includes("var DefaultHookOutput = class {")) return text;
  }
  return "";
}

describe("the fields of a Gemini CLI hook's answer", { timeout: 60_000 }, () => {
  it("every field of a hook's answer Gemini CLI 0.61.0 reads, and every event it has, is one hookbox's schema accepts, and hookbox accepts none it does not read", () => {
    const src = hookChunk();
    // Control: the class was found, with its fields before its constructor.
    const body = /var DefaultHookOutput = class \{\n([\s\S]*?)\n\s*constructor\(/.exec(src);
    expect(body, "DefaultHookOutput in the bundle").not.toBeNull();
    const top = body![1]!.split("\n").map((l) => l.trim().replace(/;$/, "")).filter(Boolean);
    expect(top).toContain("continue");

    const specific = new Set<string>();
    for (const m of src.matchAll(/"([A-Za-z_]+)" in (?:[\w$]+\.)*hookSpecificOutput\b/g)) specific.add(m[1]!);
    for (const m of src.matchAll(/hookSpecificOutput(?:\?\.|\.)([A-Za-z_]+)|hookSpecificOutput\["([A-Za-z_]+)"\]/g)) specific.add((m[1] ?? m[2])!);
    for (const m of src.matchAll(/const \{([^}]*)\} = [\w$.]+\.hookSpecificOutput\b/g)) {
      for (const part of m[1]!.split(",")) { const key = /^\s*([A-Za-z_]+)\s*:/.exec(part); if (key) specific.add(key[1]!); }
    }
    // Control: the fields the reference names are read.
    expect([...specific]).toEqual(expect.arrayContaining(["tool_input", "tailToolCallRequest", "clearContext"]));

    const ours = GEMINI.output as unknown as z.ZodObject;
    expect(top.sort()).toEqual(Object.keys(ours.shape).sort());
    const field = ours.shape.hookSpecificOutput as unknown as { out: { unwrap(): z.ZodObject } };
    const hso = field.out.unwrap();
    // hookEventName: hookbox accepts it as Claude-style hooks print it; Gemini ignores it, as any field it does not read.
    expect([...specific].sort()).toEqual(Object.keys(hso.shape).filter((k) => k !== "hookEventName").sort());

    const events = [...src.matchAll(/HookEventName2\["(\w+)"\] = "\1";/g)].map((m) => m[1]!);
    expect(events).toEqual([...GEMINI_EVENTS]);
  });
});
