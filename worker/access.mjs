// Node's permission model says "Access to this API has been restricted" and keeps what was
// denied on the error (`permission`, `resource`): put both in the message, where a hook's author
// and the host's logs will see them.

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
