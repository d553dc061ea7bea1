// The worker-side HookAPI: what a hook factory receives as `pi`. Registrations stay here (the
// handlers are functions and never cross); the host gets a manifest of them.
/** @import { Manifest } from "../src/protocol.js" */
import { call, post, send } from "./channel.mjs";
import { plain } from "./edits.mjs";
import { agentPackage, typeboxModule } from "./extras.mjs";
import { REFUSED_MEMBERS, refusedMemberMessage } from "./extension-members.mjs";
import { agentApi } from "./agent-members.mjs";
import { direct } from "./context.mjs";
import { METHOD } from "./wire.mjs";

export class Registrations {
  /** @type {Map<string, Function[]>} */
  handlers = new Map();
  /** @type {Map<string, { name: string; description?: string; handler: Function }>} */
  commands = new Map();
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
    return {
      events,
      commands: [...this.commands.values()].map(({ name, description }) =>
        description === undefined ? { name } : { name, description }),
      renderers: [...this.renderers.keys()],
    };
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
 */
export function createHookAPI(registry, cwd) {
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
    /** @param {string} name @param {{ description?: string; handler: Function }} options */
    registerCommand(name, options) {
      requireFunction(options?.handler, "pi.registerCommand handler");
      const command = { name: String(name), handler: options.handler };
      if (typeof options.description === "string") Object.assign(command, { description: options.description });
      registry.commands.set(command.name, command);
      registry.changed();
    },
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
  };
}

// pi's ExtensionAPI members that cannot cross (worker/extension-members.mjs): calling one throws,
// naming the member and why, so a module that needs it fails its load instead of losing it silently.
const OWN = new Set(["on", "sendMessage", "appendEntry", "registerMessageRenderer", "registerCommand", "exec"]);
function refusedMembers() {
  /** @type {Record<string, unknown>} */
  const members = {};
  for (const member of Object.keys(REFUSED_MEMBERS)) {
    if (OWN.has(member)) continue;
    const refuse = () => { throw new Error(refusedMemberMessage(member)); };
    members[member] = member === "events"
      ? new Proxy(Object.freeze({}), { get: (_t, prop) => (prop === "then" || typeof prop === "symbol" ? undefined : refuse()) })
      : refuse;
  }
  return members;
}
