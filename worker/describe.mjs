// Errors as text and as the wire carries them: readable text for anything thrown, the one way an
// error is serialised (`toWireError`) and the one mark of a cut text. Shared by the worker (what it
// sends) and the host (what it reports, and what it answers a bridge call with), like wire.mjs.
/** @import { WireError } from "../src/contract/protocol.js" */
import { LIMITS } from "./wire.mjs";

/** The mark at the end of any text hookbox shortened. */
export const CUT_MARK = " [cut by hookbox]";

/** `text` within `max` characters, marked when it was cut. @param {string} text @param {number} max */
export const cut = (text, max) => (text.length <= max ? text : `${text.slice(0, max - CUT_MARK.length)}${CUT_MARK}`);

/**
 * An error as the wire carries it, each text within its bound. `stack: false` for an error of the
 * host's sent to a hook (the host's stack and codes are not the hook's business).
 * @param {unknown} err @param {{ stack?: boolean }} [options] @returns {WireError}
 */
export function toWireError(err, options) {
  if (err instanceof Error) {
    /** @type {WireError} */
    const out = { message: cut(String(err.message), LIMITS.maxText), name: cut(String(err.name), LIMITS.maxName) };
    if (options?.stack === false) return out;
    if (typeof err.stack === "string") out.stack = cut(err.stack, LIMITS.maxText);
    const code = /** @type {{ code?: unknown }} */ (err).code;
    if (typeof code === "string") out.code = cut(code, LIMITS.maxName);
    return out;
  }
  return { message: cut(describeThrown(err), LIMITS.maxText) };
}

/** @param {unknown} value @returns {string} */
export function describeThrown(value) {
  if (value instanceof Error) return value.message || value.name || "Error";
  if (value && typeof value === "object" && typeof (/** @type {{ message?: unknown }} */ (value).message) === "string") {
    return /** @type {{ message: string }} */ (value).message;
  }
  if (value === undefined) return "undefined was thrown (throw an Error to give a message)";
  if (typeof value === "string") return value;
  let text;
  try { text = JSON.stringify(value); } catch { text = undefined; }
  return `a non-Error value was thrown: ${text ?? String(value)}`;
}
