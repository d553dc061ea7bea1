/**
 * A module given to `isolate()` that the agent also loads by itself, which runs it twice, once
 * unisolated: that silently undoes the isolation. pi discovers every module in `.pi/extensions/`,
 * `~/.pi/agent/extensions/` and its settings' `extensions`/`packages`; oh-my-pi every module its
 * `discoverExtensionPaths` finds (`.omp/extensions/`, `.pi/extensions/`, the agent folder's, its hook
 * folders, plugins). `guard.ts` beside `isolated.ts` in `.pi/extensions/` (or `.omp/extensions/`)
 * then runs in the agent's own process too. Found with the agent's own rules (src/discovery/agents.ts),
 * only when this process is that agent with its discovery on (`--no-extensions` turns it off).
 */
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname } from "node:path";
import { below } from "../gates/inside.js";
import { ompModules, piDiscoveryOff, piModules, runningAgent, type AgentDiscovery, type OmpModule } from "../discovery/agents.js";

/**
 * Each of `paths` (absolute) that the agent also loads itself, with where it found it; empty outside
 * pi and oh-my-pi or with their discovery off. `omp` is oh-my-pi's own module (`pi.pi`) when the
 * agent's API is of the oh-my-pi line.
 */
export async function alsoLoadedByAgent(paths: readonly string[], cwd: string, omp?: OmpModule): Promise<Array<{ path: string; why: string }>> {
  const agent = runningAgent();
  if (paths.length === 0 || agent === undefined || piDiscoveryOff()) return [];
  if (agent === "omp" && typeof omp?.discoverExtensionPaths !== "function") return [];
  let found: AgentDiscovery;
  try {
    found = agent === "omp" ? await ompModules(omp!, cwd) : await piModules(cwd);
  } catch {
    return []; // the agent's own discovery failed: the agent reports that itself
  }
  const real = (path: string) => { try { return realpathSync(path); } catch { return path; } };
  const discovered = new Map(found.modules.map((m) => [real(m.path), m]));
  const name = agent === "omp" ? "oh-my-pi" : "pi";
  return paths.flatMap((path) => {
    const module = discovered.get(real(path));
    if (module === undefined) return [];
    const where = agent === "omp" ? ompWhere(module.path, cwd)
      : module.source === "auto" ? `it sits in a folder pi loads every module of (${module.scope === "project" ? ".pi/extensions/" : `${found.agentDir}/extensions/`})` : `pi's settings list it (${module.source})`;
    const hidden = agent === "omp" ? ".omp/hookbox/" : ".pi/hookbox/";
    return [{
      path,
      why: `${name} also loads it by itself, in its own process: ${where}. Isolating it does not contain that copy, which runs unisolated beside it. `
        + `Move it to a folder ${name} does not discover (e.g. ${hidden} or ~/hookbox/) and keep only the file calling isolate() where ${name} loads extensions, or start ${name === "pi" ? "pi" : "omp"} with --no-extensions`,
    }];
  });
}

/**
 * Where oh-my-pi found a module (its `discoverExtensionPaths` answers paths only): the folder it
 * loads every module of (`extensions/`, `hooks/`…), named from the project or the home folder.
 */
function ompWhere(path: string, cwd: string): string {
  const folder = basename(path) === "index.ts" || basename(path) === "index.js" ? dirname(dirname(path)) : dirname(path);
  const home = homedir();
  const fromCwd = below(cwd, folder);
  const fromHome = below(home, folder);
  const shown = fromCwd !== undefined ? `${fromCwd}/` : fromHome ? `~/${fromHome}/` : `${folder}/`;
  return `oh-my-pi's discovery (discoverExtensionPaths) finds it in ${shown}`;
}
