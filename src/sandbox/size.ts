/**
 * A fast upper-bound-ish estimate of a value's serialised size, that stops walking as soon as it
 * passes `limit`. Strings count 2 bytes a character (V8's worst case), numbers 8, each key its
 * length, each object and array 16. Cycles are not followed twice.
 */
export function estimateBytes(value: unknown, limit: number): number {
  let total = 0;
  const seen = new Set<object>();
  const stack: unknown[] = [value];
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
        if (ArrayBuffer.isView(v)) { total += v.byteLength; break; }
        if (v instanceof ArrayBuffer) { total += v.byteLength; break; }
        if (Array.isArray(v)) { for (let i = 0; i < v.length; i++) stack.push(v[i]); break; }
        for (const key in v) {
          total += key.length + 4;
          stack.push((v as Record<string, unknown>)[key]);
        }
        break;
      }
      default: total += 8;
    }
    if (total > limit) return total;
  }
  return total;
}
