// The runtime's own import() of a native ES module (a hook's .mjs or .js, one jiti hands over):
// one place, because the runtime compiled from a code cache cannot use its own import()
// (worker/entry-thread-cached.cjs says why and gives the one to use).

/** @type {((url: string) => Promise<unknown>) | undefined} */
let given;

/** Called once by worker/entry.mjs, before any import, with the thread entry's import when it gave one. @param {((url: string) => Promise<unknown>) | undefined} importModule */
export function useImport(importModule) {
  given = importModule;
}

/** @param {string} specifier an absolute path, or a file: or node: URL */
export function nativeImport(specifier) {
  return given ? given(specifier) : import(specifier);
}
