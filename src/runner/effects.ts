/**
 * What a hook's result or in-place edit does to the agent, field by field, by the class its event's
 * row gives the field (src/contract/events.ts `effects`, `editEffects`), against what the hook's
 * `policy.effects` grants (worker/effects.mjs). Pure: the runner applies what passes and reports
 * the rest as `effect_refused`.
 *
 * A field's value is compared with what the handler received there: the same data changes nothing
 * (observe), whatever the field's class, and the host's own value is what is applied then. A
 * `subset` field (the context's messages) restricts when its list keeps some of the host's own
 * messages, in their order, and annotates when it keeps all of them in their order and adds the
 * module's own custom messages; the list applied is made of the host's message objects, never of
 * the hook's copies (a copy is mapped back to the host's message it equals, a changed one is not).
 * An `append` field (the system prompt) annotates when it starts with the agent's own text. What an
 * annotation adds is bounded (ANNOTATE_MAX_CHARS of text): more is a substitute.
 */
import { EVENTS, isEventType, type Effect, type FieldEffect } from "../contract/events.js";
import { allows, ANNOTATE_MAX_CHARS } from "../../worker/effects.mjs";

/** One field above the grant: not applied. */
export interface Refusal { field: string; effect: Effect }

/** What may be applied of a result (undefined: nothing is left of it), what was refused, and the fields applied as annotations. */
export interface GatedResult { result: unknown; refused: Refusal[]; annotated?: string[] }

type Classes = Readonly<Record<string, FieldEffect>>;
const resultClasses = (type: string): Classes | undefined => (isEventType(type) ? (EVENTS[type] as { effects?: Classes }).effects : undefined);
const editClasses = (type: string): Classes | undefined => (isEventType(type) ? (EVENTS[type] as { editEffects: Classes }).editEffects : undefined);
/** A field the table does not class (an agent's own field beyond the contract) is taken as the highest class. */
const classOf = (classes: Classes | undefined, field: string): FieldEffect => (classes && Object.hasOwn(classes, field) ? classes[field]! : "substitute");

/**
 * The effect of `value` in a field of class `cls`, where the handler received `current`, and the
 * value to apply for it (the host's own when it is the same data).
 */
export function effectOf(cls: FieldEffect, value: unknown, current: unknown): { effect: Effect; value: unknown } {
  if (sameData(value, current)) return { effect: "observe", value: current };
  // An empty list where the agent had none adds nothing (`resources_discover`'s paths).
  if (current === undefined && Array.isArray(value) && value.length === 0) return { effect: "observe", value };
  if (cls === "subset") {
    if (!Array.isArray(value) || !Array.isArray(current)) return { effect: "substitute", value };
    const kept = subsetOf(current, value);
    if (kept) return { effect: "restrict", value: kept };
    const added = additionsTo(current, value);
    return added ? { effect: "annotate", value: added } : { effect: "substitute", value };
  }
  if (cls === "append") return { effect: appendedChars(value, current) === undefined ? "substitute" : "annotate", value };
  if (cls === "annotate") return { effect: annotation(value) === undefined ? "substitute" : "annotate", value };
  if (typeof cls === "object") return { effect: (typeof value === "string" && Object.hasOwn(cls.byValue, value) ? cls.byValue[value] : undefined) ?? "substitute", value };
  return { effect: cls, value };
}

/**
 * A validated result of a `type` event with every field above `grant` taken out. `received`: the
 * event the handler was given. A result that is one value (`before_provider_request`'s) is the
 * row's one class. Under `substitute` every result passes as it is.
 */
export function gateResult(type: string, result: unknown, received: Record<string, unknown>, grant: Effect): GatedResult {
  if (grant === "substitute") return { result, refused: [] };
  const classes = resultClasses(type);
  if (typeof result !== "object" || result === null || Array.isArray(result) || isEventType(type) && EVENTS[type].rule.kind === "replace") {
    const field = classes ? Object.keys(classes)[0] ?? "result" : "result";
    const { effect, value } = effectOf(classOf(classes, field), result, received[field]);
    return allows(grant, effect) ? { result: value, refused: [], ...(effect === "annotate" ? { annotated: [field] } : {}) } : { result: undefined, refused: [{ field, effect }] };
  }
  const out: Record<string, unknown> = {};
  const refused: Refusal[] = [];
  const annotated: string[] = [];
  const fields = Object.keys(result);
  for (const field of fields) {
    const given = (result as Record<string, unknown>)[field];
    // An absent field changes nothing, whatever the handler received there.
    if (given === undefined) { out[field] = given; continue; }
    const { effect, value } = effectOf(classOf(classes, field), given, received[field]);
    if (allows(grant, effect)) out[field] = value;
    else refused.push({ field, effect });
    if (allows(grant, effect) && effect === "annotate") annotated.push(field);
  }
  const marked = annotated.length > 0 ? { annotated } : {};
  if (refused.length === 0) return { result: out, refused, ...marked };
  // Nothing of it left to apply: the agent keeps its value, as if the handler returned nothing.
  return { result: Object.keys(out).some((k) => out[k] !== undefined) ? out : undefined, refused, ...marked };
}

/**
 * In-place edits (validated: field -> value, `undefined` a deleted field) of a `type` event, where
 * the handler received `received`, with every field above `grant` taken out. Under `substitute`
 * every edit passes as it is.
 */
export function gateEdits(type: string, edits: Record<string, unknown>, received: Record<string, unknown>, grant: Effect): { valid: Record<string, unknown>; refused: Refusal[]; annotated?: string[] } {
  if (grant === "substitute") return { valid: edits, refused: [] };
  const annotated: string[] = [];
  const classes = editClasses(type);
  const valid: Record<string, unknown> = Object.create(null);
  const refused: Refusal[] = [];
  for (const field of Object.keys(edits)) {
    const given = edits[field];
    const current = Object.hasOwn(received, field) ? received[field] : undefined;
    // A deleted field the agent had is one it reads without now: something else.
    const { effect, value } = given === undefined
      ? { effect: current === undefined ? "observe" as const : "substitute" as const, value: given }
      : effectOf(classOf(classes, field), given, current);
    if (allows(grant, effect)) valid[field] = value;
    else refused.push({ field, effect });
    if (allows(grant, effect) && effect === "annotate") annotated.push(field);
  }
  return { valid, refused, ...(annotated.length > 0 ? { annotated } : {}) };
}

/**
 * `proposed` as the host's own elements of `current` it keeps, in their order, or undefined when it
 * is not such a subset (an element that is in no later place of `current`, changed or new). Each
 * element is matched to the first later element of `current` it is the same data as (greedy, which
 * finds a subsequence whenever there is one).
 */
export function subsetOf(current: readonly unknown[], proposed: readonly unknown[]): unknown[] | undefined {
  const kept: unknown[] = [];
  let at = 0;
  for (const item of proposed) {
    while (at < current.length && !sameData(current[at], item)) at++;
    if (at === current.length) return undefined;
    kept.push(current[at++]);
  }
  return kept;
}

/**
 * `proposed` as every element of `current`, in their order (the host's own objects), with the
 * module's own custom messages between them adding at most ANNOTATE_MAX_CHARS of text; undefined
 * when it is not (one of the host's is missing or changed, an added one is not a custom message).
 */
export function additionsTo(current: readonly unknown[], proposed: readonly unknown[]): unknown[] | undefined {
  const out: unknown[] = [];
  let at = 0;
  let added = 0;
  for (const item of proposed) {
    if (at < current.length && sameData(current[at], item)) { out.push(current[at++]); continue; }
    const chars = typeof item === "object" && item !== null && (item as { role?: unknown }).role === "custom" ? annotation(item) : undefined;
    if (chars === undefined) return undefined;
    added += chars;
    out.push(item);
  }
  return at === current.length && added <= ANNOTATE_MAX_CHARS ? out : undefined;
}

/**
 * The characters `value` appends to the agent's own `current` (a string, or oh-my-pi's list of
 * system prompt parts, kept as its first elements, or as the start of one string, joined), or
 * undefined when it does not keep it or adds more than ANNOTATE_MAX_CHARS.
 */
function appendedChars(value: unknown, current: unknown): number | undefined {
  let added: number | undefined;
  if (typeof value === "string" && (current === undefined || typeof current === "string") && value.startsWith(current ?? "")) added = value.length - (current?.length ?? 0);
  else if (Array.isArray(value) && Array.isArray(current) && value.every((v) => typeof v === "string") && current.every((c, i) => c === value[i])) {
    added = (value as string[]).slice(current.length).reduce((n, v) => n + v.length, 0);
  } else if (typeof value === "string" && Array.isArray(current) && current.every((c) => typeof c === "string")) {
    const kept = joinedPrefix(value, current as string[]);
    if (kept !== undefined) added = value.length - kept;
  }
  return added !== undefined && added <= ANNOTATE_MAX_CHARS ? added : undefined;
}

/** How long a start of `value` is made of `parts` in order, joined by at most two characters each (`,`, a blank line), or undefined. */
function joinedPrefix(value: string, parts: readonly string[]): number | undefined {
  let at = 0;
  for (const [i, part] of parts.entries()) {
    const found = value.indexOf(part, at);
    if (found < 0 || (i === 0 ? found !== 0 : found - at > 2)) return undefined;
    at = found + part.length;
  }
  return at;
}

/**
 * The characters of text a module's custom message adds to what the model reads (its `content`),
 * or undefined when it is not an annotation: not a message of the module's own (one in the user's
 * name), or over ANNOTATE_MAX_CHARS.
 */
export function annotation(message: unknown): number | undefined {
  if (typeof message !== "object" || message === null || (message as { attribution?: unknown }).attribution === "user") return undefined;
  const content = (message as { content?: unknown }).content;
  // Text only: an image is not context bounded by characters.
  const parts = typeof content === "string" ? [content] : Array.isArray(content) ? content.map((p) => (typeof p === "object" && p !== null && typeof (p as { text?: unknown }).text === "string" ? (p as { text: string }).text : undefined)) : [undefined];
  if (parts.some((p) => p === undefined)) return undefined;
  const chars = parts.reduce((n, p) => n + p!.length, 0);
  return chars <= ANNOTATE_MAX_CHARS ? chars : undefined;
}

/**
 * Whether two values are the same data: the same primitive, or arrays, plain objects, Sets, Maps
 * and Dates with the same data in them (each crosses the wire as data, so a hook that hands back
 * the Set it was given changes nothing). A key whose value is `undefined` counts as absent.
 * Anything else (a function, a class instance the host holds) is the same only as itself.
 */
export function sameData(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && Object.is(a.getTime(), b.getTime());
  if (a instanceof Set || b instanceof Set) {
    if (!(a instanceof Set && b instanceof Set) || a.size !== b.size) return false;
    return [...a].every((x) => b.has(x) || (typeof x === "object" && x !== null && [...b].some((y) => sameData(x, y))));
  }
  if (a instanceof Map || b instanceof Map) {
    if (!(a instanceof Map && b instanceof Map) || a.size !== b.size) return false;
    return [...a].every(([k, x]) => b.has(k) && sameData(x, b.get(k)));
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => sameData(v, b[i]));
  }
  if (!isPlain(a) || !isPlain(b)) return false;
  const defined = (o: object) => Object.keys(o).filter((k) => (o as Record<string, unknown>)[k] !== undefined);
  const keysA = defined(a);
  if (keysA.length !== defined(b).length) return false;
  return keysA.every((k) => Object.hasOwn(b, k) && sameData((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

const isPlain = (v: object): boolean => [Object.prototype, null].includes(Object.getPrototypeOf(v));
