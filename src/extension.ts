/**
 * `hookbox/extension`: the agent adapter's entry point (the adapter itself is src/extension/).
 */
export * from "./extension/adapter.js";
