// Node's permission model says "Access to this API has been restricted" and keeps what was
// denied on the error (`permission`, `resource`): put both in the message, where a hook's author
// and the host's logs will see them.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

/** How a hook's policy grants each permission Node reports. */
const HOW = /** @type {Record<string, string>} */ ({
  FileSystemRead: "grant it with policy.fsRead, or use the trusted preset",
  FileSystemWrite: "grant it with policy.fsWrite, or use the trusted preset",
  ChildProcess: "set policy.childProcess, or use pi.exec",
  WorkerThreads: "hooks cannot start workers",
});

/** @param {unknown} err @returns {unknown} the same error, its message naming what was denied */
export function withAccessDetail(err) {
  const e = /** @type {{ code?: unknown; permission?: unknown; resource?: unknown; message?: unknown } | null} */ (err);
  if (!e || typeof e !== "object" || e.code !== "ERR_ACCESS_DENIED" || typeof e.message !== "string") return err;
  if (e.message.includes("ERR_ACCESS_DENIED")) return err;
  const permission = typeof e.permission === "string" ? e.permission : "access";
  const resource = typeof e.resource === "string" && e.resource !== "" ? ` of ${e.resource}` : "";
  try {
    e.message = `${e.message}: ${permission}${resource} was denied by the hook's policy (ERR_ACCESS_DENIED; ${HOW[permission] ?? "see the hook's policy"})`;
  } catch { /* a frozen error keeps its message */ }
  return err;
}

/**
 * What the permission model denied this module, by what and where (at most MAX_DENIALS), whether
 * or not the module caught it: a module that reads its configuration files at start and catches a
 * failure (an optional file) would otherwise leave the person with one path, or none. Each denial
 * is reported once as it happens (`report`), and a load that fails names every one so far.
 * @type {Map<string, string>}
 */
const denials = new Map();
const MAX_DENIALS = 32;
/** @type {(permission: string, resource: string) => void} */
let report = () => {};
/** Where hookbox's own worker code and jiti live: a denial their lookups caused is not the module's. */
const OWN = [new URL(".", import.meta.url).pathname, "/node_modules/jiti/"];

/** @param {unknown} err */
function note(err) {
  const e = /** @type {{ code?: unknown; permission?: unknown; resource?: unknown; stack?: unknown } | null} */ (err);
  if (!e || typeof e !== "object" || e.code !== "ERR_ACCESS_DENIED" || denials.size >= MAX_DENIALS) return;
  const permission = typeof e.permission === "string" ? e.permission : "access";
  const resource = typeof e.resource === "string" ? e.resource : "";
  const key = `${permission}\0${resource}`;
  if (denials.has(key) || !byTheModule(new Error().stack ?? "")) return;
  denials.set(key, `${permission}${resource ? ` of ${resource}` : ""}`);
  report(permission, resource);
}

/**
 * The line that reports a denial, naming the policy field that grants it (the host's default, and
 * what an isolated module's project approval names otherwise: src/extension/notices.ts).
 * @param {string} permission @param {string} resource
 */
export function deniedLine(permission, resource) {
  const grant = permission === "FileSystemRead" ? `policy.fsRead (policy: { fsRead: [${JSON.stringify(resource)}] })`
    : permission === "FileSystemWrite" ? `policy.fsWrite (policy: { fsWrite: [${JSON.stringify(resource)}] })` : HOW[permission] ?? "see the hook's policy";
  return `hookbox: ${permission}${resource ? ` of ${resource}` : ""} was denied by the module's policy (ERR_ACCESS_DENIED). The field that grants it: ${grant}`;
}

/** Whether the first caller outside node:fs and this file is not hookbox's worker nor jiti. @param {string} stack */
function byTheModule(stack) {
  const frames = stack.split("\n").slice(1).map((l) => l.trim()).filter((l) => l.startsWith("at ") && !l.includes("node:") && !l.includes(import.meta.url) && !l.includes(new URL(import.meta.url).pathname));
  const first = frames[0] ?? "";
  return !OWN.some((own) => first.includes(own));
}

/** The denials so far, as `FileSystemRead of /a, …`, or undefined. */
export function deniedSoFar() {
  return denials.size === 0 ? undefined : [...denials.values()].join(", ");
}

/**
 * Watch what the permission model denies the module in node:fs (sync, callback and promise forms;
 * named imports too, through `syncBuiltinESMExports`), reporting each denial once with the policy
 * field that grants it. Nothing when the permission model is off (trusted, the sandbox's own walls).
 * A module can undo this for itself: it is a report for the person, not a wall.
 * @param {(permission: string, resource: string) => void} onDenied
 */
export function watchDenials(onDenied) {
  if (!(/** @type {{ permission?: unknown }} */ (process).permission)) return;
  report = onDenied;
  wrapAll(fs, false);
  wrapAll(fs.promises, true);
  syncBuiltinESMExports();
}

/** @param {Record<string, any>} target @param {boolean} promises */
function wrapAll(target, promises) {
  for (const key of Object.keys(target)) {
    const fn = target[key];
    // Classes (ReadStream, Dirent…) and the watchers keep their own.
    if (typeof fn !== "function" || /^[A-Z]/.test(key) || key.startsWith("watch") || key.startsWith("unwatch")) continue;
    const wrapped = {
      /** @param {unknown[]} args */
      [key](...args) {
        const last = args.length > 0 ? args[args.length - 1] : undefined;
        if (!promises && typeof last === "function" && !key.endsWith("Sync")) {
          args[args.length - 1] = function (/** @type {unknown} */ err, /** @type {unknown[]} */ ...rest) { note(err); return last.call(this, err, ...rest); };
        }
        try {
          const out = fn.apply(this, args);
          return promises && out && typeof out.then === "function" ? out.then(undefined, (/** @type {unknown} */ err) => { note(err); throw err; }) : out;
        } catch (err) {
          note(err);
          throw err;
        }
      },
    }[key];
    for (const own of Reflect.ownKeys(fn)) {
      if (own === "length" || own === "name" || own === "prototype") continue;
      Object.defineProperty(wrapped, own, /** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(fn, own)));
    }
    target[key] = wrapped;
  }
}
