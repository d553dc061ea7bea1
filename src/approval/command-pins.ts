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
 * name a script of the project, in the agent's own form (its row's `approvableForm`). A variable
 * through which a program loads code (`BASH_ENV`, `NODE_OPTIONS`, `PYTHONPATH`, `PATH`, …: `LOADERS`),
 * assigned by the command or by the hook's definition (`env`), pins the project files it names.
 * What runs the command's files run in turn is pinned too: a shell script is read as commands (each
 * program it runs by a path, each interpreter's script, each file it sources, each loader variable it
 * sets, when named before it runs; the user is told of each one named only when it runs, `notes`),
 * and a JavaScript or TypeScript file by its static import graph (../policy/import-graph.ts: the
 * project's modules, packages and `package.json` files it reaches). Words: ./shell-words.ts.
 */
import { lstatSync, readFileSync, statSync } from "node:fs";
import { relative, resolve } from "node:path";
import type { ShNode } from "mvdan-sh";
import { importGraph } from "../policy/import-graph.js";
import { inside, strictlyInside } from "../gates/inside.js";
import { Done, Refusal, sh, text, values, type WordScope } from "./shell-words.js";
import { nodeOptionFiles } from "./node-options.js";

/** What a command's approval pins, or why it cannot be approved as it stands. */
export interface CommandPins {
  /** Files by content (absolute, inside the project; pinned as absent when missing). */
  files: string[];
  /** Folders pinned whole (below the project root). */
  folders: string[];
  /** Files pinned by content only, their folders not whole (the `package.json` files a module's package scope reads; absent ones as absent). */
  manifests: string[];
  /** Why the command cannot be pinned as it stands; empty when it can. */
  refusals: string[];
  /** What the user should know before approving: a file a pinned script sources that is pinned only as named, or not at all. */
  notes: string[];
}

const SHELLS = new Set(["bash", "sh", "dash", "zsh", "ksh"]);
/**
 * Variables through which a program loads code (a startup file, a preloaded module or library, a
 * search path): each project file or folder their value names runs, so it is pinned like a script.
 */
export const LOADERS = new Set(["BASH_ENV", "ENV", "PATH", "NODE_OPTIONS", "NODE_PATH", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONUSERBASE",
  "PERL5LIB", "PERLLIB", "PERL5OPT", "RUBYLIB", "RUBYOPT", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "BUN_OPTIONS", "DENO_DIR", "GEM_PATH", "GEM_HOME", "CLASSPATH", "GIT_EXEC_PATH"]);
const MODULE_FILE = /\.(m|c)?(j|t)sx?$/;
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
  /** Reading a pinned script's body (its name from the root): what cannot be pinned there is a note, not a refusal, and only what runs is pinned (its writes are not). */
  script?: string;
  /** A program's arguments at run time (`runPins`): only what runs is pinned, as in a script's body, but what cannot be is a refusal. */
  runsOnly?: boolean;
}

/**
 * Parse `command` (run from `root`, the project's real path, with each of `projectVars` naming it,
 * and `env`, the variables the hook's definition sets) and pin what it can run.
 */
export function commandPins(root: string, command: string, home: string | undefined, projectVars: readonly string[], env: Readonly<Record<string, string>> = {},
  how: { cwd?: string; runsOnly?: boolean } = {}): CommandPins {
  const pins: CommandPins = { files: [], folders: [], manifests: [], refusals: [], notes: [] };
  const vars = () => new Map<string, string[]>([...projectVars.map((v) => [v, [root]] as [string, string[]]), ...(home ? [["HOME", [home]] as [string, string[]]] : [])]);
  const state: State = { root, cwds: new Set([how.cwd ?? root]), vars: vars(), projectVars, pins, depth: 0, runsOnly: how.runsOnly };
  for (const [name, value] of Object.entries(env)) {
    state.vars.set(name, [value]);
    loads(name, [value], state);
  }
  analyse(command, state);
  // What the files it runs run in turn: pinned too when the name is known, else the user is told.
  const read = new Set<string>();
  for (let i = 0; i < pins.files.length; i += 1) {
    const file = pins.files[i]!;
    if (read.has(file) || read.size >= 32) continue;
    read.add(file);
    script(file, { root, cwds: new Set(state.cwds), vars: new Map([...vars(), ...Object.entries(env).map(([k, v]) => [k, [v]] as [string, string[]])]), projectVars, pins, depth: 0 });
  }
  pins.files = [...new Set(pins.files)].sort();
  pins.folders = [...new Set(pins.folders)].sort();
  pins.manifests = [...new Set(pins.manifests)].filter((m) => !pins.files.includes(m)).sort();
  pins.refusals = [...new Set(pins.refusals)];
  pins.notes = [...new Set(pins.notes)];
  return pins;
}

/**
 * What a program started with `argv` from `cwd` runs of the project (`pi.exec` of an approved
 * project module, src/bridge/exec-pins.ts): the program when it is a path, an interpreter's script
 * and its options that load code, a shell's `-c` commands, and what those run in turn. Its other
 * arguments may be files it reads or writes (a formatter's file), so, as in a script's body, they
 * are not pinned; a word in a position that runs, known only when it runs, is a refusal. A program
 * that finds what it runs by name (`npm test`, `make`) is not refused here: the policy's
 * `exec.allow` names the programs a module may start, and that grant is the user's say.
 */
export function runPins(root: string, cwd: string, argv: readonly string[]): CommandPins {
  const quoted = argv.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
  return commandPins(root, quoted, undefined, [], {}, { cwd, runsOnly: true });
}

/** A pinned shell script's body, read as commands: what it runs by a name known before it runs is pinned; the rest is a note. */
function script(file: string, state: State): void {
  let body: string;
  try {
    // Followed: a link in the project is pinned by its content (./pins.ts), and that content is what runs.
    const s = statSync(file, { throwIfNoEntry: false });
    if (!s?.isFile() || s.size > 1 << 20) return;
    body = readFileSync(file, "utf8");
  } catch {
    return;
  }
  const scope = { ...state, script: relative(state.root, file) };
  // The `#!` line is a command the kernel runs (a relative interpreter is found from the hook's folder).
  const shebang = /^#!(.*)/.exec(body)?.[1];
  if (shebang) analyse(shebang, { ...scope, cwds: new Set(state.cwds) }, file);
  if (MODULE_FILE.test(file)) imported(file, state.pins, state.root);
  else if (/\.(sh|bash)$/.test(file) || /^#!.*\b(ba|da|z|k)?sh\b/.test(body)) analyse(body, scope, file);
}

/** A pinned module's static import graph: the project's files it reaches, the packages it names and the `package.json` files its package scope reads. */
function imported(file: string, pins: CommandPins, root: string): void {
  const graph = importGraph(file, true);
  for (const f of graph.files) if (inside(root, f.lexical)) pins.files.push(f.lexical);
  for (const m of graph.manifests) if (inside(root, m.lexical)) pins.manifests.push(m.lexical);
  for (const p of graph.packages) if (inside(root, p.lexical)) pins.folders.push(p.lexical);
}

/** The words of a loader variable's value that may name a file: NODE_OPTIONS's as Node reads it (./node-options.ts), another's split at spaces and colons. */
export const loaderWords = (name: string, value: string): string[] => (name === "NODE_OPTIONS" ? nodeOptionFiles(value) : value.split(/[\s:]+/));

/** A loader variable's value (`NODE_OPTIONS="--require ./x.js"`, read as Node reads it: ./node-options.ts; `PATH=tools:/usr/bin`): each project file or folder it names is pinned. */
function loads(name: string, values_: string[], state: State): void {
  if (!LOADERS.has(name)) return;
  for (const value of values_) {
    for (const token of loaderWords(name, value)) pinPath(token, state, true);
  }
}

function analyse(source: string, state: State, name = "command"): void {
  const syntax = sh();
  let file: ShNode;
  try {
    file = syntax.NewParser().Parse(source, name);
  } catch (err) {
    if (state.script) state.pins.notes.push(`${state.script}: bash cannot parse it, so what it runs is not pinned unless it is in a folder pinned whole`);
    else state.pins.refusals.push(`bash cannot parse it (${(err as { Error?: () => string }).Error?.() ?? String(err)})`);
    return;
  }
  const done = new Done();
  syntax.Walk(file, (node) => {
    if (!node || done.has(node)) return true;
    const kind = syntax.NodeType(node);
    try {
      if (kind === "CallExpr") call(node, source, state, done);
      else if (kind === "DeclClause") for (const assign of node.Args) assignment(assign, source, state, done);
      else if ((state.script || state.runsOnly) && (kind === "Redirect" || kind === "Word")) {
        // In a script's body only what runs is pinned: a redirection or a loose word may be a file it writes.
        done.add(node.Word ?? node);
      } else if (kind === "Redirect") {
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
      if (!state.script) state.pins.refusals.push(err.message);
      else if (err.sourced) state.pins.notes.push(err.message);
      else state.pins.notes.push(`${state.script}: ${err.message}; what it runs there is not pinned unless it is in a folder pinned whole (it can change without asking again)`);
    }
    return true;
  });
}

function call(node: ShNode, source: string, state: State, done: Done): void {
  for (const assign of node.Assigns) assignment(assign, source, state, done);
  for (const word of node.Args) done.add(word);
  if (node.Args.length === 0) return;
  // Each word's values (a word under several possible folders has several); a command is judged by its first value.
  // In a script's body a word known only when it runs is an argument's business, unless it names what runs.
  const words = (node.Args as ShNode[]).map((w) => {
    try {
      return values(w, source, state);
    } catch (err) {
      if (!(state.script || state.runsOnly) || !(err instanceof Refusal)) throw err;
      return err;
    }
  });
  const known = (j: number): string[] => {
    const w = words[j]!;
    if (w instanceof Refusal) throw w;
    return w;
  };
  const args = words.map((v) => (v instanceof Refusal ? undefined : v[0]!));
  let i = 0;
  while (i < args.length && WRAPPERS.has(args[i]!)) {
    i += 1;
    while (i < args.length && (args[i]?.startsWith("-") || /^\w+=/.test(args[i] ?? "") || /^\d+[smhd]?$/.test(args[i] ?? ""))) {
      const assigned = /^(\w+)=(.*)$/s.exec(args[i]!);
      if (assigned) loads(assigned[1]!, known(i).map((v) => v.slice(v.indexOf("=") + 1)), state);
      i += 1;
    }
  }
  if (i >= args.length) return;
  const program = known(i)[0]!;
  const rest = args.slice(i + 1);
  if (state.script && (program === "source" || program === ".")) return sourced(node, source, state, words[i + 1]);
  const why = state.runsOnly ? undefined : findsWhatItRuns(program, rest.map((a) => a ?? ""));
  if (why) throw new Refusal(why);
  if (program === "cd" || program === "pushd") {
    const at = rest.findIndex((a) => !a?.startsWith("-"));
    const target = at < 0 ? state.vars.get("HOME")?.[0] : rest[at];
    if (target === undefined || target === "-") throw new Refusal(`${text(node, source)} goes to a folder known only when it runs`);
    const next = new Set(state.cwds);
    for (const cwd of state.cwds) for (const t of at < 0 ? [target] : known(i + 1 + at)) next.add(resolve(cwd, t));
    if (next.size > 16) throw new Refusal("it changes folder too many ways to follow");
    for (const cwd of next) if (strictlyInside(state.root, cwd) && lstatSync(cwd, { throwIfNoEntry: false })) state.pins.folders.push(cwd);
    state.cwds = next;
    return;
  }
  if (SHELLS.has(program) && rest.includes("-c")) {
    const at = rest.indexOf("-c") + 1;
    if (at >= rest.length) return;
    if (state.depth >= 3) throw new Refusal("it nests shells too deep to follow");
    analyse(known(i + 1 + at)[0]!, { ...state, depth: state.depth + 1 });
    return;
  }
  // The program itself when it is a path, and an interpreter's script: pinned even when absent.
  const scriptAt = INTERPRETERS.has(program) || program === "source" || program === "." ? scriptIndex(rest.map((a) => a ?? "")) : -1;
  words.forEach((_, j) => {
    const script = j === i ? program.includes("/") : j === i + 1 + scriptAt;
    // A script's body pins only what runs: its other words may name files it writes.
    if ((state.script || state.runsOnly) && !script) return;
    for (const v of known(j)) pinPath(v, state, script);
  });
}

/** A `source` or `.` line of a pinned script: a file named before it runs is pinned, and the user told; one known only when it runs is a note. */
function sourced(node: ShNode, source: string, state: State, word: string[] | Refusal | undefined): void {
  if (word === undefined) return;
  const script = state.script!;
  if (word instanceof Refusal) {
    const named = node.Args[1];
    throw new Refusal(`${script} sources ${source.slice(named.Pos().Offset(), named.End().Offset())}, a file known only when it runs: not pinned unless it is in a folder pinned whole (a file it names elsewhere can change without asking again; keep what a hook sources beside it)`, true);
  }
  for (const value of word) {
    for (const cwd of state.cwds) {
      const path = resolve(cwd, value);
      if (!inside(state.root, path)) state.pins.notes.push(`${script} sources ${path}, outside the project: not pinned (the sandbox does not show it)`);
      else if (!state.pins.files.includes(path)) {
        state.pins.files.push(path);
        state.pins.notes.push(`${script} sources ${relative(state.root, path)}: pinned too`);
      }
    }
  }
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
  const name = assign.Name.Value as string;
  let value: string[];
  try {
    if (assign.Array || assign.Index) throw new Refusal(`${text(assign, source)} assigns an array`);
    value = assign.Value ? values(assign.Value, source, state) : [""];
  } catch (err) {
    // In a script's body a variable known only when it runs is unknown from then on; only a loader's is worth a note.
    if (!state.script || LOADERS.has(name) || !(err instanceof Refusal)) throw err;
    state.vars.delete(name);
    return;
  }
  state.vars.set(name, assign.Append ? [...(state.vars.get(name) ?? [""])].flatMap((a) => value.map((b) => a + b)) : value);
  loads(name, state.vars.get(name)!, state);
}

/** Pin what `path` (a word's value, relative to each folder the command may be in) names inside the project. */
function pinPath(value: string, state: State, script: boolean): void {
  // `--opt=path` and `NAME=path` (an `env` argument) name the path after the `=`.
  const candidates = value.includes("=") && /^(-|\w+=)/.test(value) ? [value.slice(value.indexOf("=") + 1)] : value.startsWith("-") ? [] : [value];
  for (const candidate of candidates) {
    if (candidate === "") continue;
    for (const cwd of state.cwds) {
      const path = resolve(cwd, candidate);
      if (!strictlyInside(state.root, path)) continue;
      const kind = lstatSync(path, { throwIfNoEntry: false });
      if (!kind) {
        if (script || candidate.includes("/")) state.pins.files.push(path);
      } else if (kind.isDirectory()) state.pins.folders.push(path);
      else state.pins.files.push(path);
    }
  }
}


