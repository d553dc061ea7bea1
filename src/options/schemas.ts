/**
 * The options of `loadHooks`, `discoverAndLoadHooks` (with `perHook`) and `new HookRunner`,
 * checked at run time: a JS host or a config file can pass anything, and an
 * isolation typo (`"sandbx"`) must never load a hook in a weaker mode. Each entry point parses its
 * options with these zod schemas; an unknown key, an unknown isolation or preset, or a wrong type
 * throws a `TypeError` naming the option's path and, where one is close, the valid value meant.
 */
import { z } from "zod";
import { EFFECTS, TERMINAL_ACCESS, presets, type Policy } from "../policy/policy.js";
import { levenshtein } from "../contract/edit-distance.js";

const fn = z.custom<(...args: never[]) => unknown>((v) => typeof v === "function", { message: "a function" });
/** A count, size or duration: a number ≥ 0 (Infinity allowed, NaN not). */
const amount = z.custom<number>((v) => typeof v === "number" && v >= 0, { message: "a number ≥ 0" });
const strings = z.array(z.string());

const presetName = z.enum(Object.keys(presets) as [keyof typeof presets, ...Array<keyof typeof presets>]);
const execRule = z.strictObject({ command: z.string(), args: z.array(z.union([z.string(), z.instanceof(RegExp)])).optional() });
/**
 * A partial policy: exactly `Policy`'s fields, each typed (tsc refuses a `Policy` field missing
 * here or a field `Policy` does not have), every other key refused.
 */
const policyShape = {
  permissionModel: z.boolean().optional(),
  fsRead: strings.optional(),
  fsWrite: strings.optional(),
  childProcess: z.boolean().optional(),
  env: strings.optional(),
  exec: z.strictObject({ allow: z.union([z.literal("*"), z.array(z.union([z.string(), execRule]))]).optional(), timeoutMs: amount.optional(), maxOutputBytes: amount.optional() }).optional(),
  sandbox: z.boolean().optional(),
  network: z.strictObject({ allow: strings.optional() }).optional(),
  hostModules: z.union([z.literal("*"), strings]).optional(),
  modelRegistry: z.enum(["read", "keys", "all"]).optional(),
  agent: z.enum(["read", "write"]).optional(),
  effects: z.enum(EFFECTS).optional(),
  terminal: z.enum(TERMINAL_ACCESS).optional(),
} satisfies { [K in keyof Policy]-?: z.ZodType };
const policyOption = z.union([presetName, z.strictObject(policyShape)]);

export const sandboxOptionsShape = {
  deadlines: z.record(z.string(), amount).optional(),
  unresponsiveMs: amount.optional(),
  loadUnresponsiveMs: amount.optional(),
  resourceLimits: z.strictObject({ maxOldGenerationSizeMb: amount.optional(), maxYoungGenerationSizeMb: amount.optional(), codeRangeSizeMb: amount.optional(), stackSizeMb: amount.optional() }).optional(),
  maxMessageBytes: amount.optional(),
  maxPostsPerSecond: amount.optional(),
  maxPausedMs: amount.optional(),
  maxRestarts: amount.optional(),
  restartWindowMs: amount.optional(),
  maxLongRestarts: amount.optional(),
  longRestartWindowMs: amount.optional(),
  toolCallFailure: z.enum(["closed", "open"]).optional(),
  transformCacheDir: z.union([z.string(), z.literal(false)]).optional(),
  transformCacheMaxBytes: amount.optional(),
  syncTimeoutMs: amount.optional(),
  renderTimeoutMs: amount.optional(),
  renderBudgetMs: amount.optional(),
  transformBudget: z.strictObject({ fileCharacters: amount.optional(), characters: amount.optional(), ms: amount.optional() }).optional(),
  terminalText: z.strictObject({ colors: z.boolean().optional() }).optional(),
  onLog: fn.optional(),
  onDenied: fn.optional(),
  policy: policyOption.optional(),
  isolation: z.enum(["worker", "process", "sandbox"]).optional(),
  sandboxMemoryMb: amount.optional(),
  runtime: z.string().min(1).optional(),
  onNet: fn.optional(),
  onExec: fn.optional(),
  approval: fn.optional(),
  env: z.record(z.string(), z.string().optional()).optional(),
  execArgv: strings.optional(),
  hostModules: z.record(z.string(), z.custom<object>((v) => typeof v === "object" && v !== null, { message: "an object" })).optional(),
};
const sandboxOptions = z.strictObject(sandboxOptionsShape);
const loadOptions = z.strictObject({ ...sandboxOptionsShape, perHook: z.record(z.string(), sandboxOptions).optional() });
const discoverOptions = z.strictObject({
  ...loadOptions.shape,
  home: z.string().optional(),
  providers: z.array(z.custom<object>((v) => typeof v === "object" && v !== null, { message: "a hook provider" })).optional(),
  sortEntries: z.boolean().optional(),
  approvals: z.union([z.literal(false), z.strictObject({ dir: z.string().optional() })]).optional(),
  shellHooks: z.union([z.boolean(), z.strictObject({ maxOutputBytes: amount.optional(), env: z.record(z.string(), z.string().optional()).optional() })]).optional(),
  discovered: strings.optional(),
  trust: z.strictObject({ project: policyOption.optional(), user: policyOption.optional(), configured: policyOption.optional(), byPath: z.record(z.string(), policyOption).optional() }).optional(),
});
const runnerOptions = z.strictObject({
  onLog: fn.optional(),
  watch: z.union([z.boolean(), z.strictObject({ debounceMs: amount.optional(), filter: fn.optional(), onReload: fn.optional() })]).optional(),
});


/** The schemas by entry point (test/types/option-schemas.ts checks their keys against the option types). */
export const SCHEMAS = { loadHooks: loadOptions, discoverAndLoadHooks: discoverOptions, HookRunner: runnerOptions };

/** Plain objects copied by own keys onto null prototypes (functions, arrays' elements and class instances as they are). */
function ownData(value: unknown, depth = 0): unknown {
  if (depth > 16 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => ownData(v, depth + 1));
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value)) out[key] = ownData((value as Record<string, unknown>)[key], depth + 1);
  return out;
}

/** Check `options` of entry point `where`; throws a `TypeError` naming the first bad option. Returns them unchanged. */
export function checkOptions<T>(where: keyof typeof SCHEMAS, options: T): T {
  if (options === undefined) return options;
  // Why an own-key copy: a key inherited from a polluted prototype is not an option the caller passed.
  const problem = optionsProblem(SCHEMAS[where], options);
  if (problem === undefined) return options;
  throw new TypeError(`${where}: ${problem}`);
}

/**
 * What is wrong with `value` against `schema` (an object schema built from these shapes), said as
 * checkOptions says it (the option's path, and the valid name or value meant); undefined when it parses.
 */
export function optionsProblem(schema: z.ZodType, value: unknown): string | undefined {
  const result = schema.safeParse(ownData(value));
  return result.success ? undefined : describeIssue(result.error.issues[0]!, value, schema);
}

type Issue = z.core.$ZodIssue;

function describeIssue(issue: Issue, root: unknown, schema: z.ZodType): string {
  const at = (path: readonly PropertyKey[]) => (path.length === 0 ? "options" : `option "${path.map(String).join(".")}"`);
  const value = valueAt(root, issue.path);
  switch (issue.code) {
    case "unrecognized_keys": {
      const key = issue.keys[0]!;
      const known = keysAt(schema, issue.path);
      const path = [...issue.path, key].map(String).join(".");
      return `unknown option "${path}"${suggest(key, known)}${known.length ? ` (known: ${known.join(", ")})` : ""}`;
    }
    case "invalid_value": {
      // Only a string is shown as given (cut): any other value may be huge, cyclic or a BigInt.
      const allowed = issue.values.map((v) => JSON.stringify(v)).join(", ");
      if (typeof value !== "string") return `${at(issue.path)} must be one of ${allowed} (got ${kind(value)})`;
      return `${at(issue.path)} is ${JSON.stringify(value.slice(0, 80))}, which is not one of ${allowed}${suggest(value, issue.values.map(String))}`;
    }
    case "invalid_union": {
      // The branch that matches the value's kind (a preset name for a string, a partial policy for an object) says what is wrong.
      const atRoot = (issues: Issue[]) => issues.some((i) => i.path.length === 0 && (i.code === "invalid_type" || i.code === "invalid_value"));
      const branch = issue.errors.find((issues) => !atRoot(issues)) ?? (typeof value === "string" ? issue.errors.find((issues) => issues[0]?.code === "invalid_value") : undefined);
      if (branch?.[0]) return describeIssue({ ...branch[0], path: [...issue.path, ...branch[0].path] } as Issue, root, schema);
      return `${at(issue.path)} has the wrong type (got ${kind(value)})`;
    }
    case "invalid_type":
      return `${at(issue.path)} must be ${issue.expected === "custom" ? issue.message : issue.expected === "object" ? "an object" : `a ${issue.expected}`} (got ${kind(value)})`;
    case "custom":
      return `${at(issue.path)} must be ${issue.message} (got ${kind(value)})`;
    default:
      return `${at(issue.path)} is invalid: ${issue.message} (got ${kind(value)})`;
  }
}

/** The keys of the object schema at `path` below `schema` (what an unknown key there could have meant). */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let at: z.ZodType | undefined = schema;
  for (const key of [...path, undefined]) {
    // Unwrap to an object: through optionals, and to a union's object branch.
    for (let i = 0; at && i < 8; i++) {
      if (at instanceof z.ZodOptional) at = at.unwrap() as z.ZodType;
      else if (at instanceof z.ZodUnion) at = (at.options as z.ZodType[]).find((o) => o instanceof z.ZodObject || o instanceof z.ZodRecord);
      else break;
    }
    if (key === undefined) break;
    if (at instanceof z.ZodObject) at = at.shape[String(key)] as z.ZodType | undefined;
    else if (at instanceof z.ZodArray) at = at.element as z.ZodType;
    else if (at instanceof z.ZodRecord) at = at.valueType as z.ZodType;
    else return [];
  }
  return at instanceof z.ZodObject ? Object.keys(at.shape) : [];
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const key of path) v = v !== null && typeof v === "object" && Object.hasOwn(v, key) ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  return v;
}

function kind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 80))}`;
  return typeof value;
}

/**
 * The closest of `known` to `word` (case aside) within a third of the word's length (at least 2
 * edits), else undefined: the one "did you mean" of option names (the API's and the CLI's flags).
 */
export function closestName(word: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    const d = levenshtein(word.toLowerCase(), k.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.ceil(word.length / 3)) ? best : undefined;
}

/** `; did you mean "x"?` for `closestName`, else nothing. */
function suggest(word: string, known: readonly string[]): string {
  const best = closestName(word, known);
  return best !== undefined ? `; did you mean "${best}"?` : "";
}
