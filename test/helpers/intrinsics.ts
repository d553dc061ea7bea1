/**
 * The host's intrinsics, snapshotted: `Object.prototype`, `Array.prototype`, `Function.prototype`
 * (and the other prototypes a hook's value could reach through an edit), and `process.env`'s
 * prototype. A hook that pollutes one of them changes every object of the host, so a test that
 * drives hostile values checks them after every run, and puts them back before failing (so that one
 * finding does not poison the tests that follow in the same worker).
 */
const targets = (): Array<[string, object]> => [
  ["Object.prototype", Object.prototype], ["Array.prototype", Array.prototype], ["Function.prototype", Function.prototype],
  ["String.prototype", String.prototype], ["Number.prototype", Number.prototype], ["Boolean.prototype", Boolean.prototype],
  ["Promise.prototype", Promise.prototype], ["Error.prototype", Error.prototype], ["Map.prototype", Map.prototype],
  ["process.env's prototype", Object.getPrototypeOf(process.env) as object],
];

export interface Intrinsics {
  /** What changed since the snapshot, one line each. */
  changes(): string[];
  /** Put everything back as it was; the changes that were undone. */
  restore(): string[];
  /** The string keys an intrinsic gained or had replaced since the snapshot (names a pollution may have planted). */
  planted(): Set<string>;
}

export function intrinsicsSnapshot(): Intrinsics {
  const envProto = Object.getPrototypeOf(process.env);
  const saved = targets().map(([name, object]) => ({ name, object, keys: new Map(Reflect.ownKeys(object).map((k) => [k, Object.getOwnPropertyDescriptor(object, k)!])) }));
  const same = (a: PropertyDescriptor, b: PropertyDescriptor) => a.value === b.value && a.get === b.get && a.set === b.set && a.writable === b.writable && a.enumerable === b.enumerable;
  const changes = () => {
    const out: string[] = [];
    if (Object.getPrototypeOf(process.env) !== envProto) out.push("process.env's prototype was replaced");
    if (Object.getPrototypeOf(Object.prototype) !== null) out.push("Object.prototype got a prototype");
    for (const { name, object, keys } of saved) {
      for (const k of Reflect.ownKeys(object)) if (!keys.has(k)) out.push(`${name} gained "${String(k)}"`);
      for (const [k, d] of keys) {
        const now = Object.getOwnPropertyDescriptor(object, k);
        if (!now) out.push(`${name} lost "${String(k)}"`);
        else if (!same(now, d)) out.push(`${name}."${String(k)}" changed`);
      }
    }
    return out;
  };
  return {
    changes,
    planted() {
      const out = new Set<string>();
      for (const { object, keys } of saved) {
        for (const k of Reflect.ownKeys(object)) {
          const was = keys.get(k);
          if (typeof k === "string" && (!was || !same(Object.getOwnPropertyDescriptor(object, k)!, was))) out.add(k);
        }
      }
      return out;
    },
    restore() {
      const out = changes();
      if (Object.getPrototypeOf(process.env) !== envProto) Object.setPrototypeOf(process.env, envProto);
      if (Object.getPrototypeOf(Object.prototype) !== null) Object.setPrototypeOf(Object.prototype, null);
      for (const { object, keys } of saved) {
        for (const k of Reflect.ownKeys(object)) if (!keys.has(k)) delete (object as Record<PropertyKey, unknown>)[k];
        for (const [k, d] of keys) Object.defineProperty(object, k, d);
      }
      return out;
    },
  };
}
