// `pi.typebox` and `pi.pi`, which the original's HookAPI injects.
//
// - `pi.typebox` is the `@sinclair/typebox` module when the embedder installed it beside hookbox
//   (an optional peer dependency: hooks rarely need it, and they get the copy the agent uses).
// - `pi.pi` is the agent's own package in the original (`import("@f5-sales-demo/xcsh")`): its
//   values are the host's, with its secrets, so a sandbox cannot hold it. What a hook needs from
//   it is offered as host modules (`hostModules`), by name.
// Either one, when absent, is an object whose every member throws an error saying so.
import { createRequire } from "node:module";
import { OMP_REFUSED_MEMBERS } from "./extension-members.mjs";

const require = createRequire(import.meta.url);

/** @param {string} what @param {string} why */
function absent(what, why) {
  return new Proxy(Object.freeze({}), {
    get(_target, prop) {
      if (prop === "then" || typeof prop === "symbol") return undefined;
      throw new Error(`${what}.${String(prop)}: ${why}`);
    },
  });
}

/** @type {unknown} */
let typebox;
/** The TypeBox module, loaded on first use. */
export function typeboxModule() {
  if (typebox) return typebox;
  try {
    typebox = require("@sinclair/typebox");
  } catch {
    typebox = absent("pi.typebox", "@sinclair/typebox is not installed beside hookbox (an optional peer dependency: `npm install @sinclair/typebox` in the embedding project)");
  }
  return typebox;
}

/** `pi.pi`: the agent's package cannot be handed to a sandboxed hook. */
export const agentPackage = absent("pi.pi", /** @type {string} */ (OMP_REFUSED_MEMBERS.pi));
