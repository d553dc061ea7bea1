/**
 * Loading a hook in a freshly spawned worker: the one comlink call on the control port, bounded by
 * its own deadline and liveness bound, its reply validated (the sandbox closes the port after it).
 */
import * as Comlink from "comlink";
import { Errors, HookFailure, describeThrown } from "../contract/errors.js";
import type { ResolvedSandboxOptions } from "../options/options.js";
import { codeCacheReplySchema, loadReplySchema, type LoadSpec, type Manifest, type WorkerControl } from "../contract/protocol.js";
import { describeIssues } from "../contract/schemas.js";
import type { HookChannel } from "./channel.js";
import type { HookEndpoint } from "./endpoint.js";
import { explainRefusedImport } from "../bridge/host-modules.js";
import { DEFAULTS } from "../../worker/wire.mjs";
import { bunOnlyImports } from "../policy/import-graph.js";
import { HOST_BUN } from "../policy/runtime.js";

/**
 * A load failure's message, with the reason when the hook runs on Node (process and sandbox
 * isolation, or a Node host) and imports a package written for Bun only (oh-my-pi's own packages):
 * Node fails inside that package ("Bun is not defined", a `path` that is undefined), which names
 * neither the package nor what to do.
 */
export function explainBunOnlyImport(message: string, resolvedPath: string, isolation: ResolvedSandboxOptions["isolation"]): string {
  if (isolation === "worker" && HOST_BUN !== undefined) return message;
  const [first] = bunOnlyImports(resolvedPath);
  if (first === undefined) return message;
  const where = isolation === "worker" ? "a worker on a Node host" : `${isolation} isolation`;
  return `${message} (the hook imports "${first}", a package for Bun only: its package.json's engines name bun, not node, and in ${where} the hook runs on Node. `
    + `Run it where Bun runs it: inside a Bun agent, isolation "worker" with policy "trusted")`;
}

/**
 * What a load's reply said of the runtime's code cache (src/isolation/code-cache.ts): a hook
 * thread's word on the bytes it was given, or the bytes the host's own thread made (`made`, read
 * only from a thread started with `produce`: from any other a reply that carries them is a violation).
 */
export interface CodeCacheReport { produce: boolean; verdict?: "accepted" | "rejected"; made?: Uint8Array }

/** The hook's manifest, or the failure (with its code) that ended the load: a bad reply, a throw, a timeout, or `death`. */
export async function loadWorker(endpoint: HookEndpoint, channel: HookChannel, hookPath: string, options: ResolvedSandboxOptions,
  death: Promise<HookFailure>, spec: LoadSpec, cache: CodeCacheReport = { produce: false }): Promise<HookFailure | Manifest> {
  const remote = Comlink.wrap<WorkerControl>(endpoint.control);
  let timer: NodeJS.Timeout | undefined;
  const loadDeadline = options.deadlines.load ?? DEFAULTS.deadlineMs;
  const timedOut = new Promise<HookFailure>((resolve) => {
    if (Number.isFinite(loadDeadline)) {
      timer = setTimeout(() => resolve(Errors.timeout(hookPath, "load", loadDeadline)), loadDeadline);
    }
  });
  const loaded = channel.trackLoad(
    remote.load(spec).then((reply): HookFailure | Manifest => {
      if (cache.produce) {
        const made = codeCacheReplySchema.safeParse(reply);
        if (!made.success) return Errors.protocolViolation(hookPath, `bad code cache reply: ${describeIssues(made.error)}`);
        cache.made = made.data.made;
        return made.data.manifest;
      }
      const parsed = loadReplySchema.safeParse(reply);
      if (!parsed.success) return Errors.protocolViolation(hookPath, `bad load reply: ${describeIssues(parsed.error)}`);
      cache.verdict = parsed.data.codeCache;
      // An import of an offered host module the policy refused fails as "not found": say which policy field grants it.
      // A package for Bun only, loaded on Node, fails inside itself: say which and why.
      if (!parsed.data.ok) {
        const message = explainRefusedImport(parsed.data.e.message, options.hostModules, options.policy);
        return Errors.loadFailed(hookPath, explainBunOnlyImport(message, spec.resolvedPath, options.isolation), parsed.data.e.stack);
      }
      return parsed.data.manifest;
    }, (err) => Errors.loadFailed(hookPath, describeThrown(err))),
    options.loadUnresponsiveMs,
  );
  const outcome = await Promise.race([loaded, death, timedOut]);
  clearTimeout(timer);
  return outcome;
}
