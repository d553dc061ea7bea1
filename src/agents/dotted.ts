/**
 * A settings file's keys named by a dotted path (`tools.shell.pager`, `permissions.defaultMode`), as
 * every agent's power-key table names them: read the value at one, or the ones a file sets.
 */

/** The value at a dotted `path` of `settings`, if set (own keys only). */
export const valueAt = (settings: Record<string, unknown>, path: string): unknown =>
  path.split(".").reduce<unknown>((v, k) => (typeof v === "object" && v !== null && Object.hasOwn(v, k) ? (v as Record<string, unknown>)[k] : undefined), settings);

/** The dotted `keys` `settings` sets, with their values. */
export function keyValues(settings: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.flatMap((k) => { const v = valueAt(settings, k); return v === undefined ? [] : [[k, v]]; }));
}
