// A fast estimate of a value's serialised size that stops walking once it passes `limit`. Both
// sides use it: the worker refuses to post what is over the limit, the host re-checks what it got.
// Strings count 2 bytes a character (V8's worst case), numbers 8, each key its length, each
// object and array 16. Cycles are not followed twice.

/** @param {unknown} value @param {number} limit @returns {number} */
export function estimateBytes(value, limit) {
  let total = 0;
  const seen = new Set();
  /** @type {unknown[]} */
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    switch (typeof v) {
      case "string": total += 2 * v.length + 4; break;
      case "number": case "bigint": total += 8; break;
      case "boolean": case "undefined": total += 1; break;
      case "object": {
        if (v === null) { total += 1; break; }
        if (seen.has(v)) break;
        seen.add(v);
        total += 16;
        if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) { total += v.byteLength; break; }
        if (Array.isArray(v)) { for (let i = 0; i < v.length; i++) stack.push(v[i]); break; }
        for (const key in v) {
          total += key.length + 4;
          stack.push(/** @type {Record<string, unknown>} */ (v)[key]);
        }
        break;
      }
      default: total += 8;
    }
    if (total > limit) return total;
  }
  return total;
}
