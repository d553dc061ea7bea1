/**
 * hookbox: the hook contract of the original subsystem, with each hook module in its own worker.
 * Swap the import; the API is the same.
 */
export { loadHooks, type LoadHooksResult, type LoadOptions } from "./runner/loader.js";
export { discoverAndLoadHooks, discoverHooks, HookRegistry, defaultHookProviders, folderProvider, hookKey, type DiscoverOptions, type DiscoverAndLoadResult, type DiscoveryReport, type DiscoveredHook, type DiscoveryContext, type HookItem, type HookProvider, type ProviderResult, type HookOrigin, type TrustOptions, type TrustRecord } from "./discovery/index.js";
export type { ShellHookOptions } from "./shell/hook.js";
export { HookRunner, type RunnerInitOptions, type RunnerOptions } from "./runner/runner.js";
export type { HookStats, EventStats, LatencyStats } from "./runner/stats.js";
export { decisionRecordSchema, OUTCOMES, type DecisionRecord, type Outcome, type RecordListener } from "./observe/record.js";
export { AuditLog, auditDir, type AuditLogOptions } from "./observe/audit-log.js";
export { readAuditLog } from "./observe/read-log.js";
export { watchHooks, localImports, type HookWatcher, type WatchOptions } from "./runner/watch.js";
export { HookToolWrapper } from "./runner/tool-wrapper.js";
export { execCommand } from "./bridge/exec.js";
export { HOOK_ERROR_CODES, HookFailure, type HookError, type HookErrorCode } from "./contract/errors.js";
export type { LoadedHook, HandlerFn } from "./runner/hook.js";
export type { SandboxOptions } from "./options/options.js";
export type { NetRecord } from "./net/proxy.js";
export { presets, SAFE_ENV, DEFAULT_POLICY, type Policy, type PolicyName, type PolicyOption, type ExecPolicy, type NetworkPolicy, type Isolation, type ModelRegistryAccess } from "./policy/policy.js";
export type { SandboxState, SandboxView, SandboxListener, SandboxBounds } from "./isolation/supervisor.js";
export { StatusLine, sanitizeStatusText, truncateToWidth, displayWidth } from "./runner/status-line.js";
export { terminalText, type TerminalTextOptions } from "./gates/terminal-text.js";
export type { TransformBudgetOptions } from "./transform/budget.js";
export { createNoOpUIContext } from "./bridge/ui.js";
export { createSessionManager, createModelRegistry, type SessionManagerOptions } from "./bridge/host-setup.js";
export { resolvePath, expandPath } from "./policy/paths.js";
export * from "./contract/types.js";
// The original's message roles (its legacy `hookMessage`, `developer`) and oh-my-pi's: a program that
// embedded the original swaps its import for this entry and keeps typing them (src/contract/omp-messages.ts).
export type * from "./contract/omp-messages.js";
