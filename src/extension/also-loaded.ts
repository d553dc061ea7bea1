/**
 * A module given to `isolate()` that the agent also loads by itself: pi discovers every module in
 * `.pi/extensions/`, `~/.pi/agent/extensions/` and its settings' `extensions`/`packages`, and runs
 * each in its own process. `guard.ts` beside `isolated.ts` in `.pi/extensions/` then runs twice, once
 * unisolated, which silently undoes the isolation. Found with pi's own rules (src/discovery/agents.ts),
 * only when this process is pi with its discovery on (`--no-extensions` turns it off).
 */
import { realpathSync } from "node:fs";
import { piDiscoveryOff, piModules, runningAgent } from "../discovery/agents.js";

/** Each of `paths` (absolute) that pi also loads itself, with where pi found it; empty outside pi or with its discovery off. */
export async function alsoLoadedByAgent(paths: readonly string[], cwd: string): Promise<Array<{ path: string; why: string }>> {
  if (paths.length === 0 || runningAgent() !== "pi" || piDiscoveryOff()) return [];
  let found: Awaited<ReturnType<typeof piModules>>;
  try {
    found = await piModules(cwd);
  } catch {
    return []; // pi's own discovery failed: pi reports that itself
  }
  const real = (path: string) => { try { return realpathSync(path); } catch { return path; } };
  const discovered = new Map(found.modules.map((m) => [real(m.path), m]));
  return paths.flatMap((path) => {
    const module = discovered.get(real(path));
    if (module === undefined) return [];
    const where = module.source === "auto" ? `it sits in a folder pi loads every module of (${module.scope === "project" ? ".pi/extensions/" : `${found.agentDir}/extensions/`})` : `pi's settings list it (${module.source})`;
    return [{
      path,
      why: `pi also loads it by itself, in its own process: ${where}. Isolating it does not contain that copy, which runs unisolated beside it. `
        + "Move it to a folder pi does not discover (e.g. .pi/hookbox/ or ~/hookbox/) and keep only the file calling isolate() where pi loads extensions, or start pi with --no-extensions",
    }];
  });
}
