/**
 * The `hooks` capability: what a provider finds (a `HookItem`), what a provider is, and the
 * report discovery gives back. Types only.
 */

import type { ShellHookFile } from "../shell/hook.js";

/** `pre` hooks run on `tool_call` (before the tool), `post` hooks on `tool_result` (after it). */
export type HookItemType = ShellHookFile["type"];

/** Where an item was found: the project (`<cwd>/…`) or the user's home folder (`~/…`). */
export type HookLevel = "user" | "project";

/** One discovered hook file, the original's capability `Hook` record (without `_source`). */
export interface HookItem {
  /** The file's base name, e.g. `bash.sh`. */
  name: string;
  /** The file's absolute path. */
  path: string;
  type: HookItemType;
  /** The tool it applies to: the file name without its extension; `*` for every tool. */
  tool: string;
  level: HookLevel;
}

/** What every provider's `load` receives. */
export interface DiscoveryContext {
  /** The project folder. */
  cwd: string;
  /** The user's home folder (an option, so tests and embedders never read the real one). */
  home: string;
  /** Sort the entries of each hook folder by name instead of keeping `readdir`'s order. */
  sortEntries: boolean;
}

/** What a provider found, and what it could not read. */
export interface ProviderResult {
  items: HookItem[];
  /** Readable problems (an unreadable folder, a skipped entry); never fatal. */
  warnings?: string[];
}

/** A source of hook files. Providers run by priority, higher first; the first item per key wins. */
export interface HookProvider {
  /** Unique id, e.g. `native`. Registering a provider with an existing id replaces it. */
  id: string;
  /** Name shown to users, e.g. `xcsh`. */
  displayName: string;
  /** Higher runs first and wins on conflicts. Equal priorities keep registration order. */
  priority: number;
  /** Items in the provider's own order (the defaults: project before user, `pre` before `post`). */
  load(ctx: DiscoveryContext): Promise<ProviderResult> | ProviderResult;
}

/** A discovered item with where it came from and whether a higher-priority item shadowed it. */
export interface DiscoveredHook extends HookItem {
  /** The capability key `${type}:${tool}:${name}`. */
  key: string;
  /** Id of the provider that found it. */
  provider: string;
  /** Display name of that provider. */
  providerName: string;
  /** True when an earlier item (higher priority, or earlier in the same provider) had the same key. */
  shadowed: boolean;
}

/** Everything discovery found, so a host can show why a hook was or was not loaded. */
export interface DiscoveryReport {
  /** The effective items, in load order (shadowed ones left out). */
  items: DiscoveredHook[];
  /** Every valid item, shadowed ones included, in provider order. */
  all: DiscoveredHook[];
  /** Provider failures and invalid items, each prefixed with `[<provider display name>]`. */
  warnings: string[];
  /** Ids of the providers that contributed at least one effective item. */
  providers: string[];
}
