// In-place edits of an event. In the original every handler gets the host's own event object, so
// `event.input.command += " --dry-run"` or `event.content[0].text = redact(…)` changes what the
// agent runs and sees. Here the event is a copy: handlers get it behind proxies that note which
// top-level field a write went under (reads cost one trap, no copy is taken up front), and the
// worker sends those fields back for the host to validate and apply to its own object.
//
// Invariant: the raw event never holds a proxy (every value written through a proxy is unwrapped
// first), so whatever leaves the worker is unwrapped by `plain` at its top only.

/** A tracked proxy answers this key with its raw target (cheaper than a WeakMap of every proxy). */
const TARGET = Symbol("hookbox.target");
/** Targets given a non-configurable property through a proxy (so `get` must report them as is). @type {WeakSet<object>} */
const pinned = new WeakSet();

/** @param {object} value @returns {object | undefined} */
const targetOf = (value) => /** @type {any} */ (value)[TARGET];

/** @param {unknown} v @returns {v is object} */
function isTrackable(v) {
  if (v === null || typeof v !== "object") return false;
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * A copy-free version of `value` without proxies: a proxy becomes its target; new objects the
 * hook built around proxies are copied with their proxies replaced (only when they hold one).
 * @param {unknown} value @param {Map<object, unknown>} [seen]
 * @returns {any}
 */
export function plain(value, seen = new Map()) {
  if (value === null || typeof value !== "object") return value;
  if (!isTrackable(value)) return value;
  const target = targetOf(value);
  if (target) return target;
  if (seen.has(value)) return seen.get(value);
  seen.set(value, value);
  /** @type {any} */
  let copy;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child = value[i];
      if (child === null || typeof child !== "object") continue;
      const next = plain(child, seen);
      if (next === child) continue;
      if (!copy) seen.set(value, (copy = [...value]));
      copy[i] = next;
    }
  } else {
    for (const key of Object.keys(value)) {
      const child = /** @type {any} */ (value)[key];
      if (child === null || typeof child !== "object") continue;
      const next = plain(child, seen);
      if (next === child) continue;
      if (!copy) seen.set(value, (copy = { ...value }));
      copy[key] = next;
    }
  }
  return copy ?? value;
}

/**
 * Track writes to `event` (a copy the worker owns). `event` is what handlers get; `dirty` names
 * the top-level fields written to, directly or anywhere below.
 * @param {Record<string, unknown>} raw
 */
export function trackEdits(raw) {
  /** @type {Set<string>} */
  const dirty = new Set();
  /** Per top-level field: raw object -> its proxy. @type {Map<string, WeakMap<object, object>>} */
  const made = new Map();

  /** Per top-level field: one proxy handler for every object under it. @type {Map<string, ProxyHandler<any>>} */
  const handlers = new Map();

  /** @param {object} target @param {string} field */
  const wrap = (target, field) => {
    let cache = made.get(field);
    if (!cache) {
      made.set(field, (cache = new WeakMap()));
      handlers.set(field, handler(field));
    }
    const known = cache.get(target);
    if (known) return known;
    const proxy = new Proxy(target, /** @type {ProxyHandler<any>} */ (handlers.get(field)));
    cache.set(target, proxy);
    return proxy;
  };

  /** A proxy must report a non-writable, non-configurable property as is. @param {object} target @param {PropertyKey} key */
  const frozenSlot = (target, key) => {
    if (Object.isExtensible(target) && !pinned.has(target)) return false;
    const d = Reflect.getOwnPropertyDescriptor(target, key);
    return d !== undefined && !d.configurable && !d.writable;
  };

  /** @param {string} field @returns {ProxyHandler<any>} */
  const handler = (field) => ({
    get(target, key, receiver) {
      if (key === TARGET) return target;
      const v = Reflect.get(target, key, receiver);
      return isTrackable(v) && !frozenSlot(target, key) ? wrap(v, field) : v;
    },
    set(target, key, v) {
      dirty.add(field);
      return Reflect.set(target, key, plain(v));
    },
    deleteProperty(target, key) {
      dirty.add(field);
      return Reflect.deleteProperty(target, key);
    },
    defineProperty(target, key, desc) {
      dirty.add(field);
      if (desc.configurable === false) pinned.add(target);
      return Reflect.defineProperty(target, key, "value" in desc ? { ...desc, value: plain(desc.value) } : desc);
    },
  });

  const event = new Proxy(raw, {
    get(target, key, receiver) {
      if (key === TARGET) return target;
      const v = Reflect.get(target, key, receiver);
      return typeof key === "string" && isTrackable(v) && !frozenSlot(target, key) ? wrap(v, key) : v;
    },
    set(target, key, v) {
      if (typeof key === "string") dirty.add(key);
      return Reflect.set(target, key, plain(v));
    },
    deleteProperty(target, key) {
      if (typeof key === "string") dirty.add(key);
      return Reflect.deleteProperty(target, key);
    },
    defineProperty(target, key, desc) {
      if (typeof key === "string") dirty.add(key);
      if (desc.configurable === false) pinned.add(target);
      return Reflect.defineProperty(target, key, "value" in desc ? { ...desc, value: plain(desc.value) } : desc);
    },
  });

  return {
    event,
    /** The fields written to (not `type`, not AbortSignals), with their values now; undefined if none. */
    edits() {
      if (dirty.size === 0) return undefined;
      /** @type {Record<string, unknown>} */
      const out = {};
      let any = false;
      for (const field of dirty) {
        if (field === "type") continue;
        const v = raw[field];
        if (typeof AbortSignal !== "undefined" && v instanceof AbortSignal) continue;
        // A deleted field is sent as `undefined` (structured clone keeps the key).
        out[field] = v;
        any = true;
      }
      return any ? out : undefined;
    },
  };
}

/** `structuredClone` of a tracked value clones its target (a Proxy cannot be cloned). */
export function installCloneUnwrap() {
  const original = globalThis.structuredClone;
  if (!original || /** @type {any} */ (original).__hookboxUnwraps) return;
  const wrapped = (/** @type {unknown} */ value, /** @type {any} */ options) => original(plain(value), options);
  Object.defineProperty(wrapped, "__hookboxUnwraps", { value: true });
  globalThis.structuredClone = /** @type {typeof structuredClone} */ (wrapped);
}
