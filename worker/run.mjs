// Runs one hook's handlers for one event in registration order, as the host's plan says: all of
// them (series), up to the first `stop: true` (bail), or feeding each output to the next
// (waterfall). The host applies the conflict rules across hooks; this only keeps one round trip
// per hook per event.
/** @import { RunPlan, Step, EmitReply } from "../src/contract/protocol.js" */
import { toWireError } from "./channel.mjs";
import { installCloneUnwrap, plain, trackEdits } from "./edits.mjs";
import { withAccessDetail } from "./access.mjs";
import { mode } from "./transport.mjs";
import { bails, isMessageList } from "./wire.mjs";

// In a worker the event is a copy: its in-place edits are tracked and sent back. A trusted
// in-process hook gets the host's own object, as in the original.
const tracking = mode !== "host";
if (tracking) installCloneUnwrap();

/**
 * @param {Function[]} handlers
 * @param {Record<string, unknown>} event
 * @param {RunPlan} plan
 * @param {unknown} ctx
 * @returns {Promise<EmitReply | undefined>}
 */
export async function runHandlers(handlers, event, plan, ctx) {
  /** @type {Step[]} */
  const steps = [];
  const { stop, chain, discard, only, stopOnError } = plan;
  const tracker = tracking ? trackEdits(event) : undefined;
  let current = tracker ? tracker.event : event;
  let changed = false;
  // Whether `current[chain]` is still the value `plain` returned (no handler ran since): it then
  // holds no proxy, and is sent without walking it again.
  let fresh = false;
  for (const handler of only === undefined ? handlers : handlers.slice(only, only + 1)) {
    fresh = false;
    let result;
    try {
      result = await handler(current, ctx);
    } catch (err) {
      steps.push({ ok: false, e: stepError(err) });
      if (stopOnError) break;
      continue;
    }
    if (chain) {
      if (result === undefined || result === null) { steps.push({ ok: true }); continue; }
      const next = typeof result === "object" ? plain(/** @type {Record<string, unknown>} */ (result)[chain]) : undefined;
      if (isMessageList(next) && Object.keys(/** @type {object} */ (result)).every((k) => k === chain)) {
        current = { ...current, [chain]: next };
        changed = fresh = true;
        steps.push({ ok: true });
      } else {
        // Not applied: the host validates it and reports what is wrong; the chain goes on unchanged.
        steps.push({ ok: true, r: plain(result) });
      }
      continue;
    }
    if (discard || result === undefined || result === null) {
      steps.push({ ok: true });
      continue;
    }
    steps.push({ ok: true, r: plain(result) });
    if (stop && bails(result, stop)) break;
  }
  const edits = tracker?.edits();
  if (chain && changed) {
    const value = fresh ? current[chain] : plain(current[chain]);
    return edits ? { steps, value, edits } : { steps, value };
  }
  // Nothing to report (every handler returned nothing): the host reads no reply as no results,
  // which saves cloning the steps on the commonest path. `only` callers read their one step.
  if (!edits && only === undefined && steps.every((st) => st.ok && !("r" in st))) return undefined;
  return edits ? { steps, edits } : { steps };
}

/**
 * A thrown value as the host gets it. A non-Error is sent as is too (`value`), when it can be
 * cloned, so the host can keep it as the `cause` and describe it as the original does.
 * @param {unknown} err
 */
function stepError(err) {
  const e = toWireError(withAccessDetail(err));
  if (err instanceof Error) return e;
  try {
    return { ...e, value: structuredClone(plain(err)) };
  } catch {
    return { ...e, value: String(err) };
  }
}
