/**
 * What a worker may ask of the host: a closed table of named methods, each with its arguments
 * validated by zod. Nothing else is reachable; no host object is ever exposed to a worker.
 */
import { z } from "zod";
import { Errors } from "../errors.js";
import { Deferred } from "./deferred.js";
import { renderTheme } from "../render-theme.js";
import { execCommand } from "../exec.js";
import { execRefusal, presets, type Policy } from "../policy.js";
import { describeIssues } from "../schemas.js";
import type { BridgeHost } from "../sandbox/channel.js";
import { SESSION_MANAGER_METHODS } from "../types.js";
import type {
  HookMessage, HookUIContext, ModelRegistry, NewSessionOptions, ReadonlySessionManager, SendMessageOptions, SessionManager,
} from "../types.js";

/** The runner's side of the bridge: the handlers `initialize` wired in, read at call time. */
export interface BridgeSurface {
  sendMessage(message: HookMessage, options?: SendMessageOptions): void;
  appendEntry(customType: string, data?: unknown): void;
  ui(): HookUIContext;
  sessionManager: ReadonlySessionManager;
  modelRegistry: ModelRegistry;
  isIdle(): boolean;
  hasQueuedMessages(): boolean;
  abort(): void;
  waitForIdle(): Promise<void>;
  newSession(options: NewSessionOptions): Promise<{ cancelled: boolean }>;
  branch(entryId: string): Promise<{ cancelled: boolean }>;
  navigateTree(targetId: string, options: { summarize?: boolean }): Promise<{ cancelled: boolean }>;
  log(level: string, line: string): void;
  cwd: string;
}

/** Runs the `setup` callback of `ctx.newSession` in the worker. */
export type RunSetup = () => Promise<void>;

const str = z.string();
const optStr = z.string().optional();
const message = z.strictObject({
  customType: z.string(),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]),
  display: z.boolean(),
  details: z.unknown().optional(),
  attribution: z.enum(["user", "agent"]).optional(),
});
const sendOptions = z.strictObject({ triggerTurn: z.boolean().optional(), deliverAs: z.enum(["steer", "followUp"]).optional() }).optional();
const execOptions = z.strictObject({ cwd: z.string().optional(), timeout: z.number().nonnegative().optional() });
const methodName = z.string().regex(/^[A-Za-z_$][\w$]*$/).refine((m) => !FORBIDDEN.has(m), "that name is not callable");
const FORBIDDEN = new Set(["constructor", "__proto__", "prototype", "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable", "toLocaleString", "valueOf", "toString"]);

/**
 * `pi.exec` through the host: checked against the hook's policy, recorded, bounded in time and
 * output. Works from the factory on (before a runner exists) as in the original.
 */
export async function mediatedExec(hookPath: string, gate: ExecGate, cwd: string, a: unknown[]): Promise<unknown> {
  const [command, args, options] = parse(hookPath, "exec", z.tuple([str, z.array(str), execOptions]), a);
  const refused = execRefusal(gate.policy, command);
  gate.record(hookPath, refused ? { command, args, refused } : { command, args });
  if (refused) throw new Error(refused);
  const { timeoutMs = 30_000, maxOutputBytes = 1024 * 1024 } = gate.policy.exec;
  const timeout = Math.min(options.timeout && options.timeout > 0 ? options.timeout : Infinity, timeoutMs);
  const result = await execCommand(command, args, options.cwd ?? cwd, { timeout });
  gate.record(hookPath, { command, args, code: result.code, killed: result.killed });
  return { ...result, stdout: cut(result.stdout, maxOutputBytes), stderr: cut(result.stderr, maxOutputBytes) };
}

function cut(text: string, maxBytes: number): string {
  return Buffer.byteLength(text) <= maxBytes ? text : `${Buffer.from(text).subarray(0, maxBytes).toString()}\n[output cut at ${maxBytes} bytes]`;
}

function parse<T extends z.ZodType>(hookPath: string, method: string, schema: T, args: unknown[]): z.infer<T> {
  const r = schema.safeParse(args);
  if (!r.success) throw Errors.protocolViolation(hookPath, `bad arguments to ${method}: ${describeIssues(r.error)}`);
  return r.data;
}

/** Call `target[name](...args)` only if `name` is a method the object really has, not a prototype builtin. */
function callMethod(hookPath: string, what: string, target: unknown, name: string, args: unknown[]): unknown {
  const fn = target == null ? undefined : (target as Record<string, unknown>)[name];
  if (typeof fn !== "function" || fn === (Object.prototype as Record<string, unknown>)[name]) {
    throw Errors.protocolViolation(hookPath, `${what}.${name} is not a method the host offers`);
  }
  return fn.apply(target, args);
}

/** What the bridge enforces for `pi.exec`, from the hook's policy. */
export interface ExecGate {
  policy: Policy;
  record: (hookPath: string, record: { command: string; args: string[]; refused?: string; code?: number; killed?: boolean }) => void;
}

export function createHostBridge(surface: BridgeSurface, hookPath: string, runSetup: RunSetup, gate: ExecGate = { policy: presets.trusted, record: () => {} }): BridgeHost {
  const editorSignals = new Map<number, AbortController>();
  const later = new Deferred();
  let setupSession: SessionManager | undefined;

  const calls: Record<string, (args: unknown[]) => Promise<unknown>> = {
    "ui.select": async (a) => surface.ui().select(...parse(hookPath, "ui.select", z.tuple([str, z.array(str)]), a)),
    "ui.confirm": async (a) => surface.ui().confirm(...parse(hookPath, "ui.confirm", z.tuple([str, str]), a)),
    "ui.input": async (a) => surface.ui().input(...parse(hookPath, "ui.input", z.tuple([str, optStr]), a)),
    "ui.editor": async (a) => {
      const [title, prefill, signalId] = parse(hookPath, "ui.editor", z.tuple([str, optStr, z.number().int().optional()]), a);
      if (signalId === undefined) return surface.ui().editor(title, prefill);
      const controller = new AbortController();
      editorSignals.set(signalId, controller);
      try {
        return await surface.ui().editor(title, prefill, { signal: controller.signal });
      } finally {
        editorSignals.delete(signalId);
      }
    },
    exec: (a) => mediatedExec(hookPath, gate, surface.cwd, a),
    waitForIdle: async () => surface.waitForIdle(),
    newSession: async (a) => {
      const [options, hasSetup] = parse(hookPath, "newSession", z.tuple([z.strictObject({ parentSession: optStr }), z.boolean()]), a);
      if (!hasSetup) return surface.newSession(options);
      return surface.newSession({
        ...options,
        setup: async (sm) => {
          setupSession = sm;
          try { await runSetup(); } finally { setupSession = undefined; }
        },
      });
    },
    "setup.call": async (a) => {
      const [name, args] = parse(hookPath, "setup.call", z.tuple([methodName, z.array(z.unknown())]), a);
      if (!setupSession) throw new Error(`the session manager given to setup is no longer open (${name} was called after setup returned)`);
      return callMethod(hookPath, "sessionManager", setupSession, name, args);
    },
    await: async (a) => later.take(parse(hookPath, "await", z.tuple([z.number().int()]), a)[0]),
    branch: async (a) => surface.branch(...parse(hookPath, "branch", z.tuple([str]), a)),
    navigateTree: async (a) => surface.navigateTree(...parse(hookPath, "navigateTree", z.tuple([str, z.strictObject({ summarize: z.boolean().optional() })]), a)),
  };

  const posts: Record<string, (args: unknown[]) => void> = {
    sendMessage: (a) => surface.sendMessage(...(parse(hookPath, "sendMessage", z.tuple([message, sendOptions]), a) as [HookMessage, SendMessageOptions?])),
    appendEntry: (a) => {
      const [customType, data] = parse(hookPath, "appendEntry", z.tuple([str]).rest(z.unknown()), a);
      surface.appendEntry(customType, data);
    },
    "ui.notify": (a) => surface.ui().notify(...parse(hookPath, "ui.notify", z.tuple([str, z.enum(["info", "warning", "error"]).optional()]), a)),
    "ui.setStatus": (a) => surface.ui().setStatus(...parse(hookPath, "ui.setStatus", z.tuple([str, optStr]), a)),
    "ui.setEditorText": (a) => surface.ui().setEditorText(...parse(hookPath, "ui.setEditorText", z.tuple([str]), a)),
    "ui.abortEditor": (a) => editorSignals.get(parse(hookPath, "ui.abortEditor", z.tuple([z.number().int()]), a)[0])?.abort(),
    abort: () => surface.abort(),
    log: (a) => surface.log(...parse(hookPath, "log", z.tuple([z.enum(["debug", "info", "warn", "error"]), str]), a)),
  };

  const sessionMethods = new Set<string>(SESSION_MANAGER_METHODS);
  const syncs: Record<string, (args: unknown[]) => unknown> = {
    isIdle: () => surface.isIdle(),
    hasQueuedMessages: () => surface.hasQueuedMessages(),
    "ui.getEditorText": () => surface.ui().getEditorText(),
    theme: (a) => {
      const [name, args] = parse(hookPath, "theme", z.tuple([methodName, z.array(z.unknown())]), a);
      return callMethod(hookPath, "theme", renderTheme() ?? surface.ui().theme, name, args);
    },
    modelRegistry: (a) => {
      const [name, args] = parse(hookPath, "modelRegistry", z.tuple([methodName, z.array(z.unknown())]), a);
      return later.wrap(`modelRegistry.${name}`, callMethod(hookPath, "modelRegistry", surface.modelRegistry, name, args));
    },
  };

  return {
    call(method, args) {
      const fn = Object.hasOwn(calls, method) ? calls[method] : undefined;
      if (!fn) return Promise.reject(Errors.protocolViolation(hookPath, `unknown host call ${JSON.stringify(method)}`));
      return fn(args);
    },
    post(method, args) {
      const fn = Object.hasOwn(posts, method) ? posts[method] : undefined;
      if (!fn) throw Errors.protocolViolation(hookPath, `unknown host call ${JSON.stringify(method)}`);
      fn(args);
    },
    sync(method, args) {
      if (method.startsWith("session.")) {
        const name = method.slice("session.".length);
        if (!sessionMethods.has(name)) throw Errors.protocolViolation(hookPath, `unknown session method ${JSON.stringify(name)}`);
        return later.wrap(`sessionManager.${name}`, callMethod(hookPath, "sessionManager", surface.sessionManager, name, args));
      }
      const fn = Object.hasOwn(syncs, method) ? syncs[method] : undefined;
      if (!fn) throw Errors.protocolViolation(hookPath, `unknown host call ${JSON.stringify(method)}`);
      return fn(args);
    },
  };
}
