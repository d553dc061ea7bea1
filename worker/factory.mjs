// The hook's factory from whatever its module exports. jiti (interopDefault) accepts every
// default-export shape, and so does this, for native imports too: `export default fn`,
// `module.exports = fn`, and tsc's CommonJS output (`exports.default = fn` with `__esModule`),
// which a native import sees as `{ default: { __esModule: true, default: fn } }`.

/**
 * @param {unknown} mod the module namespace (or what jiti returned)
 * @returns {Function | undefined}
 */
export function factoryOf(mod) {
  /** @type {any} */
  let value = /** @type {any} */ (mod)?.default ?? mod;
  // Unwrap nested `default`s (an ES namespace of a CommonJS module of a transpiled ES module…).
  for (let depth = 0; depth < 4 && typeof value !== "function"; depth++) {
    if (value === null || typeof value !== "object" || !("default" in value)) break;
    value = value.default;
  }
  return typeof value === "function" ? value : undefined;
}
