/**
 * Where every routed agent's hook command runs: the shell (the user's hooks too), and the memory
 * bound of a project's hook's bubblewrap sandbox, whichever agent's it is; what it sees of the
 * system is every program sandbox's (src/isolation/bubblewrap/system-reads.ts). Claude Code's row
 * adds its grants (src/claude/project-run.ts).
 */
import { existsSync } from "node:fs";

export const SHELL = existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";
export const SANDBOX_MEMORY_MB = 512;
