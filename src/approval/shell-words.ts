/**
 * A bash word's value as it will be when the command runs, where that is known before it runs:
 * literals and quotes as bash reads them, the variables of a scope (each with every value it may
 * have: `PWD` after a `cd` that may or may not have happened), `~` and `~+`. A part known only
 * when it runs (a command substitution, arithmetic, a glob, a brace expansion, an unknown or
 * transformed variable) is a `Refusal` naming it. Parsed by mvdan-sh (./command-pins.ts says why).
 */
import { createRequire } from "node:module";
import type { ShNode } from "mvdan-sh";

// Why loaded on first use: the parser is a 1.5 MB script (~60 ms), needed only to pin an approved project's hooks.
let parser: typeof import("mvdan-sh").syntax | undefined;
export const sh = () => (parser ??= (createRequire(import.meta.url)("mvdan-sh") as typeof import("mvdan-sh")).syntax);

/** The variables and folders a word is read in. */
export interface WordScope {
  /** The project's real path. */
  root: string;
  /** Every folder the command may be in (cd followed in source order, the folders before kept: a cd may fail or be in a subshell). */
  cwds: Set<string>;
  vars: Map<string, string[]>;
  /** The variables the agent names the project by (src/agents/dialect.ts `projectDirVars`), for a refusal's message. */
  projectVars: readonly string[];
}

export class Refusal extends Error {
  /** Its message is already the note a script's `source` gets (./command-pins.ts). */
  constructor(message: string, readonly sourced = false) { super(message); }
}

/** Nodes already read through their parent. By position: the parser's JavaScript objects are new wrappers at each access. */
export class Done {
  readonly #seen = new Set<string>();
  #key = (node: ShNode) => `${sh().NodeType(node)}:${node.Pos().Offset()}:${node.End().Offset()}`;
  add(node: ShNode): void { this.#seen.add(this.#key(node)); }
  has(node: ShNode): boolean { return this.#seen.has(this.#key(node)); }
}

/** A word's possible values, known before it runs; a Refusal naming the part that is not. */
export function values(word: ShNode, source: string, state: WordScope, quoted = false): string[] {
  let out = [""];
  const add = (alternatives: string[]) => { out = out.flatMap((a) => alternatives.map((b) => a + b)); };
  const parts = word.Parts as ShNode[];
  parts.forEach((part, index) => {
    const kind = sh().NodeType(part);
    if (kind === "Lit" && quoted) add([(part.Value as string).replace(/\\\n/g, "").replace(/\\([$`"\\])/g, "$1")]);
    else if (kind === "Lit") {
      let raw = part.Value as string;
      if (/[*?]|\[.*\]/.test(raw.replace(/\\./g, ""))) throw new Refusal(`${text(word, source)} is a glob: the files it names are known only when it runs`);
      if (/\{[^}]*(,|\.\.)[^}]*\}/.test(raw.replace(/\\./g, ""))) throw new Refusal(`${text(word, source)} is a brace expansion`);
      if (index === 0 && raw.startsWith("~")) {
        const [tilde, ...tail] = raw.split("/");
        if (tilde === "~+") add([...state.cwds]);
        else if (tilde === "~" && state.vars.has("HOME")) add(state.vars.get("HOME")!);
        else throw new Refusal(`${tilde} names a folder known only when it runs`);
        raw = tail.length > 0 ? `/${tail.join("/")}` : "";
      }
      add([raw.replace(/\\\n/g, "").replace(/\\(.)/g, "$1")]);
    } else if (kind === "SglQuoted") {
      if (part.Dollar) throw new Refusal(`${text(part, source)} is $'…' quoting, which hookbox does not decode`);
      add([part.Value as string]);
    } else if (kind === "DblQuoted") {
      if (part.Dollar) throw new Refusal(`${text(part, source)} is $"…" quoting, which hookbox does not decode`);
      add(values(part, source, state, true));
    } else if (kind === "ParamExp") add(parameter(part, source, state));
    else throw new Refusal(`${text(part, source)} is ${kind === "CmdSubst" ? "a command substitution" : kind === "ArithmExp" ? "arithmetic" : kind === "ProcSubst" ? "a process substitution" : `a ${kind}`}: what it names is known only when it runs`);
  });
  return out;
}

function parameter(part: ShNode, source: string, state: WordScope): string[] {
  const name = part.Param.Value as string;
  if (part.Length || part.Excl || part.Index || part.Slice || part.Repl || part.Names) throw new Refusal(`${text(part, source)} transforms a variable`);
  if (part.Exp) {
    const op = source.slice(part.Param.End().Offset(), part.Exp.Word ? part.Exp.Word.Pos().Offset() : part.End().Offset() - 1);
    if (op !== ":-" && op !== "-") throw new Refusal(`${text(part, source)} transforms a variable`);
  }
  const known = name === "PWD" ? [...state.cwds] : state.vars.get(name);
  if (known === undefined || (part.Exp && known.some((v) => v === ""))) {
    throw new Refusal(`$${name} is not known before the hook runs (hookbox knows ${[...state.projectVars, "PWD", "HOME"].join(", ")} and what the command assigns)`);
  }
  return known;
}

export const text = (node: ShNode, source: string) => `\`${source.slice(node.Pos().Offset(), node.End().Offset())}\``;
