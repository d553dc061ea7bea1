// Message renderers run here, called synchronously by the host: the host blocks (a bounded
// Atomics.wait) until this worker posts the answer on the render port. While a renderer runs,
// synchronous calls back into the host (the theme) go through the render port too, because the
// host is waiting there and not reading parentPort.
/** @import { RenderRequest, RenderReply } from "../src/contract/protocol.js" */
import { setSyncRoute, toWireError } from "./channel.mjs";
import { plain } from "./edits.mjs";
import { LIMITS, renderLineChars } from "./wire.mjs";

/** Why a tool renderer's `context.invalidate()` throws: the agent's redraw of the tool's row is not carried. */
export const INVALIDATE = "a tool renderer's context.invalidate() is refused by hookbox/extension: not carried yet (the agent redraws the tool's row when its call or result changes)";

/** Thrown for an id this worker does not hold; answered as `released`, never as the hook's failure. */
const RELEASED = Symbol("released");

/** Components of `ctx.ui.custom()` calls in progress, by key; the host creates its stand-in from one. @type {Map<string, any>} */
export const customComponents = new Map();
/**
 * Factories of `ctx.ui.custom()` calls whose component is not made yet, by key: the `make` operation
 * runs one when the host's UI calls the stand-in factory (in pi's RPC mode it never does), and it
 * answers true (its component kept in `customComponents`), "pending" (the factory returned a
 * promise) or "failed" (it threw: the module's call rejects with its throw).
 * @type {Map<string, () => true | "pending" | "failed">}
 */
export const customFactories = new Map();
/** The branch-change listeners of each footer the module set (pi's `footerData.onBranchChange`), by key: the `branch` operation runs them. @type {Map<string, Set<() => void>>} */
export const footerListeners = new Map();

/**
 * @param {import("node:worker_threads").MessagePort} port
 * @param {SharedArrayBuffer} buffer
 * @param {Map<string, Function>} renderers
 * @param {() => unknown} theme
 * @param {Map<string, { renderCall?: Function; renderResult?: Function; prepareArguments?: Function }>} tools pi tools' renderers and prepareArguments
 */
export function serveRenders(port, buffer, renderers, theme, tools) {
  const state = new Int32Array(buffer);
  /** @type {Map<number, any>} */
  const components = new Map();
  /** Each tool call's renderer state (pi's `context.state`, shared by its call and result renders), the oldest dropped past the bound. @type {Map<string, object>} */
  const toolStates = new Map();
  /** @param {RenderReply} reply */
  const answer = (reply) => {
    port.postMessage(reply);
    Atomics.store(state, 0, 1);
    Atomics.notify(state, 0);
  };
  port.on("message", (/** @type {RenderRequest} */ req) => {
    // Fire and forget: the host does not wait for a release.
    if (req.op === "release") { components.delete(req.cid); return; }
    setSyncRoute((message) => {
      port.postMessage(message);
      Atomics.store(state, 0, 2);
      Atomics.notify(state, 0);
    });
    try {
      answer({ kind: "reply", id: req.id, ok: true, v: run(req) });
    } catch (err) {
      if (err === RELEASED) answer({ kind: "reply", id: req.id, ok: false, released: true });
      else answer({ kind: "reply", id: req.id, ok: false, e: toWireError(err) });
    } finally {
      setSyncRoute(undefined);
    }
  });

  /** @param {RenderRequest} req */
  function run(req) {
    switch (req.op) {
      case "create": {
        const renderer = renderers.get(req.customType);
        const custom = renderer ? undefined : customComponents.get(req.customType);
        if (!renderer && !custom) throw new Error(`no renderer for ${req.customType}`);
        const component = renderer ? renderer(req.message, req.options, theme()) : custom;
        if (component === undefined || component === null) return null;
        if (typeof component.render !== "function") throw new TypeError("a renderer must return a component with render(width) or undefined");
        return hold(req.cid, component);
      }
      case "tool": {
        const tool = tools.get(req.name);
        const render = req.slot === "call" ? tool?.renderCall : tool?.renderResult;
        if (typeof render !== "function") throw new Error(`tool ${req.name} has no ${req.slot === "call" ? "renderCall" : "renderResult"}`);
        const context = {
          ...req.context,
          lastComponent: req.last === undefined ? undefined : components.get(req.last),
          state: toolState(String(req.context.toolCallId)),
          invalidate: () => { throw new Error(INVALIDATE); },
        };
        const component = req.slot === "call" ? render(req.value, theme(), context) : render(req.value, req.options, theme(), context);
        if (component === undefined || component === null) return null;
        if (typeof component.render !== "function") throw new TypeError("a tool renderer must return a component with render(width)");
        return hold(req.cid, component);
      }
      case "make": {
        if (customComponents.has(req.key)) return true;
        const make = customFactories.get(req.key);
        if (!make) throw new Error(`no custom() call ${req.key}`);
        return make();
      }
      case "branch": {
        for (const listener of [...(footerListeners.get(req.key) ?? [])]) listener();
        return null;
      }
      case "prepare": {
        const prepare = tools.get(req.name)?.prepareArguments;
        if (typeof prepare !== "function") throw new Error(`tool ${req.name} has no prepareArguments`);
        return plain(prepare(req.args));
      }
      case "render": {
        const lines = component(req.cid).render(req.width);
        if (!Array.isArray(lines) || !lines.every((l) => typeof l === "string")) throw new TypeError("render(width) must return an array of strings");
        // Why one over: the host cuts and reports (LIMITS.renderLines); it needs to see the excess, not copy it all.
        const kept = lines.length > LIMITS.renderLines + 1 ? lines.slice(0, LIMITS.renderLines + 1) : lines;
        const max = renderLineChars(req.width);
        return kept.map((l) => (l.length > max + 1 ? l.slice(0, max + 1) : l));
      }
      case "input": component(req.cid).handleInput?.(req.data); return null;
      case "invalidate": component(req.cid).invalidate?.(); return null;
      default: throw new Error("unknown render operation");
    }
  }

  /**
   * The host names the component (its ids never repeat, across restarts too) and keeps the count
   * within the bound; this only guards the worker against a host that does not.
   * @param {number} cid @param {any} made
   */
  function hold(cid, made) {
    components.set(cid, made);
    if (components.size > LIMITS.maxComponents) components.delete(/** @type {number} */ (components.keys().next().value));
    return true;
  }

  /** @param {string} toolCallId */
  function toolState(toolCallId) {
    let state = toolStates.get(toolCallId);
    if (!state) {
      toolStates.set(toolCallId, (state = {}));
      if (toolStates.size > LIMITS.maxComponents) toolStates.delete(/** @type {string} */ (toolStates.keys().next().value));
    }
    return state;
  }

  /** @param {number} cid */
  function component(cid) {
    const c = components.get(cid);
    if (!c) throw RELEASED;
    return c;
  }
}
