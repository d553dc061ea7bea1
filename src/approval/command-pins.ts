/**
 * What a command hook's command can run (Claude Code's, Codex's, Gemini's), found by parsing it as
 * bash does (mvdan-sh: the JavaScript build of mvdan/sh's parser, the one shfmt uses), so that an
 * approval pins the files that run and not only the names a regular expression sees. The parse
 * follows `cd` (every folder the command may be in when a word is used), resolves the variables
 * the agent names the project by (its row's `projectDirVars`: `CLAUDE_PROJECT_DIR` for Claude
 * Code, none for Codex), `PWD`, `HOME` and the ones the command assigns, reads `bash -c` strings
 * as commands, and pins every project file and folder a word names (a script that does not exist
 * yet is pinned as absent: one appearing there asks again). A command whose files are known only
 * when it runs (a command substitution, a glob, an unknown variable, `eval`, `python -m`,
 * `npm run`, `npx`, `make`) is not approvable as it stands: `refusals` says why, and the fix is to
 * name a script of the project, in the agent's own form (its row's `approvableForm`). The shell
 * scripts it runs are read for what they `source`: a file named before it runs is pinned too, and
 * the user is told of each, and of one named only when it runs (`notes`). Words: ./shell-words.ts.
 */
import { lstatSync, readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import type { ShNode } from "mvdan-sh";
import { Done, inside, Refusal, sh, text, values, type WordScope } from "./shell-words.js";

/** What a command's approval pins, or why it cannot be approved as it stands. */
export interface CommandPins {
  /** Files by content (absolute, inside the project; pinned as absent when missing). */
  files: string[];
  /** Folders pinned whole (below the project root). */
  folders: string[];
  /** Why the command cannot be pinned as it stands; empty when it can. */
  refusals: string[];
  /** What the user should know before approving: a file a pinned script sources that is pinned only as named, or not at all. */
  notes: string[];
}

const SHELLS = new Set(["bash", "sh", "dash", "zsh", "ksh"]);
const INTERPRETERS = new Set([...SHELLS, "node", "nodejs", "tsx", "bun", "deno", "python", "python3", "ruby", "perl", "php"]);
/** Programs that run the command after their own options. */
const WRAPPERS = new Set(["exec", "command", "builtin", "nohup", "setsid", "time", "env", "nice", "timeout", "stdbuf"]);
/** Programs that find what they run by a name (a script of package.json, a module, a package, a target), with why. */
function findsWhatItRuns(program: string, args: string[]): string | undefined {
  const first = args.find((a) => !a.startsWith("-"));
  if (["npx", "pnpx", "bunx", "pipx", "uvx"].includes(program)) return `${program} runs a package it finds by name (or downloads)`;
  if (["make", "just", "task", "rake", "gradle", "mvn", "cargo", "go", "uv", "poetry"].includes(program)) return `${program} runs what its own files name`;
  if (["npm", "pnpm", "yarn"].includes(program)) return `${program}${first ? ` ${first}` : ""} runs what package.json (or the registry) names`;
  if (program === "bun" && first && !/[./]/.test(first)) return `bun ${first} runs what package.json names`;
  if (/^python[\d.]*$/.test(program) && args.some((a) => a === "-m" || a === "-c")) return `${program} ${args.includes("-m") ? "-m finds a module by name" : "-c imports modules by name"} on its search path`;
  if (["node", "nodejs", "bun", "deno", "tsx"].includes(program) && args.some((a) => ["-e", "--eval", "-p", "--print"].includes(a))) return `${program} -e runs code that imports modules by name`;
  if (["perl", "ruby"].includes(program) && args.some((a) => a === "-e" || a.startsWith("-M") || a.startsWith("-r"))) return `${program} -e runs code that loads modules by name`;
  if (program === "eval") return "eval runs text put together when it runs";
  return undefined;
}

interface State extends WordScope {
  pins: CommandPins;
  depth: number;
}

/** Parse `command` (run from `root`, the project's real path, with each of `projectVars` naming it) and pin what it can run. */
export function commandPins(root: string, command: string, home: string | undefined, projectVars: readonly string[]): CommandPins {
  const pins: CommandPins = { files: [], folders: [], refusals: [], notes: [] };
  const vars = () => new Map<string, string[]>([...projectVars.map((v) => [v, [root]] as [string, string[]]), ...(home ? [["HOME", [home]] as [string, string[]]] : [])]);
  const state: State = { root, cwds: new Set([root]), vars: vars(), projectVars, pins, depth: 0 };
  analyse(command, state);
  // The scripts it runs, for what they source: pinned too when the name is known, else the user is told.
  const read = new Set<string>();
  for (let i = 0; i < pins.files.length; i += 1) {
    const script = pins.files[i]!;
    if (read.has(script) || read.size >= 32) continue;
    read.add(script);
    sourced(script, { root, cwds: state.cwds, vars: vars(), projectVars, pins, depth: 0 });
  }
  pins.files = [...new Set(pins.files)].sort();
  pins.folders = [...new Set(pins.folders)].sort();
  pins.refusals = [...new Set(pins.refusals)];
  pins.notes = [...new Set(pins.notes)];
  return pins;
}

/** A shell script's `source` and `.` lines: a file named statically is pinned; one known only when it runs is a note. */
function sourced(script: string, state: State): void {
  let text: string;
  try {
    const s = lstatSync(script, { throwIfNoEntry: false });
    if (!s?.isFile() || s.size > 1 << 20) return;
    text = readFileSync(script, "utf8");
  } catch {
    return;
  }
  if (!/\.(sh|bash)$/.test(script) && !/^#!.*\b(ba|da|z|k)?sh\b/.test(text)) return;
  const syntax = sh();
  let file: ShNode;
  try {
    file = syntax.NewParser().Parse(text, script);
  } catch {
    return;
  }
  const rel = (p: string) => relative(state.root, p);
  syntax.Walk(file, (node) => {
    if (!node || syntax.NodeType(node) !== "CallExpr" || node.Args.length < 2) return true;
    const program = node.Args[0].Lit();
    if (program !== "source" && program !== ".") return true;
    try {
      for (const value of values(node.Args[1], text, state)) {
        for (const cwd of state.cwds) {
          const path = resolve(cwd, value);
          if (!inside(state.root, path)) state.pins.notes.push(`${rel(script)} sources ${path}, outside the project: not pinned (the sandbox does not show it)`);
          else if (!state.pins.files.includes(path)) {
            state.pins.files.push(path);
            state.pins.notes.push(`${rel(script)} sources ${rel(path)}: pinned too`);
          }
        }
      }
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      state.pins.notes.push(`${rel(script)} sources ${text.slice(node.Args[1].Pos().Offset(), node.Args[1].End().Offset())}, a file known only when it runs: not pinned unless it is in a folder pinned whole (a file it names elsewhere can change without asking again; keep what a hook sources beside it)`);
    }
    return true;
  });
}

function analyse(source: string, state: State): void {
  const syntax = sh();
  let file: ShNode;
  try {
    file = syntax.NewParser().Parse(source, "command");
  } catch (err) {
    state.pins.refusals.push(`bash cannot parse it (${(err as { Error?: () => string }).Error?.() ?? String(err)})`);
    return;
  }
  const done = new Done();
  syntax.Walk(file, (node) => {
    if (!node || done.has(node)) return true;
    const kind = syntax.NodeType(node);
    try {
      if (kind === "CallExpr") call(node, source, state, done);
      else if (kind === "DeclClause") for (const assign of node.Args) assignment(assign, source, state, done);
      else if (kind === "Redirect") {
        done.add(node.Word);
        if (node.Hdoc) done.add(node.Hdoc), values(node.Hdoc, source, state);
        const op = source.slice(node.OpPos.Offset(), node.Word.Pos().Offset()).trim();
        if (!/&$/.test(op)) for (const v of values(node.Word, source, state)) pinPath(v, state, false);
      } else if (kind === "Word") {
        // A word no command holds (a for list, a case subject, a [[ ]] operand): it must be known too.
        done.add(node);
        for (const v of values(node, source, state)) pinPath(v, state, false);
      }
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      state.pins.refusals.push(err.message);
    }
    return true;
  });
}

function call(node: ShNode, source: string, state: State, done: Done): void {
  for (const assign of node.Assigns) assignment(assign, source, state, done);
  for (const word of node.Args) done.add(word);
  if (node.Args.length === 0) return;
  // Each word's values (a word under several possible folders has several); a command is judged by its first value.
  const words = (node.Args as ShNode[]).map((w) => values(w, source, state));
  const args = words.map((v) => v[0]!);
  let i = 0;
  while (i < args.length && WRAPPERS.has(args[i]!)) {
    i += 1;
    while (i < args.length && (args[i]!.startsWith("-") || /^\w+=/.test(args[i]!) || /^\d+[smhd]?$/.test(args[i]!))) i += 1;
  }
  const program = args[i];
  if (program === undefined) return;
  const rest = args.slice(i + 1);
  const why = findsWhatItRuns(program, rest);
  if (why) throw new Refusal(why);
  if (program === "cd" || program === "pushd") {
    const target = rest.find((a) => !a.startsWith("-")) ?? state.vars.get("HOME")?.[0];
    if (target === undefined || target === "-") throw new Refusal(`${text(node, source)} goes to a folder known only when it runs`);
    const next = new Set(state.cwds);
    for (const cwd of state.cwds) for (const t of words[i + 1 + rest.indexOf(target)] ?? [target]) next.add(resolve(cwd, t));
    if (next.size > 16) throw new Refusal("it changes folder too many ways to follow");
    for (const cwd of next) if (inside(state.root, cwd) && cwd !== state.root && lstatSync(cwd, { throwIfNoEntry: false })) state.pins.folders.push(cwd);
    state.cwds = next;
    return;
  }
  if (SHELLS.has(program) && rest.includes("-c")) {
    const inline = rest[rest.indexOf("-c") + 1];
    if (inline === undefined) return;
    if (state.depth >= 3) throw new Refusal("it nests shells too deep to follow");
    analyse(inline, { ...state, depth: state.depth + 1 });
    return;
  }
  // The program itself when it is a path, and an interpreter's script: pinned even when absent.
  const scriptAt = INTERPRETERS.has(program) || program === "source" || program === "." ? scriptIndex(rest) : -1;
  words.forEach((alternatives, j) => {
    const script = j === i ? program.includes("/") : j === i + 1 + scriptAt;
    for (const v of alternatives) pinPath(v, state, script);
  });
}

/** The index in `args` of an interpreter's script: its first operand (options and their values skipped). */
function scriptIndex(args: string[]): number {
  for (let k = 0; k < args.length; k += 1) {
    const a = args[k]!;
    if (a === "--") return k + 1 < args.length ? k + 1 : -1;
    if (a === "-o" || a === "-O" || a === "-r" || a === "--require" || a === "--import" || a === "--loader") { k += 1; continue; }
    if (!a.startsWith("-") && !a.startsWith("+")) return k;
  }
  return -1;
}

function assignment(assign: ShNode, source: string, state: State, done: Done): void {
  if (assign.Value) done.add(assign.Value);
  if (assign.Array || assign.Index) throw new Refusal(`${text(assign, source)} assigns an array`);
  const name = assign.Name.Value as string;
  const value = assign.Value ? values(assign.Value, source, state) : [""];
  state.vars.set(name, assign.Append ? [...(state.vars.get(name) ?? [""])].flatMap((a) => value.map((b) => a + b)) : value);
}

/** Pin what `path` (a word's value, relative to each folder the command may be in) names inside the project. */
function pinPath(value: string, state: State, script: boolean): void {
  const candidates = value.includes("=") && value.startsWith("-") ? [value.slice(value.indexOf("=") + 1)] : value.startsWith("-") ? [] : [value];
  for (const candidate of candidates) {
    if (candidate === "") continue;
    for (const cwd of state.cwds) {
      const path = resolve(cwd, candidate);
      if (!inside(state.root, path) || path === state.root) continue;
      const kind = lstatSync(path, { throwIfNoEntry: false });
      if (!kind) {
        if (script || candidate.includes("/")) state.pins.files.push(path);
      } else if (kind.isDirectory()) state.pins.folders.push(path);
      else state.pins.files.push(path);
    }
  }
}


