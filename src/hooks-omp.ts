/**
 * `hookbox/hooks` for oh-my-pi and for hooks written against the original: the same types, with
 * `AgentMessage` widened to their message roles (`pythonExecution`, `fileMention`, `hookMessage`,
 * `developer`) by declaration merging. Importing it anywhere in a program widens `AgentMessage`
 * throughout that program, as the agents' own packages do.
 */
export type * from "./hooks.js";
export type * from "./contract/omp-messages.js";
