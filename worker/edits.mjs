// In-place edits of an event. In the original every handler gets the host's own event object, so
// `event.input.command += " --dry-run"` or `event.content[0].text = redact(…)` changes what the
// agent runs and sees. Here the event is a copy: handlers get it behind proxies that note which
// top-level field a write went under (reads cost one trap, no copy is taken up front), and the
// worker sends those fields back for the host to validate and apply to its own object.
//
// Invariant: the raw event never holds a proxy (every value written through a proxy is unwrapped
// first), so whatever leaves the worker is unwrapped by `plain` at its top only.
//
// A top-level array (`messages`, `content`) is handed out as a real array of tracked elements, not
// as a proxy: array methods on a proxy go through a trap per index and cost most of a 1 MiB
// context's time. Whether the handlers changed that array itself (push, splice, sort, an element
// assigned) is found by comparing it with the elements it was handed out with, once they ran.

/** A tracked proxy answers this key with its raw target (cheaper than a WeakMap of every proxy). */
const TARGET = Symbol("hookbox.target");
/** Targets given a non-configurable property through a proxy (so `get` must report them as is). @type {WeakSet<object>} */
const pinned = new WeakSet();
/** Whether any target was pinned yet (most events never are: a read then skips the lookup). */
let anyPinned = false;
/** @param {object} target */
const pin = (target) => { anyPinned = true; pinned.add(target); };

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

/** A proxy must report a non-writable, non-configurable property as is. @param {object} target @param {PropertyKey} key */
function frozenSlot(target, key) {
  if (Object.isExtensible(target) && !(anyPinned && pinned.has(target))) return false;
  const d = Reflect.getOwnPropertyDescriptor(target, key);
  return d !== undefined && !d.configurable && !d.writable;
}

/** @param {PropertyDescriptor} desc */
const unwrapped = (desc) => ("value" in desc ? { ...desc, value: plain(desc.value) } : desc);

/** @typedef {{ source: unknown[]; copy: unknown[]; initial: unknown[] }} Shadow */

/** Whether the array handed out no longer holds what it was handed out with. @param {Shadow} shadow */
function changed({ copy, initial }) {
  if (copy.length !== initial.length) return true;
  for (let i = 0; i < copy.length; i++) if (copy[i] !== initial[i]) return true;
  return false;
}

// Why classes: the traps live on shared prototypes, so tracking one event allocates its state and
// two small objects, not a dozen closures (every tool_call pays for it).

/** The traps of every object below one top-level field: a write marks that field dirty. */
class FieldTraps {
  /** The first object wrapped and its proxy (most fields have one object below them: `input`). @type {object | undefined} */
  first = undefined;
  /** @type {object | undefined} */
  firstProxy = undefined;
  /** Every other raw object -> its proxy; dies with the event. @type {Map<object, object> | undefined} */
  made = undefined;
  /** When the field is an array: the raw array, the array handed out, and its elements then. @type {Shadow | undefined} */
  shadowed = undefined;

  /** @param {Tracker} tracker @param {string} field */
  constructor(tracker, field) {
    this.tracker = tracker;
    this.field = field;
  }

  /** The field's array as handlers get it: a real array of tracked elements, the same one each read. @param {unknown[]} source */
  shadow(source) {
    if (source === this.shadowed?.source) return this.shadowed.copy;
    const copy = new Array(source.length);
    for (let i = 0; i < source.length; i++) {
      const v = source[i];
      copy[i] = isTrackable(v) ? new Proxy(/** @type {object} */ (v), this) : v;
    }
    this.shadowed = { source, copy, initial: copy.slice() };
    return copy;
  }

  /** The one proxy of `target` (so `event.input === event.input`). @param {object} target */
  wrap(target) {
    if (target === this.first) return /** @type {object} */ (this.firstProxy);
    if (this.first === undefined) {
      this.first = target;
      return (this.firstProxy = new Proxy(target, this));
    }
    const known = this.made?.get(target);
    if (known) return known;
    const proxy = new Proxy(target, this);
    (this.made ??= new Map()).set(target, proxy);
    return proxy;
  }

  /** @param {object} target @param {PropertyKey} key @param {unknown} receiver */
  get(target, key, receiver) {
    if (key === TARGET) return target;
    const v = Reflect.get(target, key, receiver);
    if (typeof v !== "object" || v === null) return v;
    return isTrackable(v) && !frozenSlot(target, key) ? this.wrap(v) : v;
  }

  /** @param {object} target @param {PropertyKey} key @param {unknown} v */
  set(target, key, v) {
    this.tracker.mark(this.field);
    return Reflect.set(target, key, plain(v));
  }

  /** @param {object} target @param {PropertyKey} key */
  deleteProperty(target, key) {
    this.tracker.mark(this.field);
    return Reflect.deleteProperty(target, key);
  }

  /** @param {object} target @param {PropertyKey} key @param {PropertyDescriptor} desc */
  defineProperty(target, key, desc) {
    this.tracker.mark(this.field);
    if (desc.configurable === false) pin(target);
    return Reflect.defineProperty(target, key, unwrapped(desc));
  }
}

/** The traps of the event itself: a write marks the field written. */
class Tracker {
  /** @type {Set<string> | undefined} */
  dirty = undefined;
  /** Per top-level field, the traps of what is under it. @type {Map<string, FieldTraps> | undefined} */
  fields = undefined;
  /** Whether a top-level array was handed out (most tool_calls have none). */
  shadows = false;

  /** @param {Record<string, unknown>} raw */
  constructor(raw) {
    this.raw = raw;
    /** What handlers get: `raw` behind these traps (set by `trackEdits`). @type {Record<string, unknown>} */
    this.event = raw;
  }

  /** @param {string} field */
  mark(field) {
    (this.dirty ??= new Set()).add(field);
  }

  /** @param {object} target @param {PropertyKey} key @param {unknown} receiver */
  get(target, key, receiver) {
    if (key === TARGET) return target;
    const v = Reflect.get(target, key, receiver);
    if (typeof key !== "string" || !isTrackable(v) || frozenSlot(target, key)) return v;
    let traps = (this.fields ??= new Map()).get(key);
    if (!traps) this.fields.set(key, (traps = new FieldTraps(this, key)));
    if (!Array.isArray(v)) return traps.wrap(v);
    this.shadows = true;
    return traps.shadow(v);
  }

  /** @param {object} target @param {PropertyKey} key @param {unknown} v */
  set(target, key, v) {
    if (typeof key === "string") this.mark(key);
    return Reflect.set(target, key, plain(v));
  }

  /** @param {object} target @param {PropertyKey} key */
  deleteProperty(target, key) {
    if (typeof key === "string") this.mark(key);
    return Reflect.deleteProperty(target, key);
  }

  /** @param {object} target @param {PropertyKey} key @param {PropertyDescriptor} desc */
  defineProperty(target, key, desc) {
    if (typeof key === "string") this.mark(key);
    if (desc.configurable === false) pin(target);
    return Reflect.defineProperty(target, key, unwrapped(desc));
  }

  /** The fields written to (not `type`, not AbortSignals), with their values now; undefined if none. */
  edits() {
    // A top-level array changed as an array goes back into the event, unwrapped.
    if (this.shadows && this.fields) {
      for (const [field, traps] of this.fields) {
        const shadow = traps.shadowed;
        if (shadow === undefined || this.raw[field] !== shadow.source || !changed(shadow)) continue;
        this.mark(field);
        this.raw[field] = plain(shadow.copy);
        traps.shadowed = undefined;
      }
    }
    if (!this.dirty) return undefined;
    /** @type {Record<string, unknown>} */
    const out = {};
    let any = false;
    for (const field of this.dirty) {
      if (field === "type") continue;
      const v = this.raw[field];
      if (typeof AbortSignal !== "undefined" && v instanceof AbortSignal) continue;
      // A deleted field is sent as `undefined` (structured clone keeps the key).
      out[field] = v;
      any = true;
    }
    return any ? out : undefined;
  }
}

/**
 * Track writes to `event` (a copy the worker owns). `event` is what handlers get; `edits()` names
 * the top-level fields written to, directly or anywhere below, with their values now.
 * @param {Record<string, unknown>} raw
 * @returns {{ event: Record<string, unknown>; edits: () => Record<string, unknown> | undefined }}
 */
export function trackEdits(raw) {
  const tracker = new Tracker(raw);
  tracker.event = new Proxy(raw, /** @type {ProxyHandler<Record<string, unknown>>} */ (tracker));
  return tracker;
}

/** `structuredClone` of a tracked value clones its target (a Proxy cannot be cloned). */
export function installCloneUnwrap() {
  const original = globalThis.structuredClone;
  if (!original || /** @type {any} */ (original).__hookboxUnwraps) return;
  const wrapped = (/** @type {unknown} */ value, /** @type {any} */ options) => original(plain(value), options);
  Object.defineProperty(wrapped, "__hookboxUnwraps", { value: true });
  globalThis.structuredClone = /** @type {typeof structuredClone} */ (wrapped);
}
