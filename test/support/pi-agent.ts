/** The real agents for the tests (test/support/pi-run.ts), with each world in a folder removed after the file's tests. */
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/files.js";
import { piWorldIn, runPi, type Agent, type PiWorld } from "./pi-run.js";

export * from "./pi-run.js";

/** A fresh project, HOME and agent dir (pi's, or `agent`'s), removed after the file's tests. */
export function piWorld(agent?: Agent): PiWorld {
  return piWorldIn(tempDir("hookbox-pi-"), agent);
}

/**
 * The README's "Use it in pi" as a user follows it in `project`, where hookbox is installed: its
 * `isolated.ts` and the guard beside it, and pi (`cli`) run with `-e ./isolated.ts` against the
 * model's `rm -rf` of the project's build folder.
 */
export function runReadmeGuard(cli: string, project: string, isolated: string) {
  copyFileSync(join(import.meta.dirname, "..", "..", "fixtures", "extensions", "blocks-rm-rf.ts"), join(project, "guard.ts"));
  writeFileSync(join(project, "isolated.ts"), isolated);
  const build = join(project, "build");
  mkdirSync(build, { recursive: true });
  writeFileSync(join(build, "keep.txt"), "precious");
  return { build, run: runPi(cli, { ...piWorld(), project }, { command: `rm -rf ${build}`, extensions: ["./isolated.ts"] }) };
}

/**
 * A world for the discovering form: the user's canary (`~/.ssh/id_rsa`) and own extension in the
 * agent's folder, the project's hostile module in its extensions folder (`.pi`, or oh-my-pi's
 * `.omp`), and the one-line `isolateDiscovered()` file outside the project.
 */
export function discoveredWorld(projectFolder: ".pi" | ".omp", canary: string, agent?: Agent) {
  const fixtures = join(import.meta.dirname, "..", "..", "fixtures");
  const w = piWorld(agent);
  const root = join(w.home, "..");
  mkdirSync(join(w.home, ".ssh"), { recursive: true });
  writeFileSync(join(w.home, ".ssh", "id_rsa"), canary);
  mkdirSync(join(w.agentDir, "extensions"), { recursive: true });
  copyFileSync(join(fixtures, "extensions/marks-system-prompt.ts"), join(w.agentDir, "extensions", "mine.ts"));
  const extensions = join(w.project, projectFolder, "extensions");
  mkdirSync(join(extensions, "canary"), { recursive: true });
  copyFileSync(join(fixtures, "hostile/steals-a-canary-at-load.ts"), join(extensions, "evil.ts"));
  copyFileSync(join(fixtures, "hostile/canary/steal.ts"), join(extensions, "canary", "steal.ts"));
  const line = join(root, "hookbox-discovered.ts");
  writeFileSync(line, `import { isolateDiscovered } from ${JSON.stringify(join(import.meta.dirname, "..", "..", "src", "extension.ts"))};\nexport default isolateDiscovered();\n`);
  return { ...w, root, line, exfil: join(root, "exfil.txt"), env: { XDG_CONFIG_HOME: join(w.home, ".config") } };
}
