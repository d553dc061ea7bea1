/**
 * Usage errors and argument parsing shared by the commands. A usage error (bad flag, bad JSON,
 * unknown event type) exits with code 2 and a message naming the problem.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import type { SandboxOptions } from "../options/options.js";
import { closestName } from "../options/schemas.js";
import { DEFAULT_POLICY, presets, type Policy } from "../policy/policy.js";
import type { HostOptions } from "./host.js";
import type { Output } from "./render.js";
import { scriptedAnswers, type UiFlags } from "./ui.js";
import { EXIT, UsageError } from "./usage-error.js";
import { AGENTS, type AgentName } from "./agent.js";
import { DEFAULTS } from "../../worker/wire.mjs";

/** Exit codes of the `hookbox` command. */
export { EXIT, UsageError };
export { AGENTS, type AgentName };

/**
 * One flag of a command: its `util.parseArgs` config and its line in the command's help. A
 * command's flags are one table; what it parses and what its `--help` lists are both read from it.
 */
export interface Flag { type: "string" | "boolean"; multiple?: boolean; short?: string; arg?: string; help: string }
export type Flags = Readonly<Record<string, Flag>>;
/** A titled group of flags in a command's help. */
export interface Section<F extends Flags = Flags> { readonly title: string; readonly flags: F }

type Isolation = NonNullable<SandboxOptions["isolation"]>;
/**
 * The isolation modes `--isolation` accepts: exactly those `SandboxOptions.isolation` has (a mode
 * added there fails to compile here until it is listed).
 */
const ISOLATIONS = {
  worker: "a worker thread, the default",
  process: "a child process",
  sandbox: "a child process in an OS sandbox, bubblewrap; Linux only",
} satisfies Record<Isolation, string>;

/** `"a", "b" or "c"`. */
const either = (names: string[]) => names.map((n) => `"${n}"`).join(", ").replace(/, ([^,]*)$/, " or $1");


const HELP_FLAG = { help: { type: "boolean", short: "h", help: "show this help" } } as const satisfies Flags;

/** What every command that loads hooks reads. */
export const COMMON_FLAGS = {
  json: { type: "boolean", help: "print one JSON document for machines instead of text" },
  cwd: { type: "string", arg: "<dir>", help: "resolve hook paths (and ctx.cwd) against <dir> (default: the current folder)" },
  isolation: {
    type: "string", arg: "<mode>",
    help: `where each hook runs: ${Object.entries(ISOLATIONS).map(([m, what]) => `"${m}" (${what})`).join(",\n")}`,
  },
  agent: {
    type: "string", arg: "<name>",
    help: `what the hooks are written for: ${Object.entries(AGENTS).map(([a, what]) => `"${a}" (${what})`).join(",\n")};\n`
      + "default: inferred, \"hooks\" unless a module uses pi's own members or events (then said)",
  },
  "fail-on-error": { type: "boolean", help: "exit 1 when any HookError occurred (not only load errors)" },
} as const satisfies Flags;

/** What every command that runs handlers reads besides. */
export const TIMEOUT_FLAG = {
  timeout: { type: "string", arg: "<ms>", help: `deadline of each handler, in ms of the hook's own time (default ${DEFAULTS.deadlineMs})` },
} as const satisfies Flags;

export const POLICY_FLAGS = {
  policy: {
    type: "string", arg: "<preset>",
    help: `start from a preset: ${Object.keys(presets).join(", ")} (default: ${DEFAULT_POLICY});\nuntrusted runs the hook in the sandbox (--isolation sandbox, implied)`,
  },
  "allow-read": { type: "string", multiple: true, arg: "<path>", help: "policy.fsRead: the hook may read <path> (a folder: everything below it); repeatable" },
  "allow-write": { type: "string", multiple: true, arg: "<path>", help: "policy.fsWrite: the hook may write <path>; repeatable" },
  "allow-exec": { type: "string", multiple: true, arg: "<program>", help: "policy.exec.allow: pi.exec may run <program> (\"*\" for any); repeatable" },
  env: { type: "string", multiple: true, arg: "<NAME>", help: "policy.env: pass the host's variable NAME to the hook (\"*\" for all); repeatable" },
} as const satisfies Flags;

export const UI_FLAGS = {
  confirm: { type: "string", arg: "yes|no", help: "answer every ctx.ui.confirm" },
  select: { type: "string", arg: "<n|text>", help: "answer every ctx.ui.select with the n-th option (from 1) or the option text" },
  input: { type: "string", arg: "<text>", help: "answer every ctx.ui.input and ctx.ui.editor" },
  ui: { type: "string", arg: "<answers.json>", help: "answers in order per method, e.g. {\"confirm\":[\"yes\",\"no\"],\"select\":[2],\"input\":[\"x\"]}" },
} as const satisfies Flags;

export const POLICY_SECTION = { title: "Policy (what a hook may do; the same fields as the API's `policy` option):", flags: POLICY_FLAGS } as const satisfies Section;
export const UI_SECTION = { title: "Scripted UI (sets ctx.hasUI; every prompt and notification is printed with the answer given):", flags: UI_FLAGS } as const satisfies Section;

const COLUMN = 24;
/** The help lines of `flags`: the flag and its argument, then its text, continued lines aligned. */
function flagLines(flags: Flags): string {
  return Object.entries(flags).map(([name, f]) => {
    const head = `${f.short ? `-${f.short}, ` : ""}--${name}${f.arg ? ` ${f.arg}` : ""}`;
    return `  ${head.padEnd(COLUMN - 1)} ${f.help.replaceAll("\n", `\n${" ".repeat(COLUMN + 2)}`)}`;
  }).join("\n");
}

/** A command: its flags (one table) and its help, listing exactly those flags. */
export interface Command<F extends Flags> { name: string; flags: F & typeof HELP_FLAG; help: string }

/**
 * A command from its parts: `usage` and `about` (the help's head), its sections of flags in the
 * order they are listed (the last one gets `-h, --help`), and `tail` (examples). The flags it
 * parses are exactly those listed.
 */
export function command<const S extends readonly Section[]>(
  name: string, parts: { usage: string; about: string; sections: S; tail?: string },
): Command<Extract<UnionToIntersection<S[number]["flags"]>, Flags>> {
  const sections = parts.sections.map((s, i) => (i === parts.sections.length - 1 ? { ...s, flags: { ...s.flags, ...HELP_FLAG } } : s));
  const flags = Object.assign({}, ...sections.map((s) => s.flags));
  const body = sections.map((s) => `${s.title}\n${flagLines(s.flags)}`).join("\n\n");
  const help = `${parts.usage}\n\n${parts.about}\n\n${body}\n${parts.tail ? `\n${parts.tail}` : ""}`;
  return { name, flags, help };
}
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

type Value<F extends Flag> = F["type"] extends "boolean" ? (F extends { multiple: true } ? boolean[] : boolean) : F extends { multiple: true } ? string[] : string;
/** What `parseArgs` gives for `F`: each flag optional, typed by its table entry. */
export type Values<F extends Flags> = { [K in keyof F]?: Value<F[K]> };

/**
 * `argv` parsed against `cmd`'s flags (`util.parseArgs`, strict, positionals allowed). A flag the
 * command does not take is a `UsageError` naming it, with the closest of its flags ("did you
 * mean"); a flag missing its value or given one it does not take is named too.
 */
export function parseFlags<F extends Flags>(args: string[], cmd: Command<F>): { values: Values<F & typeof HELP_FLAG>; positionals: string[] } {
  const options = Object.fromEntries(Object.entries(cmd.flags as Flags).map(([name, f]) => [name, { type: f.type, ...(f.multiple ? { multiple: true } : {}), ...(f.short ? { short: f.short } : {}) }]));
  try {
    const parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
    return { values: parsed.values as Values<F & typeof HELP_FLAG>, positionals: parsed.positionals };
  } catch (err) {
    throw new UsageError(flagProblem(err as Error & { code?: string }, cmd));
  }
}

/** `parseArgs`' error as one line naming the flag (Node's own text quotes it unevenly and talks about positionals). */
function flagProblem(err: Error & { code?: string }, cmd: Command<Flags>): string {
  const given = /'(--?[^'\s=]+)/.exec(err.message)?.[1];
  if (given === undefined) return err.message;
  const name = given.replace(/^--?/, "");
  if (err.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const names = Object.keys(cmd.flags);
    const close = given.startsWith("--") ? closestName(name, names) : undefined;
    return `unknown option ${given}${close ? ` (did you mean --${close}?)` : ""}`;
  }
  const flag = Object.entries(cmd.flags as Flags).find(([n, f]) => n === name || f.short === name);
  if (flag && flag[1].type === "boolean") return `--${flag[0]} takes no value`;
  if (flag) return `--${flag[0]} needs a value: --${flag[0]} ${flag[1].arg ?? "<value>"} (a value starting with "-" is written --${flag[0]}=<value>)`;
  return err.message;
}

/**
 * A command's arguments: its flags parsed (`parseFlags`), then the hook paths checked. `undefined`
 * when `--help` was given, after the help is written to `out`.
 */
export function readCommand<F extends Flags>(args: string[], cmd: Command<F>, out: Output): { values: Values<F & typeof HELP_FLAG>; paths: string[] } | undefined {
  const parsed = parseFlags(args, cmd);
  const common = parsed.values as { help?: boolean; cwd?: string };
  if (common.help) {
    out.write(cmd.help);
    return undefined;
  }
  return { values: parsed.values, paths: requireHooks(parsed.positionals, common.cwd) };
}

/** A positive number of milliseconds from a flag, or `undefined` when the flag is absent. */
export function milliseconds(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${flag} must be a positive number of milliseconds, got "${value}"`);
  return n;
}

/** At least one hook path, each non-empty and not a folder, or a usage error. */
export function requireHooks(positionals: string[], cwd = process.cwd()): string[] {
  if (positionals.length === 0) throw new UsageError("no hook given: pass one or more hook files");
  for (const p of positionals) {
    if (p.trim() === "") throw new UsageError('a hook path is empty (""): pass the hook\'s file');
    const full = resolve(cwd, p);
    if (existsSync(full) && statSync(full).isDirectory()) {
      throw new UsageError(`${p} is a folder: pass the hook's file (for example ${p.replace(/\/+$/, "")}/index.ts)`);
    }
  }
  return positionals;
}

type HostValues = {
  cwd?: string; timeout?: string; isolation?: string; policy?: string; "allow-read"?: string[]; "allow-write"?: string[];
  "allow-exec"?: string[]; env?: string[]; "fail-on-error"?: boolean; agent?: string;
} & UiFlags;

/** The host options every command takes, checked: `--cwd`, `--timeout`, `--isolation`, the policy and the UI flags. */
export function hostOptions(values: HostValues): HostOptions {
  const { isolation } = values;
  if (isolation !== undefined && !Object.hasOwn(ISOLATIONS, isolation)) {
    throw new UsageError(`--isolation must be ${either(Object.keys(ISOLATIONS))}, got "${isolation}"`);
  }
  if (values.agent !== undefined && !Object.hasOwn(AGENTS, values.agent)) {
    const close = closestName(values.agent, Object.keys(AGENTS));
    throw new UsageError(`--agent must be ${either(Object.keys(AGENTS))}, got "${values.agent}"${close ? ` (did you mean ${close}?)` : ""}`);
  }
  if (values.cwd !== undefined && !(existsSync(values.cwd) && statSync(values.cwd).isDirectory())) {
    throw new UsageError(`--cwd ${values.cwd} is not a folder`);
  }
  return {
    cwd: values.cwd,
    timeout: milliseconds("timeout", values.timeout),
    isolation: isolation as Isolation | undefined,
    policy: policyOf(values),
    ui: scriptedAnswers(values),
    failOnError: Boolean(values["fail-on-error"]),
    agent: values.agent as AgentName | undefined,
  };
}

/**
 * The policy from `--policy` and the `--allow-*` / `--env` flags, one to one onto `Policy`'s
 * fields; undefined when none is given (the API's default then applies).
 */
function policyOf(values: HostValues): SandboxOptions["policy"] {
  const preset = values.policy;
  if (preset !== undefined && !Object.hasOwn(presets, preset)) {
    throw new UsageError(`--policy must be one of ${Object.keys(presets).join(", ")}, got "${preset}"`);
  }
  const extra = { fsRead: values["allow-read"], fsWrite: values["allow-write"], exec: values["allow-exec"], env: values.env };
  if (Object.values(extra).every((v) => v === undefined)) return preset as keyof typeof presets | undefined;
  const resolvePaths = (paths: string[] | undefined) => paths?.map((p) => resolve(values.cwd ?? process.cwd(), p));
  if (preset === undefined) {
    // Over the API's default policy: only the fields given.
    const partial: Partial<Policy> = {};
    if (extra.fsRead) partial.fsRead = resolvePaths(extra.fsRead);
    if (extra.fsWrite) partial.fsWrite = resolvePaths(extra.fsWrite);
    if (extra.env) partial.env = extra.env;
    if (extra.exec) partial.exec = { allow: extra.exec.includes("*") ? "*" : extra.exec };
    return partial;
  }
  const base: Policy = presets[preset as keyof typeof presets];
  const add = <T>(have: readonly T[], more: readonly T[] | undefined): T[] => [...have, ...(more ?? [])];
  return {
    ...base,
    fsRead: add(base.fsRead, resolvePaths(extra.fsRead)),
    fsWrite: add(base.fsWrite, resolvePaths(extra.fsWrite)),
    env: add(base.env, extra.env),
    exec: { ...base.exec, allow: base.exec.allow === "*" || extra.exec?.includes("*") ? "*" : add(base.exec.allow, extra.exec) },
  };
}
