/**
 * The default providers for `hooks`, with the original's folder layout. Each reads
 * `<root>/{pre,post}/*`, project before user, skipping dotfiles and anything that is not a file.
 */
import { readdir, stat } from "node:fs/promises";
import { join, parse } from "node:path";
import type { DiscoveryContext, HookItem, HookItemType, HookLevel, HookProvider, ProviderResult } from "./types.js";

const TYPES: readonly HookItemType[] = ["pre", "post"];

/** The items of one `<root>/<type>/` folder, in `readdir` order (or by name when `sortEntries`). */
async function readTypeDir(root: string, type: HookItemType, level: HookLevel, sortEntries: boolean, warnings: string[]): Promise<HookItem[]> {
  const dir = join(root, type);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") warnings.push(`cannot read ${dir}: ${(err as Error).message}`);
    return [];
  }
  if (sortEntries) names.sort();
  const items: HookItem[] = [];
  for (const name of names) {
    if (name.startsWith(".")) continue;
    const path = join(dir, name);
    // stat follows symlinks: a link to a file counts, a link to a folder or a dangling link does not.
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) continue;
    items.push({ name, path, type, tool: parse(name).name, level });
  }
  return items;
}

/** Items of `<root>/{pre,post}/*` for each root, in the order given. */
export async function readHookRoots(roots: ReadonlyArray<{ root: string; level: HookLevel }>, ctx: DiscoveryContext): Promise<ProviderResult> {
  const warnings: string[] = [];
  const items: HookItem[] = [];
  for (const { root, level } of roots) {
    for (const type of TYPES) items.push(...await readTypeDir(root, type, level, ctx.sortEntries, warnings));
  }
  return { items, warnings };
}

/** A provider over fixed hook folders; `roots` maps the context to `<root>` folders (each holding `pre/` and `post/`). */
export function folderProvider(
  id: string, displayName: string, priority: number,
  roots: (ctx: DiscoveryContext) => Array<{ root: string; level: HookLevel }>,
): HookProvider {
  return { id, displayName, priority, load: (ctx) => readHookRoots(roots(ctx), ctx) };
}

/** Priority 100: `<cwd>/.xcsh/hooks/{pre,post}/*` (project), `~/.xcsh/agent/hooks/{pre,post}/*` (user). */
export const nativeProvider = folderProvider("native", "xcsh", 100, ({ cwd, home }) => [
  { root: join(cwd, ".xcsh", "hooks"), level: "project" },
  { root: join(home, ".xcsh", "agent", "hooks"), level: "user" },
]);

/** Priority 80: `<cwd>/.xcsh/hooks/{pre,post}/*` (project), `~/.xcsh/hooks/{pre,post}/*` (user, the older home layout). */
export const xcshHomeProvider = folderProvider("xcsh-home", "xcsh (home folder)", 80, ({ cwd, home }) => [
  { root: join(cwd, ".xcsh", "hooks"), level: "project" },
  { root: join(home, ".xcsh", "hooks"), level: "user" },
]);

/** Priority 60: `<cwd>/.claude/hooks/{pre,post}/*` (project), `~/.claude/hooks/{pre,post}/*` (user). */
export const claudeProvider = folderProvider("claude", "Claude Code", 60, ({ cwd, home }) => [
  { root: join(cwd, ".claude", "hooks"), level: "project" },
  { root: join(home, ".claude", "hooks"), level: "user" },
]);

/** The default providers, in priority order. */
export function defaultHookProviders(): HookProvider[] {
  return [nativeProvider, xcshHomeProvider, claudeProvider];
}
