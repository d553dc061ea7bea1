/**
 * The deadline of a routing hook: the timeout a launcher gives the agent for `hookbox claude-hook`
 * (and `codex-hook`, `gemini-hook`), over the slowest routed hook's own, so that a hook's own
 * deadline passes first and the router still answers (when the agent's passes, it cancels the
 * router, a non-blocking error: fail open). The router itself, over Claude Code's row, is
 * src/agents/router.ts with src/agents/claude.ts; it lives there because it reads every agent's row.
 */
export type { ClaudePlan } from "./plan.js";

/** Margin over the slowest hook's timeout for the routing hook's own. */
export const ROUTER_MARGIN_MS = 30_000;
/** The routing hook's timeout over hooks of these deadlines, in ms. */
export const routerTimeoutMs = (hooksMs: readonly number[]): number => Math.max(0, ...hooksMs) + ROUTER_MARGIN_MS;
/** The timeout Claude Code gives the routing hook for `hooks`, in seconds (Claude Code's unit). */
export const routerTimeoutS = (hooks: readonly { timeoutS: number }[]): number => routerTimeoutMs(hooks.map((h) => h.timeoutS * 1000)) / 1000;
