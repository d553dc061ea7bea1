/**
 * The routing hook a launcher gives the agent, one per event, in place of the agent's own hooks:
 * its deadline, over the slowest routed hook's own, so that a hook's own deadline passes first and
 * the router still answers (when the agent's passes, it cancels the router, a non-blocking error:
 * fail open).
 */

/** Margin over the slowest hook's timeout for the routing hook's own. */
export const ROUTER_MARGIN_MS = 30_000;
/** The routing hook's timeout over hooks of these deadlines, in ms. */
export const routerTimeoutMs = (hooksMs: readonly number[]): number => Math.max(0, ...hooksMs) + ROUTER_MARGIN_MS;
