/**
 * What a module registers, read from its source before it runs, so a start with no record of it
 * (src/extension/starts.ts: the agent's first start, or the first after the module changed) can
 * mirror it as a recorded module is mirrored (src/extension/early-start.ts `earlyStart`, which takes a
 * reading only of a module no event before the agent's first request waits for): the factory
 * returns at once and the module starts when an event or one of its commands needs it.
 *
 * The reading answers only when it is certain, and then only event handlers and commands: in the
 * module's file and every file its static imports reach (`importGraph`), tokenized (js-tokens;
 * comments do not count), every `on` is `.on("<literal>", …)`, every `registerCommand` is
 * `.registerCommand("<literal>", { … })` with an object literal the reading can read
 * (`readCommand`), no other name or string names a member the agent takes at load
 * (`LOAD_TIME_MEMBERS`, and any name starting with `register`), nothing evaluates code or imports a
 * computed name, and every package imported by value is a Node builtin or one of the agent's own
 * (whose code is the agent's). Anything else is "not readable" (undefined), and the module loads
 * before the factory returns, as at any start with no record. What a module hides from the reading
 * (a name built at run time), or reads otherwise than it registers (a command on a line that never
 * runs), is taken on arrival as a changed record is: a handler from then on, a tool at once, a
 * command, flag or shortcut at the next start, with one warning (src/extension/mirror.ts `#arrive`).
 */
import { readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import jsTokens, { type Token } from "js-tokens";
import { manifestSchema, type AgentModules, type Manifest } from "../contract/protocol.js";
import { importGraph } from "../policy/import-graph.js";
import { CARRIED_MEMBERS, OMP_CARRIED_MEMBERS, REFUSED_AT_LOAD } from "../../worker/extension-members.mjs";
import { NAME_PATTERNS } from "../../worker/wire.mjs";
import { carriedEvents } from "./carried.js";

/**
 * The agent API's members a module must not name for the reading to answer, with the number of
 * arguments of the call that stops it (`"any"`: any use): every registration (the agent takes
 * commands, flags and shortcuts only while the factory runs, and calls tools and renderers itself),
 * `getFlag` (a flag's value exists only as the module registered it), and every member whose use at
 * load fails the load (`REFUSED_AT_LOAD`, the worker's own table: a refusal decided by a name is
 * reported before the factory returns). The same for every agent, as the worker refuses them in every agent.
 */
export const LOAD_TIME_MEMBERS: ReadonlyMap<string, "any" | number> = new Map([
  ...[...CARRIED_MEMBERS, ...OMP_CARRIED_MEMBERS].filter((m) => /^(?:un)?register/.test(m) || m === "getFlag").map((m) => [m, "any"] as const),
  ...Object.entries(REFUSED_AT_LOAD),
]);
/** A registration of the agent's, or a name like one (a member of a newer agent, a helper that may call one): not read. */
const REGISTRATION = /^(?:un)?register[A-Za-z0-9_$]*$/;
/** Whether naming `name` at token `i` (-1: in a string) stops the reading. A member refused by its arguments' number stops it unless named in a call that passes another number. */
function loadTime(tokens: readonly Token[], i: number, name: string): boolean {
  if (REGISTRATION.test(name)) return true;
  const use = LOAD_TIME_MEMBERS.get(name);
  if (use === undefined) return false;
  if (use === "any" || i < 0) return true;
  const count = argumentCount(tokens, i + 1);
  return count === undefined || count === use;
}

/** How many arguments the call whose `(` is at `open` passes, or undefined when it is not a call or spreads one. */
function argumentCount(tokens: readonly Token[], open: number): number | undefined {
  if (tokens[open]?.value !== "(") return undefined;
  let depth = 0;
  let commas = 0;
  for (let j = open; j < tokens.length; j++) {
    const value = tokens[j]!.value;
    if (value === "(" || value === "[" || value === "{") depth++;
    else if (value === ")" || value === "]" || value === "}") {
      if (--depth > 0) continue;
      // `f()` passes none; a trailing comma adds none.
      const last = tokens[j - 1]!.value;
      return j === open + 1 ? 0 : commas + (last === "," ? 0 : 1);
    } else if (depth === 1 && value === ",") commas++;
    else if (depth === 1 && value === "...") return undefined;
  }
  return undefined;
}
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
  const found = [readFile(entry, agentModules)];
  if (found[0] === undefined) return undefined;
  try {
    const graph = importGraph(entry);
    if (graph.files.length >= MAX_FILES) return undefined;
    for (const file of new Set(graph.files.map((f) => f.real))) {
      found.push(readFile(file, agentModules));
      if (found.at(-1) === undefined) return undefined;
    }
  } catch {
    return undefined;
  }
  const carried = carriedEvents(line);
  const events: Record<string, number> = {};
  const commands: Manifest["commands"] = [];
  for (const read of found) {
    for (const event of read!.events) {
      if (Object.hasOwn(carried.refused, event)) return undefined;
      if (carried.results.includes(event) || carried.notified.includes(event)) events[event] = (events[event] ?? 0) + 1;
    }
    commands.push(...read!.commands);
  }
  // A name registered twice is the agent's to settle (the worker keeps the last, in the first's place), and a name
  // the adapter refuses fails the load: neither is mirrored before the module ran.
  if (new Set(commands.map((c) => c.name)).size < commands.length || commands.some((c) => !NAME_PATTERNS.command.test(c.name))) return undefined;
  // What the worker's manifest would fail (a description over the bound) fails the load too.
  const manifest = manifestSchema.safeParse({ events, commands, renderers: [] });
  return manifest.success ? manifest.data : undefined;
}

/** A file's `.on("<name>", …)` event names and `.registerCommand(…)` commands, in source order. */
interface FileReading { events: string[]; commands: Manifest["commands"] }

/** What `file` registers, or undefined when a rule of the reading fails there (the same rules for every agent; its events are checked against the agent's in `readModule`). */
function readFile(file: string, agentModules: AgentModules | undefined): FileReading | undefined {
  let source: string;
  try {
    if (statSync(file).size > MAX_SOURCE_BYTES) return undefined;
    source = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const tokens = significant(source, /\.[jt]sx$/.test(file));
  if (tokens === undefined) return undefined;
  const events: string[] = [];
  const commands: Manifest["commands"] = [];
  // The `from` of an `import type … from` / `export type … from`: erased by the transform, its package never loaded.
  let typeFrom = -1;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const previous = tokens[i - 1]?.value;
    const text = literal(token);
    if (text !== undefined) {
      if (text === "on" || loadTime(tokens, -1, text)) return undefined;
      continue;
    }
    if (token.type === "StringLiteral" || token.type === "NoSubstitutionTemplate") return undefined;
    if (token.type !== "IdentifierName") continue;
    const name = unescape(token.value);
    if (UNSEEN_CODE.has(name)) return undefined;
    // Read where it stands; the tokens of its call (the handler's body among them) are read on by the other rules.
    if (name === "registerCommand" && previous === ".") {
      const command = readCommand(tokens, i + 1);
      if (command === undefined) return undefined;
      commands.push(command);
      continue;
    }
    if (loadTime(tokens, i, name) && (name !== PARAMETER || previous === "." || previous === "?.")) return undefined;
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
  return { events, commands };
}

/** The keys of a command's options that reach the manifest (worker/api.mjs `registerCommand`, `Registrations.manifest`). */
const COMMAND_KEYS = new Set(["description", "handler", "getArgumentCompletions"]);

/**
 * The command of `("<name>", { … })` at `i` (after `.registerCommand`), as the worker's manifest
 * would list it, or undefined unless the call is exactly that: a literal name, then an object
 * literal closed and followed by `)`, whose own properties are plain `key: value` or `key(…) {…}`
 * (`async` allowed; no spread, computed key, getter, setter, generator or `__proto__`, each key
 * once), with a `handler`, a `description` if any that is one literal alone, and a
 * `getArgumentCompletions` if any that is not `undefined` (the worker lists a command with one as
 * `completions: true`, and fails the load on one that is not a function).
 */
function readCommand(tokens: readonly Token[], i: number): Manifest["commands"][number] | undefined {
  const name = literalAt(tokens, i + 1);
  if (tokens[i]?.value !== "(" || name === undefined || tokens[i + 2]?.value !== "," || tokens[i + 3]?.value !== "{") return undefined;
  const keys = new Set<string>();
  let description: string | undefined;
  let completions = false;
  let j = i + 4;
  for (;;) {
    // A property starts at j (depth 1 of the object); `}` closes the object (after a trailing comma too).
    if (tokens[j]?.value === "}") break;
    if (tokens[j]?.value === "async" && tokens[j + 1]?.type === "IdentifierName" && tokens[j + 2]?.value === "(") j++;
    const key = tokens[j]?.type === "IdentifierName" ? unescape(tokens[j]!.value) : tokens[j] ? literal(tokens[j]!) : undefined;
    const after = tokens[j + 1]?.value;
    if (key === undefined || key === "__proto__" || keys.has(key) || !(after === ":" || after === "(" || after === "," || after === "}")) return undefined;
    keys.add(key);
    // A shorthand `key,` takes a variable's value: only the handler may (the worker checks it is a function).
    if ((after === "," || after === "}") && key !== "handler" && COMMAND_KEYS.has(key)) return undefined;
    if (key === "description") {
      description = after === ":" ? literalAt(tokens, j + 2) : undefined;
      if (description === undefined || (tokens[j + 3]?.value !== "," && tokens[j + 3]?.value !== "}")) return undefined;
    }
    if (key === "getArgumentCompletions") {
      if (tokens[j + 2]?.value === "undefined" || tokens[j + 2]?.value === "void") return undefined;
      completions = true;
    }
    // The value (or method) runs to the `,` or `}` at depth 1.
    let depth = 0;
    for (j++; j < tokens.length; j++) {
      const value = tokens[j]!.value;
      if (depth === 0 && (value === "," || value === "}")) break;
      if (value === "(" || value === "[" || value === "{") depth++;
      else if (value === ")" || value === "]" || value === "}") depth--;
    }
    if (j >= tokens.length) return undefined;
    if (tokens[j]!.value === ",") j++;
  }
  const close = tokens[j + 1]?.value === "," ? j + 2 : j + 1;
  if (!keys.has("handler") || tokens[close]?.value !== ")") return undefined;
  return { name, ...(description === undefined ? {} : { description }), ...(completions ? { completions: true as const } : {}) };
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

/**
 * A string literal's or a template's (without substitutions) value, or undefined for any other
 * token and for one spelt with an octal escape (`"\1"`, a syntax error in a module), which the
 * reading does not decode. A template's line ends are `\n`, as the language reads them.
 */
function literal(token: Token): string | undefined {
  if (token.type !== "StringLiteral" && token.type !== "NoSubstitutionTemplate") return undefined;
  const body = token.value.slice(1, -1);
  if (/\\(?:[1-9]|0[0-9])/.test(body)) return undefined;
  return unescape(token.type === "NoSubstitutionTemplate" ? body.replace(/\r\n?/g, "\n") : body);
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
