/**
 * Usage errors and argument parsing shared by the commands. A usage error (bad flag, bad JSON,
 * unknown event type) exits with code 2 and a message naming the problem.
 */
import type { ParseArgsConfig } from "node:util";
import type { HostOptions } from "./host.js";

/** Exit codes of the `hookbox` command. */
export const EXIT = { ok: 0, hookErrors: 1, usage: 2 } as const;

/** A problem with how the command was called; `main` prints it with a hint and exits 2. */
export class UsageError extends Error {
  readonly command: string | undefined;
  constructor(message: string, command?: string) {
    super(message);
    this.name = "UsageError";
    this.command = command;
  }
}

/** Options every command takes. */
export const COMMON_OPTIONS = {
  json: { type: "boolean" },
  cwd: { type: "string" },
  timeout: { type: "string" },
  isolation: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const satisfies NonNullable<ParseArgsConfig["options"]>;

export const COMMON_HELP = `Common options:
  --json            print one JSON document for machines instead of text
  --cwd <dir>       resolve hook paths (and ctx.cwd) against <dir> (default: the current folder)
  --timeout <ms>    deadline of each handler, in ms of the hook's own time (default 30000)
  --isolation <m>   run each hook in a "worker" thread (default) or a child "process"
  -h, --help        show this help`;

/** Run a `util.parseArgs` call (strict, positionals allowed); its errors become `UsageError`s. */
export function parse<T>(command: string, run: (config: { args: string[]; allowPositionals: true; strict: true }) => T, args: string[]): T {
  try {
    return run({ args, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message, command);
  }
}

/** A positive number of milliseconds from a flag, or `undefined` when the flag is absent. */
export function milliseconds(command: string, flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${flag} must be a positive number of milliseconds, got "${value}"`, command);
  return n;
}

/** At least one hook path, or a usage error. */
export function requireHooks(command: string, positionals: string[]): string[] {
  if (positionals.length === 0) throw new UsageError("no hook given: pass one or more hook files", command);
  return positionals;
}

/** The host options every command takes, checked: `--cwd`, `--timeout`, `--isolation`. */
export function hostOptions(command: string, values: { cwd?: string; timeout?: string; isolation?: string }): HostOptions {
  const { isolation } = values;
  if (isolation !== undefined && isolation !== "worker" && isolation !== "process") {
    throw new UsageError(`--isolation must be "worker" or "process", got "${isolation}"`, command);
  }
  return { cwd: values.cwd, timeout: milliseconds(command, "timeout", values.timeout), isolation };
}
