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

/**
 * `settings` without the values at the dotted `keys`, copying only the objects on the way (the
 * other keys keep their places; a key not set changes nothing).
 */
export function withoutKeys(settings: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return keys.reduce((view, key) => without(view, key.split(".")), settings);
}

function without(settings: Record<string, unknown>, [head, ...rest]: string[]): Record<string, unknown> {
  if (!Object.hasOwn(settings, head!)) return settings;
  const out = { ...settings };
  const inner = settings[head!];
  if (rest.length === 0) delete out[head!];
  else if (typeof inner === "object" && inner !== null) out[head!] = without(inner as Record<string, unknown>, rest);
  return out;
}
