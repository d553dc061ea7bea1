// Node's permission model says "Access to this API has been restricted" and keeps what was
// denied on the error (`permission`, `resource`): put both in the message, where a hook's author
// and the host's logs will see them.

/** @param {unknown} err @returns {unknown} the same error, its message naming what was denied */
export function withAccessDetail(err) {
  const e = /** @type {{ code?: unknown; permission?: unknown; resource?: unknown; message?: unknown } | null} */ (err);
  if (!e || typeof e !== "object" || e.code !== "ERR_ACCESS_DENIED" || typeof e.message !== "string") return err;
  const resource = typeof e.resource === "string" ? e.resource : undefined;
  if (resource === undefined || e.message.includes(resource)) return err;
  const permission = typeof e.permission === "string" ? e.permission : "access";
  try {
    e.message = `${e.message}: ${permission} of ${resource} was denied by the hook's policy (ERR_ACCESS_DENIED; grant it with policy.fsRead / policy.fsWrite, or use the trusted preset)`;
  } catch { /* a frozen error keeps its message */ }
  return err;
}
