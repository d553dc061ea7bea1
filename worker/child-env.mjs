// The environment gate: the one place an environment for a child process is built. Every child
// hookbox starts gets one from here: a hook's thread (src/isolation/endpoint.ts) or process
// (src/isolation/process-endpoint.ts), the sandbox launcher and the programs it runs on the host
// (src/isolation/bubblewrap/bwrap.ts), `pi.exec` and `execCommand` (src/bridge/exec.ts, src/bridge/exec-gate.ts), shell
// hooks (src/shell/), the transform thread (src/transform/transformer.ts), and net-exec's program inside an
// exec sandbox (./net-exec.mjs). Plain JS because net-exec runs it unchanged.
//
// Why a null prototype: Node's `spawn` walks `options.env` with `for...in`, inherited keys
// included ("intentionally", lib/child_process.js), so a plain object's environment is also
// whatever `Object.prototype` holds: one polluted key (`BASH_ENV`, `NODE_OPTIONS`) and every child
// of the host runs code it names. Why own entries only: `process.env.X` of a name the
// host does not have is looked up on `Object.prototype` too.

/** A name a child's environment may hold: not empty, no `=` and no NUL. */
const NAME = /^[^=\0]+$/;

/**
 * An environment for a child process: a null-prototype object of the given entries whose name is
 * valid and whose value is a string without NUL (others are left out). From a record only its own
 * enumerable entries are read.
 * @param {Iterable<readonly [string, unknown]> | Readonly<Record<string, unknown>> | undefined} [entries]
 * @returns {Record<string, string>}
 */
export function childEnv(entries) {
  /** @type {Record<string, string>} */
  const env = Object.create(null);
  if (entries == null) return env;
  const list = Symbol.iterator in Object(entries)
    ? /** @type {Iterable<readonly [string, unknown]>} */ (entries)
    : Object.entries(/** @type {Record<string, unknown>} */ (entries));
  for (const [name, value] of list) {
    if (typeof name === "string" && NAME.test(name) && typeof value === "string" && !value.includes("\0")) env[name] = value;
  }
  return env;
}

/**
 * The host's own value of `name`, never one inherited from `Object.prototype`.
 * @param {string} name @returns {string | undefined}
 */
export function hostEnvValue(name) {
  return Object.hasOwn(process.env, name) ? process.env[name] : undefined;
}

/**
 * The host's environment entries whose names `allow` accepts (own entries only), as a child's.
 * @param {(name: string) => boolean} allow @returns {Record<string, string>}
 */
export function fromHostEnv(allow) {
  return childEnv(Object.entries(process.env).filter(([name]) => allow(name)));
}

/** Where programs are found when the host has no PATH. */
const DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

/**
 * The environment of the programs hookbox runs on the host for itself (the sandbox launcher's
 * bash, bwrap, ldd): `PATH` only. Why nothing else: bash runs the file named by `BASH_ENV` (and
 * `ENV` as sh) before its command, imports functions from `BASH_FUNC_*` variables (a function named
 * `exec` or `ulimit` would replace the launcher's builtins) and obeys `SHELLOPTS`; an allowlist of
 * one closes them all, and the hook's own variables reach it through bwrap's `--setenv` only.
 * @returns {Record<string, string>}
 */
export function launcherEnv() {
  const path = hostEnvValue("PATH");
  return childEnv([["PATH", path && path.length > 0 ? path : DEFAULT_PATH]]);
}
