/**
 * What `hookbox trust` (./trust.ts) shows of one module, and the review of a project's Claude Code
 * MCP servers (`.mcp.json`, src/claude/mcp.ts): each with its command line, env keys and the files
 * its command names, a stdio one with the grants it is proposed.
 */
import { relative } from "node:path";
import { FingerprintError, projectKey, type Fingerprint, type PinReader } from "../approval/store.js";
import { commandHookPins } from "../approval/command-hook.js";
import { CLAUDE_CODE } from "../claude/dialect.js";
import { describeMcpServer, mcpCommandLine, mcpEnv, mcpFingerprint, mcpProposedGrants, readProjectMcp } from "../claude/mcp.js";
import { mcpKey } from "../approval/keys.js";

/**
 * One module of the project as the user reviews it: its fingerprint, or why it cannot be approved
 * as it stands (a Claude Code hook whose command names files known only when it runs); `scope`
 * says what else its approval pins than the files listed; a Claude Code hook also with its grants
 * (proposed, given now, approved before).
 */
export interface Reviewed {
  key: string; origin: string; fingerprint?: Fingerprint; refusal?: string; scope?: string; notes?: string[]; pinned?: () => Promise<Fingerprint>;
  /** What a power item grants (src/approval/power-item.ts), one line each. */
  shows?: string[];
  claude?: boolean; grants?: { proposed: string[]; given: string[]; approved: string[]; module: boolean };
}

/** The project's MCP servers as reviewed; a server above the project is warned of (hookbox claude denies it by name). */
export async function reviewMcpServers(project: string, reader: PinReader, warn: (warning: string) => void): Promise<Reviewed[]> {
  const modules: Reviewed[] = [];
  const mcp = readProjectMcp(project, CLAUDE_CODE.projectMcp.file);
  for (const problem of mcp.problems) warn(problem);
  for (const s of mcp.above) warn(`the MCP server ${s.name} of ${s.file} is above the project: hookbox claude denies it by name (only the project's own servers are approved)`);
  for (const server of mcp.servers) {
    const pinned = () => mcpFingerprint(project, server, reader);
    const key = mcpKey(server);
    const origin = `Claude Code (${describeMcpServer(project, server)})`;
    const stdio = server.kind === "stdio";
    const { folders, notes } = stdio ? commandHookPins(project, { command: mcpCommandLine(server.entry), env: mcpEnv(server.entry.env) }, CLAUDE_CODE.projectDirVars) : { folders: [], notes: [] };
    const scope = stdio
      ? `its entry (command, args, env); the files below${folders.length > 0 ? `, with ${folders.map((f) => relative(projectKey(project), f)).join(", ")} whole` : ""}; a link by its text and by the content it leads to`
      : "its entry (type, url, headers, headersHelper) and the project files it names; Claude Code connects to it itself, outside the sandbox, with the variables its headers name";
    try {
      const fp = await pinned();
      modules.push({ key, origin, fingerprint: fp, scope, notes, pinned, claude: stdio, ...(stdio ? { grants: { proposed: mcpProposedGrants(server), given: [], approved: [], module: false } } : {}) });
    } catch (e) {
      if (!(e instanceof FingerprintError)) throw e;
      modules.push({ key, origin, refusal: e.message, pinned, claude: stdio });
    }
  }
  return modules;
}
