/** Start a hook's thread or process in the mode its options name. */
import { existsSync } from "node:fs";
import type { ResolvedSandboxOptions } from "../options/options.js";
import { workerEndpoint, type EndpointSpec, type HookEndpoint } from "./endpoint.js";
import type { Launcher } from "./process-endpoint.js";
import { CACHED_ENTRY, codeCacheUsable } from "./code-cache.js";

/** Process and sandbox modes' modules, loaded when the first such module starts (./child-modes.ts). */
export type ChildModes = typeof import("./child-modes.js");

/**
 * The entry of each mode: `worker/` sits beside `src/` both in the source tree and in `dist/`. The
 * built package has each entry also as one file (scripts/bundle-runtime.mjs: the same modules,
 * loaded faster), started when it is there.
 */
const entry = (mode: string) => {
  const bundle = new URL(`../../worker/entry-${mode}.bundle.cjs`, import.meta.url);
  return existsSync(bundle) ? bundle : new URL(`../../worker/entry-${mode}.mjs`, import.meta.url);
};
const THREAD_ENTRY = entry("thread");
const PROCESS_ENTRY = entry("process");

/**
 * `child`: process and sandbox modes' modules (./child-modes.ts), which the caller loads first.
 * `launcher`: sandbox mode's (src/isolation/bubblewrap/bwrap.ts), made by the caller, who keeps it for `pi.exec`.
 */
export function spawnEndpoint(options: ResolvedSandboxOptions, spec: Omit<EndpointSpec, "entry">, child?: ChildModes, launcher?: Launcher): HookEndpoint {
  // On Node the built runtime starts through the entry that can take its code cache (./code-cache.ts).
  if (options.isolation === "worker") return workerEndpoint({ ...spec, entry: codeCacheUsable() ? CACHED_ENTRY : THREAD_ENTRY });
  if (!child) throw new Error(`isolation "${options.isolation}" needs its modules loaded (src/isolation/child-modes.ts)`);
  const full = { ...spec, entry: PROCESS_ENTRY };
  if (options.isolation === "process") return child.processEndpoint(full);
  if (!launcher) throw new Error("a sandbox needs its launcher");
  return child.processEndpoint(full, launcher);
}
