/**
 * `hookbox/extension`: the agent adapter's entry point (the adapter itself is src/extension/).
 */
export * from "./extension/adapter.js";
export { isolateDiscovered, DISCOVERY_ON, type IsolateDiscoveredOptions } from "./extension/discovered.js";
