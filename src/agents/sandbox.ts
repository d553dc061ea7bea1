/**
 * Where every routed agent's hook command runs: the shell (the user's hooks too), and what a
 * project's hook sees of the system inside the bubblewrap sandbox, whichever agent's it is: the
 * system's programs and libraries read-only (never /etc, /home, /root or the host's /tmp), this
 * PATH, this memory bound. Claude Code's row adds its grants (src/claude/project-run.ts).
 */
import { existsSync } from "node:fs";

export const SHELL = existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";
export const SANDBOX_MEMORY_MB = 512;
export const SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin";
/** What a project's hook sees of the system: programs and their libraries, never /etc, /home, /root or /tmp of the host. */
export const SYSTEM_READS = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32"];
