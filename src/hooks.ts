/**
 * The authoring surface: `import type { HookAPI } from "hookbox/hooks"` gives every type a hook
 * module needs (the API, events, results, contexts) without loading the host.
 */
export type * from "./contract/types.js";
