/**
 * Where a launcher binds the view of a project's settings file (Claude Code's `.claude/settings.json`
 * and `.mcp.json`, Gemini CLI's `.gemini/settings.json`): the file it resolves to, as the agent
 * follows the link. Why refused when that file lies outside the project: a later bind on a path
 * wins, so a project whose settings file links to the user's (`~/.gemini/settings.json`) or to a
 * managed document (`/etc/claude-code/…`) would have its view cover the one that holds the routing
 * hooks, and the agent would run none of the user's guards. A link inside the project is followed.
 */
import { realpathSync } from "node:fs";
import { strictlyInside } from "../gates/inside.js";

/** A reason not to start the agent at all (the CLI reports it as a usage error). */
export class LaunchRefused extends Error {
  override readonly name = "LaunchRefused";
}

/** The real path of the project's settings file `path`, the target of its view; refused when it lies outside the project's real path. */
export function viewTarget(launcher: string, project: string, path: string, what = "project settings file"): string {
  const real = realpathSync(path);
  const root = realpathSync(project);
  if (!strictlyInside(root, real)) {
    throw new LaunchRefused(`${path} is a link to ${real}, outside the project: hookbox ${launcher} does not start with a ${what} that leads out of the project (its view could cover your own settings or the managed ones, which hold the routing hooks); remove the link`);
  }
  return real;
}
