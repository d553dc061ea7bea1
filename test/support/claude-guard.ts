/**
 * A project as the Claude Code router tests build it: `.claude/hooks/guard.sh` (the given script)
 * named in `.claude/settings.json` as a PreToolUse hook of Bash, read back as `hookbox claude` reads it.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseClaudeSettings, type ClaudeHook } from "../../src/claude/settings.js";

/** Writes the guard and the settings into `dir`; returns the project's hooks as parsed. */
export function guardProject(dir: string, script: string): ClaudeHook[] {
  mkdirSync(join(dir, ".claude", "hooks"), { recursive: true });
  writeFileSync(join(dir, ".claude", "hooks", "guard.sh"), script);
  chmodSync(join(dir, ".claude", "hooks", "guard.sh"), 0o755);
  const settings = { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.sh", timeout: 10 }] }] } };
  const file = join(dir, ".claude", "settings.json");
  writeFileSync(file, JSON.stringify(settings));
  return parseClaudeSettings(JSON.stringify(settings), file, "project").hooks;
}
