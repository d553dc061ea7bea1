/**
 * What an event-only module registers, read from its source before it runs, so a start with no
 * record of it (src/extension/starts.ts: the agent's first start, or the first after the module
 * changed) can mirror it as a recorded module is mirrored (src/extension/adapter.ts `earlyStart`,
 * which takes a reading only of a module no event before the agent's first request waits for):
 * the factory returns at once and the module starts when an event needs it.
 *
 * The reading answers only when it is certain, and then only event handlers: in the module's file
 * and every file its static imports reach (`importGraph`), tokenized (js-tokens; comments do not
 * count), every `on` is `.on("<literal>", …)`, no name or string names a member the agent takes
 * at load (`LOAD_TIME_MEMBERS`, and any name starting with `register`), nothing evaluates code or
 * imports a computed name, and every package imported by value is a Node builtin or one of the
 * agent's own (whose code is the agent's). Anything else is "not readable" (undefined), and the
 * module loads before the factory returns, as at any start with no record. What a module hides
 * from the reading (a name built at run time) is taken on arrival as a changed record is: a
 * handler from then on, a tool at once, a command, flag or shortcut at the next start, with one
 * warning (src/extension/adapter.ts `#arrive`).
 */
import { readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import jsTokens, { type Token } from "js-tokens";
import type { AgentModules, Manifest } from "../contract/protocol.js";
import { importGraph } from "../policy/import-graph.js";
import { CARRIED_MEMBERS, OMP_CARRIED_MEMBERS, OMP_REFUSED_MEMBERS, REFUSED_MEMBERS } from "../../worker/extension-members.mjs";
import { carriedEvents } from "./carried.js";

/**
 * The agent API's members a module must not name for the reading to answer, by line of agents:
 * every registration (the agent takes commands, flags and shortcuts only while the factory runs,
 * and calls tools and renderers itself), `getFlag` (a flag's value exists only as the module
 * registered it), and every member refused (using one at load fails the load, which a start
 * reports before its factory returns). oh-my-pi's one-argument `setLabel` at load is refused too.
 */
export const LOAD_TIME_MEMBERS: Readonly<Record<"pi" | "omp", ReadonlySet<string>>> = (() => {
  const members = (refused: readonly string[]) => new Set([...CARRIED_MEMBERS, ...OMP_CARRIED_MEMBERS, ...refused]
    .filter((m) => /^(?:un)?register/.test(m) || m === "getFlag" || refused.includes(m)));
  return {
    pi: members(Object.keys(REFUSED_MEMBERS)),
    omp: members([...Object.keys(REFUSED_MEMBERS), ...Object.keys(OMP_REFUSED_MEMBERS), "setLabel"]),
  };
})();
/** A registration of the agent's, or a name like one (a member of a newer agent, a helper that may call one): not read. */
const REGISTRATION = /^(?:un)?register[A-Za-z0-9_$]*$/;
const loadTime = (members: ReadonlySet<string>, name: string) => REGISTRATION.test(name) || members.has(name);
/** The module's parameter is conventionally `pi`, so oh-my-pi's refused member `pi.pi` counts only as a member or a string. */
const PARAMETER = "pi";
/** Names that evaluate code or load a module the reading cannot see. */
const UNSEEN_CODE = new Set(["eval", "Function", "createRequire"]);
/** A graph larger than this is not read (the reading runs on the agent's thread at every start with no record). */
const MAX_FILES = 64;
const MAX_SOURCE_BYTES = 512 * 1024;

/** What `entry` registers, read from its source for an agent of `line`, or undefined when the reading is not certain. */
export function readModule(entry: string, line: "omp" | "pi", agentModules: AgentModules | undefined): Manifest | undefined {
  // The entry first: most modules the reading cannot read say so there, before the graph is walked.
  const found = [readFile(entry, line, agentModules)];
  if (found[0] === undefined) return undefined;
  try {
    const graph = importGraph(entry);
    if (graph.files.length >= MAX_FILES) return undefined;
    for (const file of new Set(graph.files.map((f) => f.real))) {
      found.push(readFile(file, line, agentModules));
      if (found.at(-1) === undefined) return undefined;
    }
  } catch {
    return undefined;
  }
  const carried = carriedEvents(line);
  const events: Record<string, number> = {};
  for (const fileEvents of found) {
    for (const event of fileEvents!) {
      if (Object.hasOwn(carried.refused, event)) return undefined;
      if (carried.results.includes(event) || carried.notified.includes(event)) events[event] = (events[event] ?? 0) + 1;
    }
  }
  return { events, commands: [], renderers: [] };
}

/** The event names of every `.on("<name>", …)` in `file`, or undefined when a rule of the reading fails there. */
function readFile(file: string, line: "omp" | "pi", agentModules: AgentModules | undefined): string[] | undefined {
  let source: string;
  try {
    if (statSync(file).size > MAX_SOURCE_BYTES) return undefined;
    source = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const tokens = significant(source, /\.[jt]sx$/.test(file));
  if (tokens === undefined) return undefined;
  const members = LOAD_TIME_MEMBERS[line];
  const events: string[] = [];
  // The `from` of an `import type … from` / `export type … from`: erased by the transform, its package never loaded.
  let typeFrom = -1;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const previous = tokens[i - 1]?.value;
    const text = literal(token);
    if (text !== undefined) {
      if (text === "on" || loadTime(members, text)) return undefined;
      continue;
    }
    if (token.type !== "IdentifierName") continue;
    const name = unescape(token.value);
    if (UNSEEN_CODE.has(name)) return undefined;
    if (loadTime(members, name) && (name !== PARAMETER || previous === "." || previous === "?.")) return undefined;
    if (name === "on") {
      const event = literalAt(tokens, i + 2);
      if (previous !== "." || tokens[i + 1]?.value !== "(" || event === undefined || tokens[i + 3]?.value !== ",") return undefined;
      events.push(event);
    }
    // import(…) and require(…): a literal specifier only, checked with the static ones below.
    if ((name === "import" && tokens[i + 1]?.value === "(") || name === "require") {
      if (tokens[i + 1]?.value !== "(" || literalAt(tokens, i + 2) === undefined || tokens[i + 3]?.value !== ")") return undefined;
    }
    if ((name === "import" || name === "export") && tokens[i + 1]?.value === "type") typeFrom = typeStatementFrom(tokens, i + 2);
    if (name === "from" && i === typeFrom) continue;
    const specifier = name === "from" ? literalAt(tokens, i + 1) : name === "import" || name === "require" ? specifierAfter(tokens, i) : undefined;
    if (specifier !== undefined && !seenPackage(specifier, agentModules)) return undefined;
  }
  return events;
}

/** The tokens that carry meaning (no white space, line ends or comments), or undefined when the source does not tokenize. */
function significant(source: string, jsx: boolean): Token[] | undefined {
  const out: Token[] = [];
  for (const token of jsTokens(source, { jsx }) as Iterable<Token>) {
    if (token.type === "WhiteSpace" || token.type === "LineTerminatorSequence" || token.type.endsWith("Comment")) continue;
    if (token.type === "Invalid" || (token.type as string) === "JSXInvalid" || ("closed" in token && !token.closed)) return undefined;
    out.push(token);
  }
  return out;
}

/** A string literal's or a template's (without substitutions) value, or undefined for any other token. */
function literal(token: Token): string | undefined {
  if (token.type !== "StringLiteral" && token.type !== "NoSubstitutionTemplate") return undefined;
  return unescape(token.value.slice(1, -1));
}

/** Where the `from` of a type-only import or export whose names start at `i` is (`{ A, B }`, `* as N`, `X`), or -1. */
function typeStatementFrom(tokens: readonly Token[], i: number): number {
  let j = i;
  if (tokens[i]?.value === "{") {
    while (j < tokens.length && tokens[j]!.value !== "}") j++;
    j++;
  } else if (tokens[i]?.value === "*") {
    j = tokens[i + 1]?.value === "as" ? i + 3 : i + 1;
  } else if (tokens[i]?.type === "IdentifierName") {
    j = i + 1;
  }
  return tokens[j]?.value === "from" && literalAt(tokens, j + 1) !== undefined ? j : -1;
}

const literalAt = (tokens: readonly Token[], i: number): string | undefined => (tokens[i] ? literal(tokens[i]!) : undefined);

/** The specifier an `import` or `require` at `i` names: `import "x"`, `import("x")`, `require("x")`. */
function specifierAfter(tokens: readonly Token[], i: number): string | undefined {
  return literalAt(tokens, i + 1) ?? (tokens[i + 1]?.value === "(" ? literalAt(tokens, i + 2) : undefined);
}

/** Whether code the reading did not read is the module's own (a relative path, read through the graph), a Node builtin, or the agent's package. */
function seenPackage(specifier: string, agentModules: AgentModules | undefined): boolean {
  if (specifier.startsWith(".") || specifier.startsWith("/")) return true;
  if (specifier.startsWith("node:") || builtinModules.includes(specifier)) return true;
  return Object.keys(agentModules?.alias ?? {}).some((name) => specifier === name || (name.endsWith("/") && specifier.startsWith(name)));
}

/** A literal's or an identifier's escapes (`\u0074`, `\x74`, `\u{74}`, `\n`) decoded, so a name spelt with them is the name. */
function unescape(text: string): string {
  if (!text.includes("\\")) return text;
  return text.replace(/\\(?:x([0-9a-fA-F]{2})|u\{([0-9a-fA-F]+)\}|u([0-9a-fA-F]{4})|(\r\n|[\s\S]))/g, (_, x, braced, u, other: string | undefined) => {
    const code = x ?? braced ?? u;
    if (code !== undefined) return String.fromCodePoint(Math.min(parseInt(code, 16), 0x10ffff));
    return ({ n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", v: "\v", 0: "\0" } as Record<string, string>)[other!] ?? (other === "\r\n" || other === "\n" ? "" : other!);
  });
}
