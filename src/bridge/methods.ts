/**
 * The bridge: every method a worker may ask of the host, in one table. Each row says how the call
 * travels (`call`: async with an answer, `post`: fire and forget, `sync`: the worker blocks), who
 * may make it, its arguments (bounded), what the host answers, and whether waiting on it pauses the
 * request's deadline. The channel (`isolation/host-calls.ts`) enforces the row before the host's
 * implementation (`host-bridge.ts`) sees anything; the worker's proxies use the same names
 * (`worker/wire.mjs`).
 */
import { z } from "zod";
import { AGENT_GETTERS, AGENT_SETTERS, DEFAULTS, KIND, LIMITS, METHOD, SESSION_METHODS, type MethodName } from "../../worker/wire.mjs";

export type { MethodName };
import { keySafe } from "../gates/safe-keys.js";
import { flagName } from "../contract/registration-schemas.js";
import { hookMessage, toolContent, toolResult } from "../contract/schemas.js";

/**
 * Who may make a call:
 * - `any`: any handler, renderer or timer, once the runner exists (`atLoad`: from the factory on);
 * - `command`: only while a command of this hook runs, from that command (the call names a pending
 *   command request); anything else is refused as `protocol_violation`;
 * - `setup`: only inside the `setup` callback of `ctx.newSession` (the host checks the session is open).
 */
export type Scope = "any" | "command" | "setup";

export interface MethodSpec {
  kind: "call" | "post" | "sync";
  scope: Scope;
  /** Also served before the runner exists (from the hook's factory). */
  atLoad?: boolean;
  args: z.ZodType<unknown[]>;
  result: z.ZodType;
  /** A UI wait: it pauses the request's deadline (up to `maxPausedMs` in all) and runs one at a time per hook. */
  prompt?: boolean;
}

const text = z.string().max(LIMITS.maxText);
const name = z.string().max(LIMITS.maxName);
/** A method name on a host object (theme, model registry, setup session): never a prototype builtin. */
const FORBIDDEN = new Set(["constructor", "__proto__", "prototype", "__defineGetter__", "__defineSetter__", "__lookupGetter__",
  "__lookupSetter__", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable", "toLocaleString", "valueOf", "toString"]);
const memberName = name.regex(/^[A-Za-z_$][\w$]*$/).refine((m) => !FORBIDDEN.has(m), "that name is not callable");
const memberCall = z.tuple([memberName, z.array(z.unknown()).max(LIMITS.maxArgs)]);
const none = z.tuple([]);
const cancelled = z.looseObject({ cancelled: z.boolean() });

const sendOptions = z.strictObject({ triggerTurn: z.boolean().optional(), deliverAs: z.enum(["steer", "followUp"]).optional() }).optional();
const execOptions = z.strictObject({ cwd: z.string().max(LIMITS.maxText).optional(), timeout: z.number().nonnegative().optional() });
/** `pi.exec(command, args, options)`: the program name and its arguments, bounded. */
export const execArgs = z.tuple([z.string().min(1).max(4096), z.array(z.string().max(LIMITS.maxText)).max(4096), execOptions]);
const execResult = z.strictObject({ stdout: z.string(), stderr: z.string(), code: z.number(), killed: z.boolean() });

/** Longest source a hook may send for one transform, in characters (the maxMessageBytes default). */
const MAX_TRANSFORM_SOURCE = DEFAULTS.maxMessageBytes;
const path = z.string().max(4096);
/**
 * The one argument of the `transform` sync call: what jiti passes to a custom `transform`
 * (src/transform/cache.ts). Why closed: jiti spreads `babel` into Babel's config, where `plugins`,
 * `configFile` or `cwd` would make the host load code a hook named; only the source-map fields
 * jiti itself sets pass.
 */
export const transformArgsSchema = z.tuple([z.strictObject({
  source: z.string().max(MAX_TRANSFORM_SOURCE),
  filename: path,
  ts: z.boolean().optional(),
  retainLines: z.boolean().optional(),
  interopDefault: z.boolean().optional(),
  async: z.boolean().optional(),
  jsx: z.boolean().optional(),
  babel: z.strictObject({ sourceFileName: path.optional(), sourceMaps: z.literal("inline").optional() }).optional(),
})]);

// Every row's arguments pass the key gate first (src/gates/safe-keys.ts): no argument a hook sends (a
// message's details, appendEntry data, a host module's or a host method's arguments) holds a
// `__proto__`, `constructor` or `prototype` key anywhere; such a call is refused as protocol_violation.
type Extra = Partial<Omit<MethodSpec, "kind">>;
const call = (scope: Scope, args: z.ZodType<unknown[]>, result: z.ZodType, extra: Extra = {}) =>
  ({ scope, args: keySafe(args), result, ...extra, kind: "call" as const });
const prompt = (args: z.ZodType<unknown[]>, result: z.ZodType) => call("any", args, result, { prompt: true });
const post = (args: z.ZodType<unknown[]>, extra: Extra = {}) =>
  ({ scope: "any" as const, args: keySafe(args), result: z.undefined(), ...extra, kind: "post" as const });
const sync = (args: z.ZodType<unknown[]>, result: z.ZodType, extra: Extra = {}) =>
  ({ scope: "any" as const, args: keySafe(args), result, ...extra, kind: "sync" as const });

/** The answer to a sync call of a host object's method: a value now, or a promise to claim with `await` (src/bridge/deferred.ts). */
const maybeLater = z.union([z.strictObject({ v: z.unknown() }), z.strictObject({ p: z.number().int().nonnegative() })]);
const heldId = z.tuple([z.number().int().nonnegative()]);
/** The key of one `ctx.ui.custom()` call (worker/custom.mjs). */
const customKey = z.string().regex(/^custom:\d+$/).max(LIMITS.maxName);
/**
 * `ctx.ui.custom()`'s options as the agent's terminal takes them (pi-tui's `OverlayOptions`, the
 * same in oh-my-pi): closed, every size, position, offset and margin bounded. Why: the terminal
 * places an overlay at its margin without clamping it to the screen and pads the screen with empty
 * lines down to it, so a margin of 1e9 hangs the agent's UI thread and exhausts its memory.
 */
export const OVERLAY_CELLS = 10_000;
const cells = z.number().min(-OVERLAY_CELLS).max(OVERLAY_CELLS);
const sizeValue = z.union([cells, z.string().regex(/^\d{1,3}(\.\d{1,4})?%$/)]);
const edge = cells.optional();
const overlayOptions = z.strictObject({
  width: sizeValue.optional(), minWidth: edge, maxHeight: sizeValue.optional(),
  anchor: z.enum(["center", "top-left", "top-right", "bottom-left", "bottom-right", "top-center", "bottom-center", "left-center", "right-center"]).optional(),
  offsetX: edge, offsetY: edge, row: sizeValue.optional(), col: sizeValue.optional(),
  margin: z.union([cells, z.strictObject({ top: edge, right: edge, bottom: edge, left: edge })]).optional(),
  nonCapturing: z.boolean().optional(),
});
const customOptions = z.strictObject({ overlay: z.boolean().optional(), overlayOptions: overlayOptions.optional() });
/** `[scope, method, args]`: a method of this table, run on the context a command's caller built (src/bridge/command-scope.ts). */
const scopedArgs = z.tuple([z.number().int().nonnegative(), name, z.array(z.unknown()).max(LIMITS.maxArgs)]);

/**
 * pi's setters, each with its arguments (`[member, args]`), bounded: what a module controls is a
 * name, a text or a list of lines, never an object of the agent's.
 */
const level = z.enum(["off", "minimal", "low", "medium", "high", "xhigh"]);
const userContent = z.union([z.string().max(LIMITS.maxPrompt), z.array(toolContent).min(1).max(LIMITS.maxHandlers)]);
const widgetLines = z.array(z.string().max(LIMITS.renderLineChars)).max(LIMITS.renderLines);
/** A dialog's options as they cross: its timeout, and its AbortSignal as an id the worker aborts with `abortEditor`. */
const dialog = z.strictObject({ timeout: z.number().int().positive().max(2 ** 31 - 1).optional(), signal: z.number().int().nonnegative().optional() });
const compactOptions = z.strictObject({ customInstructions: text.optional() });
const placement = z.strictObject({ placement: z.enum(["aboveEditor", "belowEditor"]).optional() });
const SETTER_ARGS: Record<string, z.ZodType<unknown[]>> = {
  sendUserMessage: z.tuple([userContent, z.strictObject({ deliverAs: z.enum(["steer", "followUp"]).optional() }).optional()]),
  setSessionName: z.tuple([name]),
  setLabel: z.tuple([name, name.optional()]),
  setActiveTools: z.tuple([z.array(name).max(LIMITS.maxHandlers)]),
  setThinkingLevel: z.tuple([level]),
  compact: z.tuple([compactOptions.optional()]),
  shutdown: none,
  "ui.setWidget": z.tuple([name, widgetLines.optional(), placement.optional()]),
  "ui.setTitle": z.tuple([name]),
  "ui.setWorkingMessage": z.tuple([text.optional()]),
  "ui.setWorkingIndicator": z.tuple([z.strictObject({ frames: z.array(name).max(LIMITS.maxOptions).optional(), intervalMs: z.number().int().positive().max(60_000).optional() }).optional()]),
  "ui.setWorkingVisible": z.tuple([z.boolean()]),
  "ui.setHiddenThinkingLabel": z.tuple([name.optional()]),
  "ui.setTheme": z.tuple([name]),
} satisfies Record<(typeof AGENT_SETTERS)[number], z.ZodType<unknown[]>>;
/** `[member, args]`: the member's own arguments checked, each problem named by its place (`1.1: …` is the second argument). */
export const agentSetArgs = z.tuple([z.enum(AGENT_SETTERS as unknown as [string, ...string[]]), z.array(z.unknown()).max(LIMITS.maxArgs)])
  .superRefine(([member, args], ctx) => {
    const parsed = SETTER_ARGS[member]!.safeParse(args);
    if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: [1, ...issue.path] });
  });

/** The rows of the table, each made when first read (`BRIDGE`). */
const ROWS = {
  [METHOD.select]: () => prompt(z.tuple([text, z.array(text).max(LIMITS.maxOptions), dialog.optional()]), z.string().optional()),
  [METHOD.confirm]: () => prompt(z.tuple([text, text, dialog.optional()]), z.boolean()),
  // A placeholder or prefill left out before a dialog's options arrives as null from a JSON frame: the same as left out.
  [METHOD.input]: () => prompt(z.tuple([text, text.nullish(), dialog.optional()]), z.string().optional()),
  // The prefill is bounded by `maxMessageBytes`, as every argument is.
  [METHOD.editor]: () => prompt(z.tuple([text, z.string().nullish(), dialog.optional()]), z.string().optional()),
  [METHOD.exec]: () => call("any", execArgs, execResult, { atLoad: true }),
  [METHOD.waitForIdle]: () => call("command", none, z.undefined()),
  [METHOD.newSession]: () => call("command", z.tuple([z.strictObject({ parentSession: text.optional() }), z.boolean()]), cancelled),
  [METHOD.branch]: () => call("command", z.tuple([text]), cancelled),
  [METHOD.navigateTree]: () => call("command", z.tuple([text, z.strictObject({ summarize: z.boolean().optional() })]), cancelled),
  [METHOD.setupCall]: () => call("setup", memberCall, z.unknown()),
  [METHOD.sendMessage]: () => post(z.tuple([hookMessage, sendOptions])),
  [METHOD.appendEntry]: () => post(z.tuple([name]).rest(z.unknown())),
  [METHOD.notify]: () => post(z.tuple([text, z.enum(["info", "warning", "error"]).optional()])),
  [METHOD.setStatus]: () => post(z.tuple([name, text.optional()])),
  // undefined as pi's own extensions pass it (qna.ts clears the editor with setEditorText(undefined)).
  [METHOD.setEditorText]: () => post(z.tuple([z.string().optional()])),
  [METHOD.abortEditor]: () => post(z.tuple([z.number().int().nonnegative()])),
  [METHOD.abort]: () => post(none),
  [METHOD.log]: () => post(z.tuple([z.enum(["debug", "info", "warn", "error"]), z.string()]), { atLoad: true }),
  // A permission Node's model denied the module, and its resource (a path): reported by hookbox's code in the module's process.
  [METHOD.denied]: () => post(z.tuple([name, z.string().max(LIMITS.maxPath)]), { atLoad: true }),
  // pi.events between the modules of one isolate(): a channel name and data (within the message bounds).
  [METHOD.busEmit]: () => post(z.tuple([name]).rest(z.unknown()), { atLoad: true }),
  // What the hook wrote to process.stdout / process.stderr (worker/stdio-bound.mjs), in order with everything else it sends.
  [METHOD.output]: () => post(z.tuple([z.enum(["stdout", "stderr"]), text]), { atLoad: true }),
  [METHOD.isIdle]: () => sync(none, z.boolean()),
  [METHOD.hasQueuedMessages]: () => sync(none, z.boolean()),
  [METHOD.getEditorText]: () => sync(none, z.string()),
  [METHOD.theme]: () => sync(memberCall, z.string()),
  [METHOD.modelRegistry]: () => sync(memberCall, maybeLater),
  // Served by the sandbox itself (src/transform/cache.ts): the hook's jiti asks, the worker blocks until the host answers.
  [METHOD.transform]: () => sync(transformArgsSchema, z.strictObject({ code: z.string() }), { atLoad: true }),
  [METHOD.session]: () => sync(z.tuple([z.enum(SESSION_METHODS as unknown as [string, ...string[]]), z.array(z.unknown()).max(LIMITS.maxArgs)]), maybeLater),
  [METHOD.await]: () => call("any", heldId, z.unknown()),
  // ctx.ui.custom(): a UI wait like a prompt; its component renders through the renderer path.
  [METHOD.custom]: () => prompt(z.tuple([customKey, customOptions]), z.unknown()),
  [METHOD.customDone]: () => post(z.tuple([customKey, z.unknown()])),
  [METHOD.customTui]: () => post(z.tuple([customKey, z.literal("requestRender")])),
  [METHOD.customReady]: () => post(z.tuple([customKey, z.boolean()])),
  [METHOD.setHeader]: () => sync(z.tuple([customKey.nullable()]), z.undefined()),
  [METHOD.setFooter]: () => sync(z.tuple([customKey.nullable()]), z.undefined()),
  [METHOD.footerData]: () => sync(z.tuple([customKey, z.enum(["getGitBranch", "getExtensionStatuses", "getAvailableProviderCount"])]), z.unknown()),
  [METHOD.hostModule]: () => sync(z.tuple([name, memberName, z.array(z.unknown()).max(LIMITS.maxArgs)]), maybeLater, { atLoad: true }),
  [METHOD.hostModuleAwait]: () => call("any", heldId, z.unknown(), { atLoad: true }),
  // The inner method is checked against its own row (kind, scope, arguments, result) by the channel.
  [METHOD.scopedCall]: () => call("any", scopedArgs, z.unknown()),
  [METHOD.scopedPost]: () => post(scopedArgs),
  [METHOD.scopedSync]: () => sync(scopedArgs, z.unknown()),
  // An isolated tool's partial result, for the execution the number names (src/bridge/bridge.ts serves it).
  [METHOD.toolUpdate]: () => post(z.tuple([z.number().int().nonnegative(), toolResult])),
  // The agent's value of a flag the module registered (the adapter checks it did): pi's getFlag is synchronous.
  [METHOD.getFlag]: () => sync(z.tuple([flagName]), z.union([z.boolean(), z.string(), z.undefined()])),
  // pi's agent members (hookbox/extension, src/bridge/agent-gate.ts): getters answer data, setters as policy.agent allows.
  [METHOD.agentGet]: () => sync(z.tuple([z.enum(AGENT_GETTERS as unknown as [string, ...string[]]), none]), z.unknown()),
  // A setter answers nothing, but those the agent answers at once with an outcome (ANSWERED_SETTERS: pi's setTheme).
  [METHOD.agentSet]: () => sync(agentSetArgs, z.union([z.undefined(), z.strictObject({ success: z.boolean(), error: text.optional() })])),
  [METHOD.agentSetModel]: () => call("any", z.tuple([name, name]), z.boolean()),
  // The compaction's result (pi's CompactionResult: data) for the module's onComplete; a failure its onError gets.
  [METHOD.agentCompact]: () => call("any", z.tuple([compactOptions.optional()]), z.unknown()),
} satisfies { [M in MethodName]: () => MethodSpec & { kind: (typeof KIND)[M] } };

/**
 * The table. A method not in it does not exist; each row travels the way `KIND` (worker/wire.mjs)
 * says, checked here by tsc. Why each row is made at its first read: a host imports the table at
 * every start, on the agent's thread before any hook thread starts, and a start calls a handful of
 * its 47 methods (building every row's schemas cost 2-3 ms of that import).
 */
export const BRIDGE: { readonly [M in keyof typeof ROWS]: ReturnType<(typeof ROWS)[M]> } = madeWhenRead(ROWS);

function madeWhenRead<T extends Record<string, () => unknown>>(rows: T): { readonly [K in keyof T]: ReturnType<T[K]> } {
  const table = {} as { [K in keyof T]: ReturnType<T[K]> };
  for (const key of Object.keys(rows) as Array<keyof T & string>) {
    Object.defineProperty(table, key, {
      enumerable: true,
      configurable: true,
      get: () => {
        const value = rows[key]!() as ReturnType<T[typeof key]>;
        Object.defineProperty(table, key, { value, enumerable: true });
        return value;
      },
    });
  }
  return table;
}

/** The row of `method`, or undefined for a name that is not a bridge method. */
export function methodSpec(method: string): MethodSpec | undefined {
  return Object.hasOwn(BRIDGE, method) ? (BRIDGE as Record<string, MethodSpec>)[method] : undefined;
}

const SCOPED: ReadonlySet<string> = new Set([METHOD.scopedCall, METHOD.scopedPost, METHOD.scopedSync]);

/**
 * The method a call really runs and its arguments: itself, or for a `scoped.*` call the method it
 * carries (a scoped call cannot carry another scoped call).
 */
export function innerCall(method: string, args: unknown[]): { method: string; args: unknown[] } | undefined {
  if (!SCOPED.has(method)) return { method, args };
  const parsed = scopedArgs.safeParse(args);
  if (!parsed.success || SCOPED.has(parsed.data[1])) return undefined;
  return { method: parsed.data[1], args: parsed.data[2] };
}
