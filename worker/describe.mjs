// Readable text for anything thrown: an Error's message, a string, or a JSON rendering of other
// values. Shared by the worker (what it sends) and the host (what it reports), like wire.mjs.

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
