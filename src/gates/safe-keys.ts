/**
 * The key gate: no key a hook chose that names a prototype (`__proto__`, `constructor`,
 * `prototype`) ever reaches the host. One walk (`forbiddenKeyPath`) and one zod wrapper
 * (`keySafe`) used by every schema the host parses hook data with: results (src/contract/schemas.ts),
 * in-place edits (src/runner/edits.ts), the wire's envelopes (src/contract/protocol.ts) and bridge arguments
 * (src/bridge/methods.ts). A value that holds such a key anywhere is refused before anything of
 * it is used, so a refusal reads like any other schema failure (`invalid_result`, an edit refused,
 * `protocol_violation` for bridge arguments), naming the path to the key.
 *
 * Why refuse rather than strip: the values are copies the host alone holds (structured clone and
 * V8's deserialiser create own data properties, never call a setter), so the danger is not the
 * copy but whoever walks it later by key (`holder[key]` of `__proto__` is `Object.prototype`, of
 * `constructor` is `Object`). zod itself skips `__proto__` in what it builds, silently; a hook
 * that sends one is hostile and is told so.
 */
import { z } from "zod";

/** The keys that walk from an object to a prototype or a constructor. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** Whether `key` may be used as an object key the host writes or walks. */
export function isSafeKey(key: PropertyKey): key is string | number {
  return typeof key === "number" || (typeof key === "string" && !FORBIDDEN_KEYS.has(key));
}

const isForbidden = (key: string) => key === "__proto__" || key === "constructor" || key === "prototype";

/**
 * The path to the first own forbidden key anywhere in `value` (the key last), or undefined.
 * Arrays are walked by index; Maps and Sets by their entries; typed arrays and buffers hold no keys.
 * Own enumerable keys are what a structured clone or V8's deserialiser carries, so they are all a
 * hook's value can hold when the host gets it.
 *
 * Two walks: a plain recursive one, bounded in objects and depth, for the common case (~50 ns for
 * a tool_call result, ~0.03 ms for the bench's 1 MiB context of 500 messages); past its bounds (a value
 * with shared parts, a cycle, a Map) the one that remembers every object it saw, without recursion,
 * linear in objects whatever the sharing.
 */
export function forbiddenKeyPath(value: unknown): Array<string | number> | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  // Most values are small trees (a tool_call result): walked plainly first, no allocation.
  budget = QUICK_NODES;
  const quick = quickWalk(value, 0);
  return quick === CLEAN ? undefined : slowPath(value);
}

const CLEAN = 0;
const HIT = 1;
const GAVE_UP = 2;
/** Objects the quick walk visits before it hands over to the walk that remembers what it saw (shared values, cycles). */
const QUICK_NODES = 50_000;
const QUICK_DEPTH = 100;
let budget = 0;

/** A plain recursive walk, bounded in objects and depth: CLEAN, HIT, or GAVE_UP (too big, deep or cyclic for it). */
function quickWalk(node: object, depth: number): number {
  if (--budget < 0 || depth > QUICK_DEPTH) return GAVE_UP;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const child: unknown = node[i];
      if (typeof child === "object" && child !== null) {
        const r = quickWalk(child, depth + 1);
        if (r !== CLEAN) return r;
      }
    }
    return CLEAN;
  }
  const proto: unknown = Object.getPrototypeOf(node);
  if (proto !== Object.prototype && proto !== null) {
    if (node instanceof Map || node instanceof Set) return GAVE_UP;
    if (ArrayBuffer.isView(node) || node instanceof ArrayBuffer) return CLEAN;
  }
  // Why for...in (a third faster than Object.keys here): on a plain object it yields its own
  // enumerable keys, and Object.prototype's only if something planted one there (then walked too).
  for (const key in node) {
    if (isForbidden(key)) return HIT;
    const child = (node as Record<string, unknown>)[key];
    if (typeof child === "object" && child !== null) {
      const r = quickWalk(child, depth + 1);
      if (r !== CLEAN) return r;
    }
  }
  return CLEAN;
}

/** The walk that remembers every object it saw: each object once, so a shared or cyclic value costs its size, no more. */
function slowPath(value: object): Array<string | number> | undefined {
  const seen = new Set<object>([value]);
  const stack: object[] = [value];
  let hit: string | undefined;
  const visit = (child: unknown) => {
    if (typeof child === "object" && child !== null && !seen.has(child)) {
      seen.add(child);
      stack.push(child);
    }
  };
  while (stack.length > 0 && hit === undefined) {
    const node = stack.pop()!;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) visit(node[i]);
    } else if (node instanceof Map) {
      for (const [k, v] of node) { visit(k); visit(v); }
    } else if (node instanceof Set) {
      for (const v of node) visit(v);
    } else if (!ArrayBuffer.isView(node) && !(node instanceof ArrayBuffer)) {
      const keys = Object.keys(node);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        if (isForbidden(key)) { hit = key; break; }
        visit((node as Record<string, unknown>)[key]);
      }
    }
  }
  if (hit === undefined) return undefined;
  try {
    return pathTo(value, new Set()) ?? [hit];
  } catch {
    return [hit]; // nested past the stack: the key alone
  }
}

/** The path to a forbidden key (only after one was found: the rare case pays for the path). */
function pathTo(node: unknown, seen: Set<object>): Array<string | number> | undefined {
  if (typeof node !== "object" || node === null || seen.has(node)) return undefined;
  seen.add(node);
  const entries: Array<[string | number, unknown]> = Array.isArray(node) ? node.map((v, i) => [i, v])
    : node instanceof Map ? [...node].flatMap(([k, v], i) => [[i, k], [i, v]] as Array<[number, unknown]>)
    : node instanceof Set ? [...node].map((v, i) => [i, v])
    : ArrayBuffer.isView(node) || node instanceof ArrayBuffer ? [] : Object.keys(node).map((k) => [k, (node as Record<string, unknown>)[k]]);
  for (const [key, child] of entries) {
    if (typeof key === "string" && isForbidden(key)) return [key];
    const below = pathTo(child, seen);
    if (below) return [key, ...below];
  }
  return undefined;
}

/** Whether `value` holds no forbidden key anywhere. */
export const keysAreSafe = (value: unknown): boolean => forbiddenKeyPath(value) === undefined;

/** The zod check: one issue at the path of the first forbidden key. */
function refuseForbiddenKeys(value: unknown, ctx: z.RefinementCtx): void {
  const path = forbiddenKeyPath(value);
  if (!path) return;
  ctx.addIssue({ code: "custom", path, message: `the key "${path[path.length - 1]}" is refused: it names a prototype` });
}

/**
 * `schema`, after the key gate: the raw input is walked first (zod's own output would already
 * have dropped a `__proto__`, hiding it), and a refused value never reaches `schema`.
 */
export function keySafe<T extends z.ZodType>(schema: T): z.ZodPipe<z.ZodUnknown, T> {
  return z.unknown().superRefine(refuseForbiddenKeys).pipe(schema);
}

/** Any value, no forbidden key anywhere in it: the gated `z.unknown()`. */
export const safeData = keySafe(z.unknown());
/** A record key: a string that is not a forbidden key. */
export const safeKey = z.string().refine((k) => !FORBIDDEN_KEYS.has(k), { message: "that key names a prototype and is refused" });
