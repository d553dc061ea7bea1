/**
 * The config-file form of `isolate` (hookbox/extension's `isolateConfig`): a JSON file naming the
 * modules to isolate and the options, so an agent's settings list modules as data. Checked strictly
 * with the option schemas `loadHooks` uses (src/options/schemas.ts); a module entry may carry its
 * own options (what `perHook` gives it) and `optional`. Paths resolve against the JSON file's folder.
 *
 * ```json
 * { "modules": ["./guard.ts", { "path": "./other.ts", "policy": "untrusted", "optional": true }],
 *   "policy": "confined", "isolation": "process" }
 * ```
 */
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { optionsProblem, sandboxOptionsShape } from "../options/schemas.js";
import { resolvePath } from "../policy/paths.js";
import type { LoadOptions } from "../runner/loader.js";
import type { SandboxOptions } from "../options/options.js";

const moduleEntry = z.strictObject({ path: z.string().min(1), optional: z.boolean().optional(), ...sandboxOptionsShape });
/** The file's schema: `loadHooks`' shared options, and `modules` (a path, or a path with its own options). */
export const isolateConfigSchema = z.strictObject({ ...sandboxOptionsShape, modules: z.array(z.union([z.string().min(1), moduleEntry])) });

/** What `isolate` takes, read from the file. */
export interface IsolateConfig { paths: string[]; options: LoadOptions & { optional: string[] } }

/**
 * Read and check the config file at `file` (absolute). Throws an Error naming the file and, for a
 * bad field, the field and the valid one meant.
 */
export function readIsolateConfig(file: string): IsolateConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(`hookbox config ${file}: ${code === "ENOENT" ? "file not found" : `cannot be read (${code ?? String(err)})`}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new Error(`hookbox config ${file}: not valid JSON: ${(err as Error).message}`);
  }
  const problem = optionsProblem(isolateConfigSchema, data);
  if (problem !== undefined) throw new Error(`hookbox config ${file}: ${problem}`);
  const { modules, ...shared } = isolateConfigSchema.parse(data);
  const folder = dirname(file);
  const paths: string[] = [];
  const optional: string[] = [];
  const perHook: Record<string, SandboxOptions> = {};
  for (const entry of modules) {
    const { path, optional: isOptional, ...own } = typeof entry === "string" ? { path: entry } : entry;
    const resolved = resolvePath(path, folder);
    paths.push(resolved);
    if (isOptional) optional.push(resolved);
    if (Object.keys(own).length > 0) perHook[resolved] = own as SandboxOptions;
  }
  return { paths, options: { ...(shared as LoadOptions), ...(Object.keys(perHook).length > 0 ? { perHook } : {}), optional } };
}
