/**
 * Usage errors and argument parsing shared by the commands. A usage error (bad flag, bad JSON,
 * unknown event type) exits with code 2 and a message naming the problem.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import type { SandboxOptions } from "../options/options.js";
import { DEFAULT_POLICY, presets, type Policy } from "../policy/policy.js";
import type { HostOptions } from "./host.js";
import type { Output } from "./render.js";
import { scriptedAnswers, type UiFlags } from "./ui.js";
import { UsageError } from "./usage-error.js";
import { DEFAULTS } from "../../worker/wire.mjs";

/** Exit codes of the `hookbox` command. */
export const EXIT = { ok: 0, hookErrors: 1, usage: 2 } as const;

export { UsageError };

/** Options every command takes. */
export const COMMON_OPTIONS = {
  json: { type: "boolean" },
  cwd: { type: "string" },
  timeout: { type: "string" },
  isolation: { type: "string" },
  policy: { type: "string" },
  "allow-read": { type: "string", multiple: true },
  "allow-write": { type: "string", multiple: true },
  "allow-exec": { type: "string", multiple: true },
  env: { type: "string", multiple: true },
  ui: { type: "string" },
  confirm: { type: "string" },
  select: { type: "string" },
  input: { type: "string" },
  "fail-on-error": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const satisfies NonNullable<ParseArgsConfig["options"]>;

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

export const COMMON_HELP = `Common options:
  --json                  print one JSON document for machines instead of text
  --cwd <dir>             resolve hook paths (and ctx.cwd) against <dir> (default: the current folder)
  --timeout <ms>          deadline of each handler, in ms of the hook's own time (default ${DEFAULTS.deadlineMs})
  --isolation <mode>      where each hook runs: ${Object.entries(ISOLATIONS).map(([m, what]) => `"${m}" (${what})`).join(",\n                          ")}
  --fail-on-error         exit 1 when any HookError occurred (not only load errors)

Policy (what a hook may do; the same fields as the API's \`policy\` option):
  --policy <preset>       start from a preset: ${Object.keys(presets).join(", ")} (default: ${DEFAULT_POLICY});
                          untrusted runs the hook in the sandbox (--isolation sandbox, implied)
  --allow-read <path>     policy.fsRead: the hook may read <path> (a folder: everything below it); repeatable
  --allow-write <path>    policy.fsWrite: the hook may write <path>; repeatable
  --allow-exec <program>  policy.exec.allow: pi.exec may run <program> ("*" for any); repeatable
  --env <NAME>            policy.env: pass the host's variable NAME to the hook ("*" for all); repeatable

Scripted UI (sets ctx.hasUI; every prompt and notification is printed with the answer given):
  --confirm yes|no        answer every ctx.ui.confirm
  --select <n|text>       answer every ctx.ui.select with the n-th option (from 1) or the option text
  --input <text>          answer every ctx.ui.input and ctx.ui.editor
  --ui <answers.json>     answers in order per method, e.g. {"confirm":["yes","no"],"select":[2],"input":["x"]}
  -h, --help              show this help

Examples ship in the package: node_modules/hookbox/examples/ (hooks and a session.jsonl).`;

type CommandConfig<O> = { args: string[]; options: typeof COMMON_OPTIONS & O; allowPositionals: true; strict: true };
type Parsed<O> = ReturnType<typeof parseArgs<CommandConfig<O>>>;

/**
 * A command's arguments: `util.parseArgs` over the common options and the command's own (strict,
 * positionals allowed; its errors become `UsageError`s), then the hook paths checked. `undefined`
 * when `--help` was given, after `help` is written to `out`.
 */
export function readCommand<const O extends NonNullable<ParseArgsConfig["options"]>>(
  args: string[], extra: O, help: string, out: Output,
): { values: Parsed<O>["values"]; paths: string[] } | undefined {
  let parsed: Parsed<O>;
  try {
    parsed = parseArgs({ args, options: { ...COMMON_OPTIONS, ...extra }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const common: { help?: boolean; cwd?: string } = parsed.values;
  if (common.help) {
    out.write(help);
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
  "allow-exec"?: string[]; env?: string[]; "fail-on-error"?: boolean;
} & UiFlags;

/** The host options every command takes, checked: `--cwd`, `--timeout`, `--isolation`, the policy and the UI flags. */
export function hostOptions(values: HostValues): HostOptions {
  const { isolation } = values;
  if (isolation !== undefined && !Object.hasOwn(ISOLATIONS, isolation)) {
    throw new UsageError(`--isolation must be ${either(Object.keys(ISOLATIONS))}, got "${isolation}"`);
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
