/**
 * What a program's sandbox shows of the system, whoever starts it (a routed agent's project hook:
 * src/agents/, src/claude/; an opencode plugin's Bun process: src/opencode/unit.ts): the system's
 * programs and their libraries read-only, never /etc, /home, /root or the host's /tmp, and the PATH
 * that finds them.
 */

/** The system's programs and libraries, bound read-only (missing ones are skipped). */
export const SYSTEM_READS = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32"];
/** The PATH inside: only what SYSTEM_READS binds. */
export const SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin";
