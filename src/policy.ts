/**
 * Per-hook confinement policy: what a hook may read, write, run and see. `untrusted` (the default)
 * switches Node's permission model on in the hook's worker; `trusted` behaves like the original
 * in-process hooks (everything allowed). The permission model is a seat belt, not a wall: see the
 * README's threat table.
 */
import { createRequire } from "node:module";
import { dirname, join, parse } from "node:path";
import { fileURLToPath } from "node:url";
import { importGraphReads } from "./import-graph.js";

export interface ExecPolicy {
  /** Commands (argv[0], as given or as a base name) `pi.exec` may run; `"*"` for any. */
  allow: string[] | "*";
  /** Deadline of one run, in ms. Default 30000. */
  timeoutMs?: number;
  /** stdout and stderr are each cut to this many bytes. Default 1 MiB. */
  maxOutputBytes?: number;
}

export interface Policy {
  /** Switch Node's permission model on in the worker. `false` means no file, process or worker restriction. */
  permissionModel: boolean;
  /** Extra paths the hook may read (folders include everything below them). */
  fsRead: string[];
  /** Paths the hook may write. */
  fsWrite: string[];
  /** Whether the hook may start child processes itself (`child_process`). `pi.exec` is governed by `exec`. */
  childProcess: boolean;
  /** Environment variables passed to the hook besides `SAFE_ENV`; secret-looking names only pass when listed here; `"*"` passes everything. */
  env: string[];
  /** What `pi.exec` may run (through the host, recorded). */
  exec: ExecPolicy;
  /** Which of the offered host modules (the `hostModules` option) the hook may import; absent or `"*"`: all. */
  hostModules?: string[] | "*";
}

/** Variables every hook sees (when set in the host). */
export const SAFE_ENV = ["PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TZ", "TMPDIR", "NODE_ENV", "COLORTERM", "NO_COLOR", "FORCE_COLOR"] as const;
/** Names that look like secrets: never passed unless listed in `policy.env` by exact name. */
export const SECRET_NAME = /(_KEY|_TOKEN|_SECRET)$|PASSWORD|^(AWS|GITHUB|OPENAI|ANTHROPIC)_/i;

export const presets = {
  /** For hooks you did not write: permission model on, no child processes, a clean environment, no exec. */
  untrusted: { permissionModel: true, fsRead: [], fsWrite: [], childProcess: false, env: [], exec: { allow: [] } } satisfies Policy,
  /** Like the original in-process hooks: everything allowed, the host's whole environment. */
  trusted: { permissionModel: false, fsRead: [], fsWrite: [], childProcess: true, env: ["*"], exec: { allow: "*" } } satisfies Policy,
} as const;

export type PolicyOption = keyof typeof presets | Partial<Policy>;

export function resolvePolicy(option: PolicyOption | undefined): Policy {
  if (option === undefined) return presets.untrusted;
  if (typeof option === "string") return presets[option];
  return { ...presets.untrusted, ...option, exec: { ...presets.untrusted.exec, ...option.exec } };
}

/** The environment a hook's worker gets. */
export function hookEnv(policy: Policy, hostEnv: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  const everything = policy.env.includes("*");
  for (const [name, value] of Object.entries(hostEnv)) {
    if (value === undefined) continue;
    const named = policy.env.includes(name);
    const safe = (SAFE_ENV as readonly string[]).includes(name) || name.startsWith("LC_");
    // `"*"` (the trusted preset) is the host's whole environment, as the original: secrets included.
    if (everything || named || (safe && !SECRET_NAME.test(name))) out[name] = value;
  }
  return out;
}

/** `--permission` from Node 22.13 / 23.5, `--experimental-permission` before: detected, not guessed. */
export function permissionFlag(): string {
  return process.allowedNodeEnvironmentFlags.has("--permission") ? "--permission" : "--experimental-permission";
}

const require = createRequire(import.meta.url);
/** The package folder of a dependency, found the way Node resolves it. */
function packageDir(name: string): string {
  let dir = dirname(require.resolve(name));
  while (parse(dir).base !== name && dir !== parse(dir).root) dir = dirname(dir);
  return dir;
}

/** What every hook worker must read: hookbox's worker runtime and its runtime dependencies. */
const RUNTIME_READS = [fileURLToPath(new URL("../worker/", import.meta.url)), ...["comlink", "jiti", "zod"].map(packageDir), ...optionalPackageDirs(["@sinclair/typebox"])];

/** Optional peer dependencies the worker runtime offers when installed (`pi.typebox`). */
function optionalPackageDirs(names: string[]): string[] {
  return names.flatMap((name) => {
    let dir: string;
    try {
      dir = dirname(require.resolve(name));
    } catch {
      return [];
    }
    // Up to `node_modules/<scope>/<name>`: never a folder above the package.
    for (; dir !== parse(dir).root; dir = dirname(dir)) if (dir.endsWith(`/node_modules/${name}`)) return [dir];
    return [];
  });
}

/** Folders a path may import from: its own folder and every `node_modules` above it. */
function importRoots(resolvedPath: string): string[] {
  const roots = [dirname(resolvedPath)];
  for (let dir = dirname(resolvedPath); dir !== parse(dir).root; dir = dirname(dir)) roots.push(join(dir, "node_modules"));
  return roots;
}

/** `execArgv` for a hook's worker under `policy`. Never `--allow-worker` (a nested Worker with `execArgv: []` escapes). */
export function permissionArgs(policy: Policy, resolvedPath: string, cacheDir: string | false): string[] | undefined {
  if (!policy.permissionModel) return undefined;
  const reads = [...RUNTIME_READS, ...importRoots(resolvedPath), ...importGraphReads(resolvedPath), ...policy.fsRead, ...(cacheDir ? [cacheDir] : [])];
  const writes = [...policy.fsWrite, ...(cacheDir ? [cacheDir] : [])];
  const args = [permissionFlag(), "--no-warnings"];
  for (const p of new Set(reads)) args.push(`--allow-fs-read=${grant(p)}`);
  for (const p of new Set(writes)) args.push(`--allow-fs-write=${grant(p)}`);
  if (policy.childProcess) args.push("--allow-child-process");
  return args;
}

/** A folder is granted with everything below it (`dir/*`); a file as is. */
function grant(p: string): string {
  return parse(p).ext && !p.endsWith("/") ? p : `${p.replace(/\/+$/, "")}/*`;
}

/** Why `pi.exec(command)` is refused under `policy`, or undefined when it may run. */
export function execRefusal(policy: Policy, command: string): string | undefined {
  const { allow } = policy.exec;
  if (allow === "*") return undefined;
  const base = command.split("/").pop()!;
  if (allow.includes(command) || allow.includes(base)) return undefined;
  return allow.length === 0
    ? `pi.exec is not allowed for this hook (policy.exec.allow is empty); allow "${base}" in its policy to run it`
    : `pi.exec("${command}") is not in this hook's policy (allowed: ${allow.join(", ")})`;
}
