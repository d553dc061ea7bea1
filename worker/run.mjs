// Runs one hook's handlers for one event in registration order, as the host's plan says: all of
// them (series), up to the first `stop: true` (bail), or feeding each output to the next
// (waterfall). The host applies the conflict rules across hooks; this only keeps one round trip
// per hook per event.
/** @import { RunPlan, Step, EmitReply } from "../src/protocol.js" */
import { toWireError } from "./channel.mjs";

/**
 * @param {Function[]} handlers
 * @param {Record<string, unknown>} event
 * @param {RunPlan} plan
 * @param {unknown} ctx
 * @returns {Promise<EmitReply>}
 */
export async function runHandlers(handlers, event, plan, ctx) {
  /** @type {Step[]} */
  const steps = [];
  const { stop, chain, discard, only, stopOnError } = plan;
  let current = event;
  let changed = false;
  for (const handler of only === undefined ? handlers : handlers.slice(only, only + 1)) {
    let result;
    try {
      result = await handler(current, ctx);
    } catch (err) {
      steps.push({ ok: false, e: toWireError(err) });
      if (stopOnError) break;
      continue;
    }
    if (chain) {
      const next = result && typeof result === "object" ? /** @type {Record<string, unknown>} */ (result)[chain] : undefined;
      if (Array.isArray(next)) {
        current = { ...current, [chain]: next };
        changed = true;
      }
      steps.push({ ok: true });
      continue;
    }
    if (discard || result === undefined || result === null) {
      steps.push({ ok: true });
      continue;
    }
    steps.push({ ok: true, r: result });
    if (stop && /** @type {Record<string, unknown>} */ (result)[stop] === true) break;
  }
  if (chain && changed) return { steps, value: current[chain] };
  return { steps };
}
