/**
 * In-place edits of an event, carried back from a worker (see worker/edits.mjs). The original
 * shares the event object with its handlers, so an edit of `event.input` changes what the tool
 * runs and an edit of `event.content[0].text` changes what the agent sees. Here each edited field
 * is validated like a result and applied to the host's own objects, in place where the shapes
 * match (same object, same array), so whoever holds them (the tool's params, its result) sees it.
 *
 * The gate (an edit whose `input` held an own `__proto__` key was once walked into
 * `Object.prototype`): only known fields are edited (a field the host's event already holds as
 * plain data, or an optional field its row in src/contract/events.ts lists as `addable`; never `type`);
 * each value passes the key gate (src/gates/safe-keys.ts) and its field's schema (the row's payload
 * schema; any data for a field the host added beyond the contract), and what is applied is the
 * schema's parsed output;
 * the write-back walks only own keys of the host's objects and keys that pass `isSafeKey`.
 */
import type { z } from "zod";
import { EVENTS, EVENT_TYPES } from "../contract/events.js";
import { describeIssues } from "../contract/schemas.js";
import { isSafeKey, keySafe, safeData } from "../gates/safe-keys.js";

/**
 * Per event of the contract: what each of its fields must be when a hook edits it (the row's
 * payload schema, src/contract/events.ts, behind the key gate), and the optional fields an edit may add.
 */
const FIELDS: ReadonlyMap<string, { schemas: ReadonlyMap<string, z.ZodType>; addable: ReadonlySet<string> }> = new Map(EVENT_TYPES.map((type) => {
  const row = EVENTS[type] as { payload: Record<string, z.ZodType>; addable?: readonly string[] };
  return [type, {
    schemas: new Map(Object.entries(row.payload).map(([field, schema]) => [field, keySafe(schema)])),
    addable: new Set(row.addable ?? []),
  }];
}));

/** One field that was not applied, and why. */
export interface RefusedEdit { field: string; detail: string }

/** Validated edits: field -> parsed value (`undefined`: the field was deleted). No prototype: a field name is never walked. */
export type ValidEdits = Record<string, unknown>;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) && [Object.prototype, null].includes(Object.getPrototypeOf(v));

/** A value the host's event may have edited in place: plain data (never an AbortSignal, a class instance or a function). */
const isData = (v: unknown): boolean => v === null || Array.isArray(v) || isPlainObject(v) || ["string", "number", "boolean", "undefined"].includes(typeof v);

const fieldsOf = (event: Record<string, unknown>) => (typeof event.type === "string" ? FIELDS.get(event.type) : undefined);

/** Why `field` may not be edited on `event`, or undefined when it may. */
function notEditable(field: string, event: Record<string, unknown>): string | undefined {
  if (field === "type" || !isSafeKey(field)) return "it is not an editable field of the event";
  if (Object.hasOwn(event, field)) return isData(event[field]) ? undefined : "the host's value there is not plain data";
  return fieldsOf(event)?.addable.has(field) ? undefined : "it is not a field of this event";
}

/**
 * Validate `edits` (a hook's, from the wire) against `event` (the host's): the valid ones as the
 * schemas parsed them, and a note per field refused.
 */
export function checkEdits(edits: Record<string, unknown>, event: Record<string, unknown>): { valid: ValidEdits; refused: RefusedEdit[] } {
  const valid: ValidEdits = Object.create(null);
  const refused: RefusedEdit[] = [];
  for (const field of Object.keys(edits)) {
    if (field === "type") continue;
    const why = notEditable(field, event);
    if (why) { refused.push({ field, detail: why }); continue; }
    const value = edits[field];
    if (value === undefined) { valid[field] = undefined; continue; }
    // A field of the contract has its schema; one the host added beyond it is any gated data.
    const parsed = (fieldsOf(event)?.schemas.get(field) ?? safeData).safeParse(value);
    if (parsed.success) valid[field] = parsed.data;
    else refused.push({ field, detail: describeIssues(parsed.error) });
  }
  return { valid, refused };
}

/** Apply validated edits to `event` (the host's object): a deleted field is deleted, the rest patched in place. */
export function applyEdits(event: Record<string, unknown>, edits: ValidEdits): void {
  for (const field of Object.keys(edits)) {
    if (!isSafeKey(field)) continue;
    const value = edits[field];
    if (value === undefined) delete event[field];
    else assignInPlace(event, field, value);
  }
}

/**
 * `holder[key] = next`, keeping the objects the host already holds: an object is patched key by
 * key, an array of the same length element by element; an array whose length changed (a splice,
 * a push) keeps its identity and gets the new elements. Only own properties of the host's objects
 * are read, and only keys that pass `isSafeKey` are written (the key gate refused the rest at the
 * wire; this is the second lock).
 */
function assignInPlace(holder: Record<PropertyKey, unknown>, key: string | number, next: unknown): void {
  const current = Object.hasOwn(holder, key) ? holder[key] : undefined;
  if (Array.isArray(current) && Array.isArray(next)) {
    if (current.length === next.length) next.forEach((v, i) => assignInPlace(current as never, i, v));
    else current.splice(0, current.length, ...next);
    return;
  }
  if (isPlainObject(current) && isPlainObject(next)) {
    for (const k of Object.keys(current)) if (!Object.hasOwn(next, k)) delete current[k];
    for (const k of Object.keys(next)) if (isSafeKey(k)) assignInPlace(current, k, next[k]);
    return;
  }
  if (!Object.is(current, next)) holder[key] = next;
}
