// The worker-side HookAPI: what a hook factory receives as `pi`. Registrations stay here (the
// handlers are functions and never cross); the host gets a manifest of them.
/** @import { Manifest } from "../src/contract/protocol.js" */
import { call, callSync, post, send } from "./channel.mjs";
import { plain } from "./edits.mjs";
import { agentPackage, typeboxModule } from "./extras.mjs";
import { REFUSED_AT_LOAD, TOOL_MEMBERS, refusedMemberMessage, refusedToolMemberMessage } from "./extension-members.mjs";
import { agentApi, installAgentTheme } from "./agent-members.mjs";
import { events } from "./bus.mjs";
import { useAgentArity } from "./custom.mjs";
import { direct, runnerTheme } from "./context.mjs";
import { LIMITS, METHOD, NAME_PATTERNS } from "./wire.mjs";

export class Registrations {
  /** @type {Map<string, Function[]>} */
  handlers = new Map();
  /** @type {Map<string, { name: string; description?: string; handler: Function; getArgumentCompletions?: Function }>} */
  commands = new Map();
  /** pi extensions' tools, flags and shortcuts: what crosses is data, the functions stay here. @type {Map<string, { spec: Record<string, unknown>; execute: Function; renderCall?: Function; renderResult?: Function; prepareArguments?: Function }>} */
  tools = new Map();
  /** @type {Map<string, { name: string; type: "boolean" | "string"; description?: string; default?: boolean | string }>} */
  flags = new Map();
  /** @type {Map<string, { key: string; description?: string; handler: Function }>} */
  shortcuts = new Map();
  /** @type {Map<string, Function>} */
  renderers = new Map();
  /** True once the host runner called `initialize`; `sendMessage` / `appendEntry` throw before. */
  initialized = false;
  /** After load, registrations are reported to the host as they happen. */
  loaded = false;

  /** @returns {Manifest} */
  manifest() {
    /** @type {Record<string, number>} */
    const events = {};
    for (const [event, list] of this.handlers) events[event] = list.length;
    /** @type {Manifest} */
    const manifest = {
      events,
      commands: [...this.commands.values()].map(({ name, description, getArgumentCompletions }) => ({
        name, ...(description === undefined ? {} : { description }), ...(getArgumentCompletions ? { completions: /** @type {const} */ (true) } : {}),
      })),
      renderers: [...this.renderers.keys()],
    };
    // Only when there are some: a hook's manifest stays as it was.
    if (this.tools.size > 0) manifest.tools = /** @type {any} */ ([...this.tools.values()].map((t) => t.spec));
    if (this.flags.size > 0) manifest.flags = [...this.flags.values()];
    if (this.shortcuts.size > 0) manifest.shortcuts = [...this.shortcuts.values()].map(({ key, description }) => (description === undefined ? { key } : { key, description }));
    return manifest;
  }

  changed() {
    if (this.loaded) send({ t: "manifest", manifest: this.manifest() });
  }
}

/** @param {unknown} value @param {string} what */
function requireFunction(value, what) {
  if (typeof value !== "function") throw new TypeError(`${what} must be a function`);
}

/** @param {unknown[]} args */
function logLine(args) {
  return args.map((a) => (typeof a === "string" ? a : safeJson(a))).join(" ");
}
/** @param {unknown} value */
function safeJson(value) {
  if (value instanceof Error) return value.stack ?? value.message;
  try { return JSON.stringify(value) ?? String(value); } catch { return String(value); }
}

/**
 * @param {Registrations} registry
 * @param {string} cwd
 * @param {boolean} [agent] the module is an agent's extension (hookbox/extension): pi's agent-only registrations work
 */
export function createHookAPI(registry, cwd, agent = false) {
  if (agent) { installAgentTheme(runnerTheme); useAgentArity(); }
  const logger = Object.freeze({
    debug: (/** @type {unknown[]} */ ...args) => post(METHOD.log, ["debug", logLine(args)]),
    info: (/** @type {unknown[]} */ ...args) => post(METHOD.log, ["info", logLine(args)]),
    warn: (/** @type {unknown[]} */ ...args) => post(METHOD.log, ["warn", logLine(args)]),
    error: (/** @type {unknown[]} */ ...args) => post(METHOD.log, ["error", logLine(args)]),
  });
  return {
    /** @param {string} event @param {Function} handler */
    on(event, handler) {
      requireFunction(handler, "pi.on handler");
      const key = String(event);
      let list = registry.handlers.get(key);
      if (!list) registry.handlers.set(key, (list = []));
      list.push(handler);
      registry.changed();
    },
    /** @param {unknown} message @param {unknown} [options] */
    sendMessage(message, options) {
      if (!registry.initialized) throw new Error("sendMessage handler not initialized");
      post(METHOD.sendMessage, plain(options === undefined ? [message] : [message, options]));
    },
    /** @param {string} customType @param {unknown} [data] */
    appendEntry(customType, data) {
      if (!registry.initialized) throw new Error("appendEntry handler not initialized");
      post(METHOD.appendEntry, plain(data === undefined ? [customType] : [customType, data]));
    },
    /** @param {string} customType @param {Function} renderer */
    registerMessageRenderer(customType, renderer) {
      requireFunction(renderer, "pi.registerMessageRenderer renderer");
      registry.renderers.set(String(customType), renderer);
      registry.changed();
    },
    /** @param {string} name @param {{ description?: string; handler: Function; getArgumentCompletions?: Function }} options */
    registerCommand(name, options) {
      requireFunction(options?.handler, "pi.registerCommand handler");
      const command = { name: String(name), handler: options.handler };
      if (typeof options.description === "string") Object.assign(command, { description: options.description });
      if (options.getArgumentCompletions !== undefined) {
        requireFunction(options.getArgumentCompletions, "pi.registerCommand getArgumentCompletions");
        Object.assign(command, { getArgumentCompletions: options.getArgumentCompletions });
      }
      registry.commands.set(command.name, command);
      registry.changed();
    },
    ...(agent ? agentRegistrations(registry) : hostOnly()),
    /** @param {string} command @param {string[]} args @param {{ timeout?: number; cwd?: string; signal?: AbortSignal }} [options] */
    exec(command, args, options = {}) {
      // The host runs the program (mediated exec); an AbortSignal cannot cross, so it is relayed.
      const { signal, ...rest } = options;
      if (signal?.aborted) return Promise.resolve({ stdout: "", stderr: "", code: 0, killed: true });
      return call(METHOD.exec, plain([String(command), Array.isArray(args) ? args.map(String) : [], { cwd, ...rest }]));
    },
    logger,
    get typebox() { return typeboxModule(); },
    pi: agentPackage,
    ...agentApi(direct, () => registry.initialized),
    ...refusedMembers(),
    // pi.events: shared by the modules of one isolate() (worker/bus.mjs); outside an agent, refused by name.
    events: agent ? events : refusedObject(() => { throw new Error(`pi.events is a member of the agent's extension API: hookbox runs it only inside an agent, through hookbox/extension's isolate()`); }),
  };
}

/**
 * pi's registrations that only an agent serves (tools, flags, shortcuts): what crosses is data, the
 * functions stay here (src/extension/registrations.ts mirrors them on the agent's pi).
 * @param {Registrations} registry
 */
function agentRegistrations(registry) {
  return {
    /** pi's `registerTool`: the definition crosses as data (src/extension/registrations.ts), `execute` runs here. @param {Record<string, any>} tool */
    registerTool(tool) {
      const spec = toolSpec(tool);
      const { execute, renderCall, renderResult, prepareArguments } = tool;
      registry.tools.set(/** @type {string} */ (spec.name), { spec, execute, renderCall, renderResult, prepareArguments });
      registry.changed();
    },
    /** @param {string} name @param {{ description?: string; type: "boolean" | "string"; default?: boolean | string }} options */
    registerFlag(name, options) {
      const flag = { name: String(name), type: options?.type };
      if (!NAME_PATTERNS.flag.test(flag.name)) throw new TypeError(`pi.registerFlag: the flag name ${JSON.stringify(flag.name).slice(0, 80)} is not 1 to 64 letters, digits, _ or -`);
      if (flag.type !== "boolean" && flag.type !== "string") throw new TypeError(`pi.registerFlag("${flag.name}"): type must be "boolean" or "string"`);
      if (typeof options.description === "string") Object.assign(flag, { description: options.description });
      if (options.default !== undefined) {
        if (typeof options.default !== flag.type) throw new TypeError(`pi.registerFlag("${flag.name}"): the default must be a ${flag.type}`);
        Object.assign(flag, { default: options.default });
      }
      registry.flags.set(flag.name, flag);
      registry.changed();
    },
    /** The agent's value (a synchronous host call), or the default before the agent set its flags. @param {string} name */
    getFlag(name) {
      const flag = registry.flags.get(String(name));
      if (!flag) return undefined;
      if (!registry.initialized) return flag.default;
      return callSync(METHOD.getFlag, [flag.name]);
    },
    /** @param {string} key @param {{ description?: string; handler: Function }} options */
    registerShortcut(key, options) {
      requireFunction(options?.handler, "pi.registerShortcut handler");
      const shortcut = { key: String(key), handler: options.handler };
      if (!NAME_PATTERNS.key.test(shortcut.key)) throw new TypeError(`pi.registerShortcut: the key ${JSON.stringify(shortcut.key).slice(0, 80)} is not printable ASCII without spaces (like ctrl+shift+u)`);
      if (typeof options.description === "string") Object.assign(shortcut, { description: options.description });
      registry.shortcuts.set(shortcut.key, shortcut);
      registry.changed();
    },
  };
}

/** Outside an agent (a plain HookRunner) the agent-only registrations throw at the call, naming the member. */
function hostOnly() {
  /** @type {Record<string, () => never>} */
  const members = {};
  for (const member of AGENT_REGISTRATIONS) {
    members[member] = () => { throw new Error(`pi.${member} is a member of the agent's extension API: hookbox runs it only inside an agent, through hookbox/extension's isolate(); this host's HookRunner has no tools, flags or shortcuts`); };
  }
  return members;
}

/** The members `agentRegistrations` serves. */
const AGENT_REGISTRATIONS = Object.freeze(["registerTool", "registerFlag", "getFlag", "registerShortcut"]);

/**
 * A tool definition as data: its name (checked here so the module fails its load naming it; the
 * host checks again), texts, and its parameter schema as plain JSON. Members that are functions
 * the agent would call in its own process are refused (worker/extension-members.mjs).
 * @param {Record<string, any>} tool @returns {Record<string, unknown>}
 */
function toolSpec(tool) {
  if (typeof tool !== "object" || tool === null) throw new TypeError("pi.registerTool: the tool must be an object");
  const name = tool.name;
  if (typeof name !== "string" || !NAME_PATTERNS.tool.test(name)) {
    throw new TypeError(`pi.registerTool: the tool name ${JSON.stringify(String(name)).slice(0, 80)} is not 1 to 64 letters, digits, _ or -`);
  }
  requireFunction(tool.execute, `pi.registerTool("${name}") execute`);
  for (const member of Object.keys(TOOL_MEMBERS.refused)) if (tool[member] !== undefined) throw new Error(refusedToolMemberMessage(member));
  // Called synchronously by the agent: they run here through the render path (worker isolation; the adapter refuses them in the others).
  /** @type {Record<string, unknown>} */
  const functions = {};
  for (const member of TOOL_MEMBERS.synchronous) {
    if (tool[member] === undefined) continue;
    requireFunction(tool[member], `pi.registerTool("${name}") ${member}`);
    functions[member] = true;
  }
  if (tool.renderShell !== undefined && tool.renderShell !== "default" && tool.renderShell !== "self") throw new TypeError(`pi.registerTool("${name}") renderShell must be "default" or "self"`);
  /** @type {Record<string, unknown>} */
  const spec = { name, label: String(tool.label ?? name), description: String(tool.description ?? ""), parameters: jsonData(tool.parameters ?? { type: "object", properties: {} }, `pi.registerTool("${name}") parameters`) };
  if (typeof spec.parameters !== "object" || spec.parameters === null || Array.isArray(spec.parameters)) throw new TypeError(`pi.registerTool("${name}") parameters must be a JSON schema object`);
  Object.assign(spec, functions);
  if (tool.renderShell !== undefined) spec.renderShell = tool.renderShell;
  if (tool.promptSnippet !== undefined) spec.promptSnippet = String(tool.promptSnippet);
  if (tool.promptGuidelines !== undefined) spec.promptGuidelines = Array.isArray(tool.promptGuidelines) ? tool.promptGuidelines.map(String) : [String(tool.promptGuidelines)];
  if (tool.executionMode !== undefined) {
    if (tool.executionMode !== "sequential" && tool.executionMode !== "parallel") throw new TypeError(`pi.registerTool("${name}") executionMode must be "sequential" or "parallel"`);
    spec.executionMode = tool.executionMode;
  }
  // The wire's bounds (src/contract/protocol.ts toolSpecSchema), said here by name rather than failing the manifest.
  const texts = [spec.label, spec.description, spec.promptSnippet, ...(/** @type {string[]} */ (spec.promptGuidelines ?? []))];
  if (texts.some((t) => typeof t === "string" && t.length > LIMITS.maxText)) throw new TypeError(`pi.registerTool("${name}"): a label, description, snippet or guideline over ${LIMITS.maxText} characters`);
  if (/** @type {string[]} */ (spec.promptGuidelines ?? []).length > LIMITS.maxOptions) throw new TypeError(`pi.registerTool("${name}"): more than ${LIMITS.maxOptions} prompt guidelines`);
  if (JSON.stringify(spec.parameters).length > LIMITS.maxText) throw new TypeError(`pi.registerTool("${name}") parameters: a schema over ${LIMITS.maxText} characters as JSON`);
  return spec;
}

/**
 * `value` as plain JSON data (a TypeBox schema's symbol keys dropped); a function, symbol or
 * BigInt anywhere in it is refused, naming where (JSON would drop it silently).
 * @param {unknown} value @param {string} what
 */
function jsonData(value, what) {
  /** @param {unknown} v @param {string} at @param {number} depth */
  const check = (v, at, depth) => {
    if (depth > 64) throw new TypeError(`${what} is nested deeper than 64 levels`);
    if (typeof v === "function" || typeof v === "symbol" || typeof v === "bigint") throw new TypeError(`${what}${at} is a ${typeof v}: a schema must be plain data`);
    if (typeof v === "object" && v !== null) for (const key of Object.keys(v)) check(/** @type {any} */ (v)[key], `${at}.${key}`, depth + 1);
  };
  check(value, "", 0);
  return JSON.parse(JSON.stringify(value));
}

// pi's and oh-my-pi's ExtensionAPI members that cannot cross (worker/extension-members.mjs): using
// one throws, naming the member and why, so a module that needs it fails its load instead of losing
// it silently. `pi` is served by worker/extras.mjs (its own message, the same why).
const OWN = new Set(["on", "sendMessage", "appendEntry", "registerMessageRenderer", "registerCommand", "exec", "pi"]);
/** Members that are objects (a bus, a library), not functions: any property access or call throws. */
const OBJECTS = new Set(["arktype", "zod"]);
function refusedMembers() {
  /** @type {Record<string, unknown>} */
  const members = {};
  for (const [member, use] of Object.entries(REFUSED_AT_LOAD)) {
    if (use !== "any" || OWN.has(member)) continue;
    const refuse = () => { throw new Error(refusedMemberMessage(member)); };
    members[member] = OBJECTS.has(member) ? refusedObject(refuse) : refuse;
  }
  return members;
}

/** A member that is an object: any property access or call throws with `refuse`. @param {() => never} refuse */
function refusedObject(refuse) {
  return new Proxy(Object.freeze(function refused() {}), { get: (_t, prop) => (prop === "then" || typeof prop === "symbol" ? undefined : refuse()), apply: refuse, construct: refuse });
}
