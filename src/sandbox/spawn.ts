/** Start a hook's thread or process in the mode its options name. */
import type { SandboxNetSpec } from "../net/proxy.js";
import type { ResolvedSandboxOptions } from "../options.js";
import { sandboxLauncher } from "./bwrap.js";
import { workerEndpoint, type EndpointSpec, type HookEndpoint } from "./endpoint.js";
import { processEndpoint } from "./process-endpoint.js";
import { hookSandboxSpec } from "./sandbox-spec.js";

/** The entry of each mode: `worker/` sits beside `src/` both in the source tree and in `dist/`. */
const THREAD_ENTRY = new URL("../../worker/entry-thread.mjs", import.meta.url);
const PROCESS_ENTRY = new URL("../../worker/entry-process.mjs", import.meta.url);

export function spawnEndpoint(options: ResolvedSandboxOptions, spec: Omit<EndpointSpec, "entry">, resolvedPath: string, net?: SandboxNetSpec): HookEndpoint {
  if (options.isolation === "worker") return workerEndpoint({ ...spec, entry: THREAD_ENTRY });
  const full = { ...spec, entry: PROCESS_ENTRY };
  if (options.isolation === "process") return processEndpoint(full);
  return processEndpoint(full, sandboxLauncher(hookSandboxSpec(options, resolvedPath, spec.env, net)));
}
