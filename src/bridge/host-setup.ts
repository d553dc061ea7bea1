/**
 * What a host needs to start, and the check of what it passed: an in-memory session manager, a
 * model registry over a fixed list of models, the `TypeError`s `new HookRunner` and `initialize`
 * throw when a value the runner needs has the wrong type, and the host's missing methods (a host
 * mistake is never reported as the hook's fault).
 */
import {
  MODEL_REGISTRY_METHODS, SESSION_MANAGER_METHODS, type Model, type ModelRegistry, type ReadonlySessionManager,
  type SessionEntry, type SessionHeader, type SessionTreeNode,
} from "../contract/types.js";

export interface SessionManagerOptions {
  /** `getCwd()`. Default: `process.cwd()`. */
  cwd?: string;
  /** `getSessionId()`. Default: a random UUID. */
  sessionId?: string;
  /** The entries, root first; each `parentId` names an earlier one. The last is the leaf. Default: none. */
  entries?: SessionEntry[];
}

/**
 * A read-only session manager over entries held in memory, for hosts and tests that have no
 * session of their own: every member of `ReadonlySessionManager` answers, nothing is written.
 */
export function createSessionManager(options: SessionManagerOptions = {}): ReadonlySessionManager {
  const cwd = options.cwd ?? process.cwd();
  const id = options.sessionId ?? crypto.randomUUID();
  const entries = [...(options.entries ?? [])];
  const byId = new Map(entries.map((e) => [e.id, e]));
  const header: SessionHeader = { type: "session", version: 3, id, timestamp: new Date(0).toISOString(), cwd };
  const leafId = entries.at(-1)?.id ?? null;
  const tree = (parentId: string | null): SessionTreeNode[] =>
    entries.filter((e) => e.parentId === parentId).map((entry) => ({ entry, children: tree(entry.id) }));
  return {
    getCwd: () => cwd,
    getSessionDir: () => cwd,
    getSessionId: () => id,
    getSessionFile: () => undefined,
    getSessionName: () => undefined,
    getArtifactsDir: () => undefined,
    allocateArtifactPath: () => undefined,
    saveArtifact: () => undefined,
    getArtifactPath: () => undefined,
    getLeafId: () => leafId,
    getLeafEntry: () => (leafId === null ? undefined : byId.get(leafId)),
    getEntry: (entryId) => byId.get(entryId),
    getLabel: () => undefined,
    getBranch: (fromId) => {
      const path: SessionEntry[] = [];
      for (let e = byId.get(fromId ?? leafId ?? ""); e; e = e.parentId === null ? undefined : byId.get(e.parentId)) path.unshift(e);
      return path;
    },
    getHeader: () => header,
    getEntries: () => [...entries],
    getTree: () => tree(null),
    getUsageStatistics: () => undefined,
    putBlob: () => undefined,
  };
}

/**
 * A model registry over `models`, with API keys from `apiKeys` (by provider). For hosts without a
 * registry of their own; every member of `ModelRegistry` answers.
 */
export function createModelRegistry(models: Model[] = [], apiKeys: Record<string, string> = {}): ModelRegistry {
  return {
    getAll: () => [...models],
    getAvailable: () => models.filter((m) => apiKeys[m.provider] !== undefined),
    find: (provider, modelId) => models.find((m) => m.provider === provider && m.id === modelId),
    getApiKey: async (model) => apiKeys[model.provider],
    getApiKeyForProvider: async (provider) => apiKeys[provider],
    isUsingOAuth: () => false,
    refresh: () => {},
    getError: () => undefined,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return (typeof value === "object" && value !== null) || typeof value === "function";
}

/** Members of `value` that are not functions, among `names` (missing ones included when `required`). */
function notFunctions(value: Record<string, unknown>, names: readonly string[], required: boolean): string[] {
  return names.filter((n) => (n in value || required) && typeof value[n] !== "function");
}

function fail(where: string, members: string[], hint: string): never {
  throw new TypeError(`${where}: ${members.map((m) => `${m}()`).join(", ")} ${members.length === 1 ? "is" : "are"} missing or not a function. ${hint}`);
}

/** The `code` of every `HookboxHostWarning` about a method the host's object lacks. */
export const HOST_LACKS_METHOD = "HOOKBOX_HOST_LACKS_METHOD";

/** Which host object a missing method belongs to, as the hook calls it. */
export type HostObject = "sessionManager" | "modelRegistry";

/**
 * A method of the contract the host's object does not have (or has as a non-function), called by a
 * hook: the host's set-up error, never the hook's fault. The hook gets this error (its message
 * names the method); the bridge reports it to the host as a `HookboxHostWarning`
 * (`src/isolation/host-calls.ts`).
 */
export class HostLacksMethod extends Error {
  readonly object: HostObject;
  readonly method: string;
  constructor(object: HostObject, method: string) {
    super(`the host's ${object} has no ${method}() method (the host's set-up, not this hook's fault)`);
    this.name = "HostLacksMethod";
    this.object = object;
    this.method = method;
  }
}

/** Emit the `HookboxHostWarning` for `detail` (its `code` is `HOST_LACKS_METHOD`). */
export function warnHostLacks(detail: string): void {
  process.emitWarning(`hookbox: ${detail}`, { type: "HookboxHostWarning", code: HOST_LACKS_METHOD });
}

/**
 * `new HookRunner(hooks, cwd, sessionManager, modelRegistry)`: a `TypeError` when a value the
 * runner itself needs has the wrong type (cwd not a string, a session manager or model registry
 * that is not an object). Methods are not required, as in the original: hosts pass their own
 * session manager (other lines of the original have no artifacts or blobs) and a registry `{}`
 * when no hook uses one. The contract's methods the objects lack are returned, for the one
 * warning at construction; a hook that calls one gets `HostLacksMethod`.
 */
export function checkRunnerArguments(cwd: unknown, sessionManager: unknown, modelRegistry: unknown): string[] {
  if (typeof cwd !== "string") throw new TypeError(`new HookRunner: cwd must be a string, got ${typeof cwd}`);
  const sm = "new HookRunner: sessionManager";
  if (!isObject(sessionManager)) throw new TypeError(`${sm} must be an object (the host's session manager), got ${sessionManager === null ? "null" : typeof sessionManager}. Pass your session manager, or createSessionManager() from "hookbox".`);
  const mr = "new HookRunner: modelRegistry";
  if (!isObject(modelRegistry)) throw new TypeError(`${mr} must be an object, got ${modelRegistry === null ? "null" : typeof modelRegistry}. Pass your model registry (or {} when no hook uses one), or createModelRegistry() from "hookbox".`);
  return [
    ...notFunctions(sessionManager, SESSION_MANAGER_METHODS, true).map((n) => `sessionManager.${n}()`),
    ...notFunctions(modelRegistry, MODEL_REGISTRY_METHODS, true).map((n) => `modelRegistry.${n}()`),
  ];
}

/** The one warning at construction, naming what the host's objects lack (none: no warning). */
export function warnLackingAtConstruction(lacking: string[]): void {
  if (lacking.length === 0) return;
  warnHostLacks(`new HookRunner: the host's objects lack ${lacking.join(", ")}. A hook that calls one gets an error naming it; `
    + `spread createSessionManager() / createModelRegistry() from "hookbox" under yours to answer them.`);
}

const REQUIRED_HANDLERS = ["getModel", "sendMessageHandler", "appendEntryHandler"] as const;
const OPTIONAL_HANDLERS = ["newSessionHandler", "branchHandler", "navigateTreeHandler", "isIdle", "waitForIdle", "abort", "hasQueuedMessages"] as const;
const AGENT_METHODS = ["get", "set", "setModel"] as const;
const UI_METHODS = ["select", "confirm", "input", "notify", "setStatus", "custom", "setEditorText", "getEditorText", "editor"] as const;

/** `runner.initialize(options)`: throws a `TypeError` naming what is missing or of the wrong kind. */
export function checkInitOptions(options: unknown): void {
  if (!isObject(options)) throw new TypeError(`HookRunner.initialize: options must be an object with ${REQUIRED_HANDLERS.join(", ")}`);
  const missing = [...notFunctions(options, REQUIRED_HANDLERS, true), ...notFunctions(options, OPTIONAL_HANDLERS, false).filter((n) => options[n] !== undefined)];
  if (missing.length) fail("HookRunner.initialize", missing, `getModel, sendMessageHandler and appendEntryHandler are required; the others may be left out.`);
  if (options.hasUI !== undefined && typeof options.hasUI !== "boolean") throw new TypeError(`HookRunner.initialize: hasUI must be a boolean, got ${typeof options.hasUI}`);
  const agent = options.agent;
  if (agent !== undefined) {
    const agentMissing = isObject(agent) ? notFunctions(agent, AGENT_METHODS, true) : [...AGENT_METHODS];
    if (agentMissing.length) fail("HookRunner.initialize: agent", agentMissing, "hookbox/extension passes the agent's members here; other hosts leave it out.");
  }
  const ui = options.uiContext;
  if (ui === undefined) return;
  if (!isObject(ui)) throw new TypeError(`HookRunner.initialize: uiContext must be an object, got ${ui === null ? "null" : typeof ui}`);
  const uiMissing = notFunctions(ui, UI_METHODS, true);
  if (uiMissing.length) fail("HookRunner.initialize: uiContext", uiMissing, `Spread createNoOpUIContext() from "hookbox" under your UI to fill in the rest.`);
}
