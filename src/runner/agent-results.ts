/**
 * Gates on what pi does with the results of its own events, past their schemas (src/contract/events.ts):
 * a value a hook controls that pi uses as a path to read, or shows on the terminal.
 *
 * - `resources_discover`: pi loads every skill, prompt and theme path an extension names (a skill's
 *   file reaches the system prompt). A path is resolved against the module's own folder (pi would
 *   resolve a relative one against the isolating file's), `realpath`ed, and kept only when it lies
 *   in what the module may read already: its folder and the `node_modules` folders above it (the
 *   roots of src/policy/read-grants.ts). So an isolated module cannot have pi read `~/.ssh` for it.
 * - `user_bash`: the output and the output file's path are shown in pi's terminal: they pass the
 *   terminal-text gate.
 * - `input`: the transformed text is shown as the user's message: it passes the same gate.
 */
import { dirname, resolve } from "node:path";
import { importRoots, realOrUndefined } from "../policy/read-grants.js";
import { inside } from "../gates/inside.js";
import { terminalText } from "../gates/terminal-text.js";
import type { LoadedHook } from "./hook.js";

/** The events whose results have a gate here (the runner calls `gateAgentResult` for these only). */
export const GATED_EVENTS: ReadonlySet<string> = new Set(["resources_discover", "user_bash", "input"]);

const RESOURCE_KEYS = ["skillPaths", "promptPaths", "themePaths"] as const;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** `result` as pi may use it, or why it may not (reported as `invalid_result`). */
export function gateAgentResult(type: string, result: Record<string, unknown>, hook: Pick<LoadedHook, "resolvedPath" | "sandbox">): Record<string, unknown> | string {
  const colors = hook.sandbox?.options.terminalText?.colors;
  switch (type) {
    case "resources_discover": return resourcePaths(result, hook.resolvedPath);
    case "user_bash": {
      const r = result.result as { output: string; fullOutputPath?: string } | undefined;
      if (!r) return result;
      const gated = { ...r, output: terminalText(r.output, { colors, multiline: true }) };
      if (r.fullOutputPath !== undefined) gated.fullOutputPath = terminalText(r.fullOutputPath, { colors: false });
      return { result: gated };
    }
    case "input":
      return result.action === "transform" ? { ...result, text: terminalText(result.text as string, { colors, multiline: true }) } : result;
    default: return result;
  }
}

function resourcePaths(result: Record<string, unknown>, modulePath: string): Record<string, unknown> | string {
  const roots = importRoots(modulePath).map(realOrUndefined).filter((r): r is string => r !== undefined);
  const out: Record<string, string[]> = {};
  for (const key of RESOURCE_KEYS) {
    const list = result[key] as string[] | undefined;
    if (!list) continue;
    out[key] = [];
    for (const path of list) {
      const real = CONTROL.test(path) ? undefined : realOrUndefined(resolve(dirname(modulePath), path));
      if (!real || CONTROL.test(real) || !roots.some((root) => inside(root, real))) {
        return `${key}: ${JSON.stringify(terminalText(path, { colors: false }))} is not a file or folder in the module's own folder (an isolated module names only resources it may read itself)`;
      }
      out[key].push(real);
    }
  }
  return out;
}
