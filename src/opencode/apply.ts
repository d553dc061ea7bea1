/**
 * A plugin's edited `output`, held to its row (./hooks.ts) before it reaches opencode: validated by
 * the hook's zod schema, each changed field checked against the plugin's grant by its effect class,
 * and applied into opencode's own objects in place (opencode runs the `args` object it passed,
 * so a new object would change nothing). Pure but for the in-place writes.
 */
import { Errors, HookFailure } from "../contract/errors.js";
import { allows } from "../../worker/effects.mjs";
import { OPENCODE_HOOKS, type OpencodeHook } from "./hooks.js";

export type Grant = "restrict" | "substitute";

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Replace `target`'s content with `value`'s, keeping `target` the same object (or array). */
function replaceInPlace(target: unknown, value: unknown): boolean {
  if (Array.isArray(target) && Array.isArray(value)) {
    target.splice(0, target.length, ...value);
    return true;
  }
  if (target && typeof target === "object" && value && typeof value === "object" && !Array.isArray(value)) {
    const t = target as Record<string, unknown>;
    for (const key of Object.keys(t)) if (!Object.hasOwn(value, key)) delete t[key];
    Object.assign(t, value);
    return true;
  }
  return false;
}

export interface Applied {
  /** Edits refused by the grant: the agent's value stands. */
  refused: HookFailure[];
}

/**
 * Apply `edited` (what the plugin's process answered) into `output`. Throws `invalid_result` when
 * it fails the hook's schema (nothing applied).
 */
export function applyEdits(path: string, hook: OpencodeHook, grant: Grant, output: Record<string, unknown>, edited: unknown): Applied {
  const row = OPENCODE_HOOKS[hook];
  const parsed = row.output.safeParse(edited);
  if (!parsed.success) throw Errors.invalidResult(path, hook, parsed.error.issues.map((i) => `${i.path.join(".") || "output"}: ${i.message}`).join("; "));
  const value = parsed.data as Record<string, unknown>;
  const refused: HookFailure[] = [];
  for (const [field, effect] of Object.entries(row.edits) as Array<[string, string]>) {
    if (!Object.hasOwn(value, field) || same(value[field], output[field])) continue;
    // Restrict-class fields restrict only in one direction (autocontinue's enabled: only to false).
    const klass = effect === "restrict" && value[field] !== false ? "substitute" : effect;
    if (!allows(grant, klass)) {
      refused.push(Errors.effectRefused(path, hook, `output.${field}`, klass, grant, "opencode's value stands"));
      continue;
    }
    if (!replaceInPlace(output[field], value[field])) output[field] = value[field];
  }
  return { refused };
}
