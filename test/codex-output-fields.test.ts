/**
 * hookbox reads a Codex CLI hook's answer with the fields Codex itself accepts (src/agents/codex.ts).
 * Codex CLI 0.169.0 validates a command hook's JSON against a JSON schema per event, generated from
 * its Rust wire types and embedded in its binary (`<event>.command.output`, beside
 * `<event>.command.input`); this test reads those schemas from the pinned binary and compares every
 * field, value and event with hookbox's schema, so a field Codex adds fails here rather than
 * blocking a user's hook with `invalid_result`.
 */
import { createReadStream, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { CODEX, CODEX_EVENTS } from "../src/agents/codex.js";
import { permissionRequestDecision } from "../src/agents/answer.js";
import { installCodex } from "./support/codex-run.js";

type Schema = { title?: string; properties?: Record<string, Schema>; definitions?: Record<string, Schema>; allOf?: Schema[]; $ref?: string; enum?: string[]; const?: string };

/** Every `<event>.command.{input,output}` JSON schema embedded in the binary, by title. */
async function embeddedSchemas(binary: string): Promise<Map<string, Schema>> {
  const out = new Map<string, Schema>();
  let text = "";
  for await (const chunk of createReadStream(binary, { encoding: "latin1", highWaterMark: 1 << 22 })) {
    text = text.slice(-200_000) + (chunk as string);
    for (const m of text.matchAll(/[a-z-]+\.command\.(?:input|output)\{\n {2}"\$schema"/g)) {
      const open = m.index + m[0].indexOf("{");
      const end = closing(text, open);
      if (end < 0) continue;
      const schema = JSON.parse(text.slice(open, end)) as Schema;
      out.set(schema.title!, schema);
    }
  }
  return out;
}

/** The index just past the `}` closing the one at `open` (JSON strings skipped), or -1 when the text ends first. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') for (i++; text[i] !== '"' && i < text.length; i++) { if (text[i] === "\\") i++; }
    else if (ch === "{") depth++;
    else if (ch === "}" && --depth === 0) return i + 1;
  }
  return -1;
}

/** A property's own schema, its `allOf`/`$ref` resolved in `root`. */
function resolve(root: Schema, s: Schema): Schema {
  const ref = s.$ref ?? s.allOf?.[0]?.$ref;
  return ref ? resolve(root, root.definitions![ref.split("/").pop()!]!) : s;
}

const pascal = (kebab: string) => kebab.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());
const keys = (o: z.ZodObject) => Object.keys(o.shape).sort();
/** A field's own schema: past the step that reads null as absent, and `.optional()`. */
const own = (t: z.ZodType): z.ZodType => {
  const out = (t as unknown as { out?: z.ZodType }).out ?? t;
  return (out as unknown as { unwrap?(): z.ZodType }).unwrap?.() ?? out;
};
/** The values an enum or literal (optional or not) allows. */
const options = (t: z.ZodType): string[] => {
  const inner = own(t);
  const o = inner as unknown as { options?: string[]; values?: Set<string> };
  return [...(o.options ?? o.values ?? [])].sort();
};

describe("the fields of a Codex CLI hook's answer", { timeout: 60_000 }, () => {
  it("every field, value and event Codex CLI 0.169.0's own schema of a hook's answer on each event accepts is one hookbox's schema of that event accepts, and hookbox accepts none there that Codex does not", async () => {
    const program = installCodex();
    const binary = join(dirname(program), "..", "..", "codex-linux-x64", "vendor", "x86_64-unknown-linux-musl", "bin", "codex");
    expect(existsSync(binary), binary).toBe(true);
    const schemas = await embeddedSchemas(binary);
    // Control: the schemas were found, PreToolUse's with its permission decision.
    expect(schemas.get("pre-tool-use.command.output")?.definitions?.PreToolUsePermissionDecisionWire?.enum).toEqual(["allow", "deny", "ask"]);

    const events = new Set([...schemas.keys()].map((t) => pascal(t.split(".")[0]!)));
    expect([...events].sort()).toEqual([...CODEX_EVENTS].sort());

    const byEvent = (CODEX as { eventOutput?: Record<string, z.ZodType> }).eventOutput!;
    const outputs = [...schemas].filter(([title]) => title.endsWith(".output"));
    expect(outputs.map(([t]) => pascal(t.split(".")[0]!)).sort()).toEqual(Object.keys(byEvent).sort());
    const top = new Set<string>(), specific = new Set<string>(), decisions = new Set<string>(), permission = new Set<string>(), request = new Set<string>();
    for (const [title, root] of outputs) {
      const event = pascal(title.split(".")[0]!);
      const theirs = { top: [] as string[], decision: [] as string[], specific: [] as string[], permission: [] as string[], request: [] as string[] };
      for (const [name, prop] of Object.entries(root.properties ?? {})) {
        theirs.top.push(name);
        const own = resolve(root, prop);
        if (name === "decision") theirs.decision.push(...own.enum!);
        if (name !== "hookSpecificOutput") continue;
        for (const [field, p] of Object.entries(own.properties!)) {
          theirs.specific.push(field);
          const s = resolve(root, p);
          if (field === "permissionDecision") theirs.permission.push(...s.enum!);
          if (field === "decision") theirs.request.push(...Object.keys(s.properties!));
          if (field === "hookEventName") expect(s.const).toBe(event);
        }
      }
      const row = byEvent[event] as unknown as z.ZodObject;
      const hso = row.shape.hookSpecificOutput ? own(row.shape.hookSpecificOutput as z.ZodType) as unknown as z.ZodObject : undefined;
      // A field whose default is null (a serde Option) takes null as absent; one with a default of its own refuses it.
      const takesNull = (props: Record<string, Schema>) => Object.entries(props).filter(([k, p]) => k !== "hookEventName" && (p as { default?: unknown }).default === null).map(([k]) => k).sort();
      const hookboxNull = (o: z.ZodObject) => Object.entries(o.shape).filter(([k, t]) => k !== "hookEventName" && (t as z.ZodType).safeParse(null).success).map(([k]) => k).sort();
      expect(hookboxNull(row), `${event}: fields that take null`).toEqual(takesNull(root.properties ?? {}));
      const theirHso = root.properties?.hookSpecificOutput ? resolve(root, root.properties.hookSpecificOutput) : undefined;
      if (theirHso) expect(hookboxNull(hso!), `${event}: hookSpecificOutput fields that take null`).toEqual(takesNull(theirHso.properties!));
      const decision = row.shape.decision as z.ZodType | undefined;
      expect({
        top: keys(row), decision: decision ? options(decision) : [], specific: hso ? keys(hso) : [],
        permission: hso?.shape.permissionDecision ? options(hso.shape.permissionDecision as z.ZodType) : [],
        request: hso?.shape.decision ? keys(own(hso.shape.decision as z.ZodType) as unknown as z.ZodObject) : [],
      }, event).toEqual(Object.fromEntries(Object.entries(theirs).map(([k, v]) => [k, v.sort()])));
      theirs.top.forEach((f) => top.add(f)); theirs.specific.forEach((f) => specific.add(f)); theirs.decision.forEach((f) => decisions.add(f));
      theirs.permission.forEach((f) => permission.add(f)); theirs.request.forEach((f) => request.add(f));
    }
    // The answer of an event without a schema of its own (SessionEnd): any field some event takes.
    const ours = CODEX.output as unknown as z.ZodObject;
    expect([...top].sort()).toEqual(keys(ours));
    expect([...decisions].sort()).toEqual(options(ours.shape.decision as z.ZodType));
    const hso = (ours.shape.hookSpecificOutput as unknown as { unwrap(): z.ZodObject }).unwrap();
    expect([...specific].sort()).toEqual(keys(hso));
    expect([...permission].sort()).toEqual(options(hso.shape.permissionDecision as z.ZodType));
    expect([...request].sort()).toEqual(keys(permissionRequestDecision as unknown as z.ZodObject));
  });
});
