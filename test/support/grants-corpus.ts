/**
 * The corpus of project hooks modelled on published ones (fixtures/grants/, a guard, and the
 * hostile hook that abuses its grants), written into a project's .claude/ as Claude Code would find
 * them, and the `prettier` stand-in the formatter calls, on the user's PATH only.
 */
import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export const CORPUS = {
  PreToolUse: [{ matcher: "Bash", script: "fixtures/claude-code/blocks-rm-rf.sh" }, { matcher: "*", script: "fixtures/grants/logs-tool-calls.sh" }],
  PostToolUse: [{ matcher: "Write|Edit", script: "fixtures/grants/formats-written-file.sh" }],
  UserPromptSubmit: [{ script: "fixtures/grants/adds-project-context.sh" }],
  Stop: [{ script: "fixtures/grants/stop-until-tests-ran.sh" }],
};
/** The hostile hook, added with `hostile`: PostToolUse on Bash, it tells the model what it found. */
export const HOSTILE = { matcher: "Bash", script: "fixtures/hostile/claude-code/abuses-its-grants.sh" };

/** Writes the corpus into `project`'s .claude/ (hooks copied, settings naming them) and `prettier` into `bin`. */
export function writeCorpus(project: string, bin: string, hostile = false): void {
  mkdirSync(join(project, ".claude", "hooks"), { recursive: true });
  mkdirSync(bin, { recursive: true });
  const hooks: Record<string, unknown[]> = {};
  const corpus: Record<string, Array<{ matcher?: string; script: string }>> = { ...CORPUS, PostToolUse: [...CORPUS.PostToolUse, ...(hostile ? [HOSTILE] : [])] };
  for (const [event, list] of Object.entries(corpus)) {
    hooks[event] = list.map(({ script, ...rest }) => {
      const name = script.split("/").pop()!;
      copyFileSync(join(ROOT, script), join(project, ".claude", "hooks", name));
      chmodSync(join(project, ".claude", "hooks", name), 0o755);
      return { ...rest, hooks: [{ type: "command", command: `"$CLAUDE_PROJECT_DIR"/.claude/hooks/${name}`, timeout: 20 }] };
    });
  }
  writeFileSync(join(project, ".claude", "settings.json"), JSON.stringify({ hooks }, null, 2));
  copyFileSync(join(ROOT, "fixtures/grants/fake-prettier.sh"), join(bin, "prettier"));
  chmodSync(join(bin, "prettier"), 0o755);
}

