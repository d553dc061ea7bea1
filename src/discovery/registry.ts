/**
 * The capability registry for `hooks`: providers sorted by priority, items validated, then
 * de-duplicated by key, first wins; a duplicate stays in the report marked `shadowed`.
 */
import { isAbsolute } from "node:path";
import { z } from "zod";
import { describeIssues } from "../contract/schemas.js";
import type { DiscoveredHook, DiscoveryContext, DiscoveryReport, HookItem, HookProvider } from "./types.js";

/** The capability id, as the original's `hookCapability.id`. */
export const HOOK_CAPABILITY_ID = "hooks";

/** The capability key of a hook item: `${type}:${tool}:${name}`. */
export function hookKey(item: Pick<HookItem, "type" | "tool" | "name">): string {
  return `${item.type}:${item.tool}:${item.name}`;
}

const hookItemSchema = z.strictObject({
  name: z.string().min(1).refine((n) => !/[\\/]/.test(n), "must be a file name, without a folder"),
  path: z.string().min(1).refine((p) => isAbsolute(p), "must be an absolute path"),
  type: z.enum(["pre", "post"]),
  tool: z.string().min(1),
  level: z.enum(["user", "project"]),
});

/** Why an item is invalid (one line per field), or undefined when it is valid. */
export function validateHookItem(item: unknown): string | undefined {
  const parsed = hookItemSchema.safeParse(item);
  return parsed.success ? undefined : describeIssues(parsed.error);
}

/** Providers for the `hooks` capability. Hosts register their own or replace the defaults. */
export class HookRegistry {
  #providers: HookProvider[] = [];

  constructor(providers: readonly HookProvider[] = []) {
    for (const p of providers) this.register(p);
  }

  /** Add a provider; one with the same id is replaced. Kept sorted by priority, higher first. */
  register(provider: HookProvider): this {
    this.#providers = this.#providers.filter((p) => p.id !== provider.id);
    // Insert after every provider of equal or higher priority: equal priorities keep registration order.
    const at = this.#providers.findIndex((p) => p.priority < provider.priority);
    if (at === -1) this.#providers.push(provider);
    else this.#providers.splice(at, 0, provider);
    return this;
  }

  /** Remove a provider by id; true when there was one. */
  unregister(id: string): boolean {
    const before = this.#providers.length;
    this.#providers = this.#providers.filter((p) => p.id !== id);
    return this.#providers.length !== before;
  }

  /** The providers, in the order they run. */
  providers(): readonly HookProvider[] {
    return [...this.#providers];
  }

  /** Run every provider and merge what they found. A provider that throws becomes a warning. */
  async load(ctx: DiscoveryContext): Promise<DiscoveryReport> {
    const providers = this.providers();
    const results = await Promise.all(providers.map(async (provider) => {
      try {
        return { provider, result: await provider.load(ctx) };
      } catch (err) {
        return { provider, error: err instanceof Error ? err.message : String(err) };
      }
    }));
    return mergeProviderResults(results);
  }
}

type Outcome = { provider: HookProvider; result?: { items: HookItem[]; warnings?: string[] }; error?: string };

/**
 * Merge provider outcomes given in priority order. Invalid items are dropped with a warning before
 * de-duplication, so an invalid item never shadows a valid one.
 */
export function mergeProviderResults(outcomes: readonly Outcome[]): DiscoveryReport {
  const report: DiscoveryReport = { items: [], all: [], warnings: [], providers: [] };
  const seen = new Set<string>();
  for (const { provider, result, error } of outcomes) {
    const tag = `[${provider.displayName}]`;
    if (error !== undefined || !result) {
      report.warnings.push(`${tag} failed to load: ${error ?? "load() returned nothing"}`);
      continue;
    }
    for (const w of result.warnings ?? []) report.warnings.push(`${tag} ${w}`);
    let contributed = false;
    for (const raw of Array.isArray(result.items) ? result.items : []) {
      const problem = validateHookItem(raw);
      if (problem) {
        const where = raw && typeof (raw as { path?: unknown }).path === "string" ? (raw as HookItem).path : "(no path)";
        report.warnings.push(`${tag} invalid hook at ${where}: ${problem}`);
        continue;
      }
      const key = hookKey(raw);
      const item: DiscoveredHook = { ...raw, key, provider: provider.id, providerName: provider.displayName, shadowed: seen.has(key) };
      seen.add(key);
      report.all.push(item);
      if (!item.shadowed) {
        report.items.push(item);
        contributed = true;
      }
    }
    if (contributed) report.providers.push(provider.id);
  }
  return report;
}
