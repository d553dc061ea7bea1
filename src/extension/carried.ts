/**
 * Which of an agent's events hookbox/extension carries, by line of agents (`agentLine`, below),
 * read off worker/extension-members.mjs. Its own file, importing nothing else, so the `hookbox`
 * command (src/cli/agent.ts) knows an agent's events without loading the adapter.
 */
import {
  NOTIFY_EVENTS, OMP_NOTIFY_EVENTS, OMP_REFUSED_EVENTS, OMP_RESULT_EVENTS, PI_ONLY_EVENTS, REFUSED_EVENTS, RESULT_EVENTS,
} from "../../worker/extension-members.mjs";

/**
 * The events the adapter mirrors in an agent of `line`: those whose result the agent uses, and
 * those it only notifies; and the agent's events it refuses by name, with why. The oh-my-pi line
 * has the seed's events pi lacks, lacks a few of pi's, and has events of its own hookbox refuses.
 */
export function carriedEvents(line: "omp" | "pi"): { line: "omp" | "pi"; results: readonly string[]; notified: readonly string[]; refused: Readonly<Record<string, string>> } {
  if (line === "pi") return { line, results: RESULT_EVENTS, notified: NOTIFY_EVENTS, refused: REFUSED_EVENTS };
  const has = (event: string) => !(PI_ONLY_EVENTS as readonly string[]).includes(event);
  return {
    line,
    results: [...RESULT_EVENTS, ...OMP_RESULT_EVENTS].filter(has),
    notified: [...NOTIFY_EVENTS, ...OMP_NOTIFY_EVENTS].filter(has),
    refused: { ...REFUSED_EVENTS, ...OMP_REFUSED_EVENTS },
  };
}

/**
 * Which line of agents `pi` (the agent's ExtensionAPI) comes from: `omp` for oh-my-pi and xcsh,
 * whose API injects the agent's own module as `pi.pi` (as the seed's HookAPI does), else `pi`.
 * It decides which events cross: the omp line also has the seed's hook events pi lacks
 * (`OMP_RESULT_EVENTS`, `OMP_NOTIFY_EVENTS`), which legacy `--hook` modules use.
 */
export function agentLine(pi: object): "omp" | "pi" {
  const own = (pi as { pi?: unknown }).pi;
  return typeof own === "object" && own !== null ? "omp" : "pi";
}
