/**
 * In-place edits of an event, carried back from a worker (see worker/edits.mjs). The original
 * shares the event object with its handlers, so an edit of `event.input` changes what the tool
 * runs and an edit of `event.content[0].text` changes what the agent sees. Here each edited field
 * is validated like a result and applied to the host's own objects, in place where the shapes
 * match (same object, same array), so whoever holds them (the tool's params, its result) sees it.
 */
import { z } from "zod";
import { agentMessage, describeIssues, toolContent } from "./schemas.js";

/** What an edited field must be; fields not listed take any plain data. */
const FIELD_SCHEMAS: Record<string, z.ZodType> = {
  toolName: z.string(),
  toolCallId: z.string(),
  input: z.record(z.string(), z.unknown()),
  content: z.array(toolContent),
  isError: z.boolean(),
  isWarning: z.boolean(),
  messages: z.array(agentMessage),
  prompt: z.string(),
  images: z.array(toolContent),
};

/** One field that was not applied, and why. */
export interface RefusedEdit { field: string; detail: string }

/** Validate `edits`; the valid ones, and a note per field refused. */
export function checkEdits(edits: Record<string, unknown>): { valid: Record<string, unknown>; refused: RefusedEdit[] } {
  const valid: Record<string, unknown> = {};
  const refused: RefusedEdit[] = [];
  for (const [field, value] of Object.entries(edits)) {
    if (field === "type") continue;
    const schema = Object.hasOwn(FIELD_SCHEMAS, field) ? FIELD_SCHEMAS[field] : undefined;
    if (value === undefined || !schema) { valid[field] = value; continue; }
    const parsed = schema.safeParse(value);
    if (parsed.success) valid[field] = value;
    else refused.push({ field, detail: describeIssues(parsed.error) });
  }
  return { valid, refused };
}

/** Apply validated edits to `event` (the host's object): a deleted field is deleted, the rest patched in place. */
export function applyEdits(event: Record<string, unknown>, edits: Record<string, unknown>): void {
  for (const [field, value] of Object.entries(edits)) {
    if (value === undefined) delete event[field];
    else assignInPlace(event, field, value);
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) && [Object.prototype, null].includes(Object.getPrototypeOf(v));

/**
 * `holder[key] = next`, keeping the objects the host already holds: an object is patched key by
 * key, an array of the same length element by element; an array whose length changed (a splice,
 * a push) keeps its identity and gets the new elements.
 */
function assignInPlace(holder: Record<PropertyKey, unknown>, key: PropertyKey, next: unknown): void {
  const current = holder[key];
  if (Array.isArray(current) && Array.isArray(next)) {
    if (current.length === next.length) next.forEach((v, i) => assignInPlace(current as never, i, v));
    else current.splice(0, current.length, ...next);
    return;
  }
  if (isPlainObject(current) && isPlainObject(next)) {
    for (const k of Object.keys(current)) if (!Object.hasOwn(next, k)) delete current[k];
    for (const [k, v] of Object.entries(next)) assignInPlace(current, k, v);
    return;
  }
  if (!Object.is(current, next)) holder[key] = next;
}

