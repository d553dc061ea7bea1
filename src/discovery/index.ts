/** discoverAndLoadHooks: discovered hook paths, then configured ones, de-duplicated, then loaded. */
import { resolve } from "node:path";
import { loadHooks, type LoadHooksResult, type LoadOptions } from "../loader.js";
import { resolvePath } from "../paths.js";

export interface DiscoverOptions {
  /** Discovered hook paths (the capability registry's output); empty by default. */
  discovered?: string[];
}

export async function discoverAndLoadHooks(configuredPaths: string[], cwd: string, options: DiscoverOptions & LoadOptions = {}): Promise<LoadHooksResult> {
  const { discovered = [], ...load } = options;
  const seen = new Set<string>();
  const all: string[] = [];
  for (const p of [...discovered, ...configuredPaths.map((c) => resolvePath(c, cwd))]) {
    const key = resolve(cwd, p);
    if (seen.has(key)) continue;
    seen.add(key);
    all.push(p);
  }
  return loadHooks(all, cwd, load);
}
