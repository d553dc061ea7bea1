/**
 * A project's MCP servers (Claude Code's `.mcp.json`), each a program from the repository (stdio)
 * or an address Claude Code connects to itself (http, sse, ws), approved by content like a hook
 * (`hookbox trust`): the server's entry as written (command, args, env; url, headers,
 * headersHelper) and every project file and folder its command line names, parsed as bash parses
 * it (src/approval/command-hook.ts's pins). On the managed route Claude Code reads the file as
 * a read-only view (./launch.ts) holding only the approved servers, each stdio one's command
 * replaced by `hookbox claude-mcp`, which checks the approval again and runs the real server in a
 * project hook's sandbox (./mcp-run.ts). Claude Code 2.1.328 also reads a `.mcp.json` in every
 * folder above the project, up to (not including) `/`: their servers are outside what a project's
 * approval pins, so they are denied by name.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { FingerprintError, PinReader, pinnedFingerprint, projectKey, type ApprovalStore, type Fingerprint, type StoreData } from "../approval/store.js";
import type { HookFailure } from "../contract/errors.js";
import { SECRET_NAME } from "../policy/policy.js";
import { commandHookPins, filesNamed, PROJECT_HOOK_POLICY } from "../approval/command-hook.js";
import { mcpKey } from "../approval/keys.js";
import { CLAUDE_CODE } from "./dialect.js";

/** One server of a `.mcp.json`, as written. */
export interface McpServer {
  name: string;
  /** The `.mcp.json` that names it (absolute). */
  file: string;
  entry: Record<string, unknown>;
  /** `stdio`: a program hookbox runs in the sandbox; `remote`: an address Claude Code connects to; `unknown`: neither, denied. */
  kind: "stdio" | "remote" | "unknown";
}

/** The project's `.mcp.json` and those above it, as Claude Code reads them. */
export interface ProjectMcp {
  /** The project's own file, when it is there and parses. */
  file?: string;
  /** That file's JSON (the view keeps its other keys). */
  document?: Record<string, unknown>;
  /** The servers of the project's file. */
  servers: McpServer[];
  /** The servers of a `.mcp.json` above the project: never approved, denied by name. */
  above: McpServer[];
  problems: string[];
}

/** What a stdio server's command may be to be pinned. */
export const MCP_APPROVABLE_FORM = "name a file of the project as its command or as an interpreter's script (\"command\": \"node\", \"args\": [\"tools/server.mjs\"]), not a package found by name (npx, uvx)";
const REMOTE = new Set(["http", "sse", "ws", "streamable-http"]);

const kindOf = (entry: Record<string, unknown>): McpServer["kind"] => {
  const type = entry.type;
  if ((type === undefined || type === "stdio") && typeof entry.command === "string") return "stdio";
  if (typeof type === "string" && REMOTE.has(type) && typeof entry.url === "string") return "remote";
  return "unknown";
};

function readFile(file: string, problems: string[]): { document?: Record<string, unknown>; servers: McpServer[] } {
  if (!existsSync(file)) return { servers: [] };
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    problems.push(`${file} is not JSON (${(err as Error).message}): Claude Code starts none of its MCP servers either`);
    return { servers: [] };
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) return { servers: [] };
  const servers = (data as { mcpServers?: unknown }).mcpServers;
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) return { document: data as Record<string, unknown>, servers: [] };
  return {
    document: data as Record<string, unknown>,
    servers: Object.entries(servers as Record<string, unknown>).flatMap(([name, entry]) => (typeof entry === "object" && entry !== null && !Array.isArray(entry)
      ? [{ name, file, entry: entry as Record<string, unknown>, kind: kindOf(entry as Record<string, unknown>) }] : [])),
  };
}

/** The project's MCP servers and those of every file of that name above it (`name`: the dialect's, `.mcp.json`). */
export function readProjectMcp(project: string, name: string): ProjectMcp {
  const problems: string[] = [];
  const file = join(project, name);
  const own = readFile(file, problems);
  const above: McpServer[] = [];
  for (let dir = dirname(project); dir !== dirname(dir); dir = dirname(dir)) above.push(...readFile(join(dir, name), problems).servers);
  return { ...(own.document ? { file, document: own.document } : {}), servers: own.servers, above, problems };
}


const shellWord = (s: string) => (/^[\w./@:+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);

/** A stdio server's command line as bash would read it (what its pins are taken from). */
export function mcpCommandLine(entry: Record<string, unknown>): string {
  const args = Array.isArray(entry.args) ? entry.args.map(String) : [];
  return [String(entry.command), ...args].map(shellWord).join(" ");
}

/** An entry's `env` as the variables it sets (a loader's value names code: src/approval/command-pins.ts). */
export const mcpEnv = (env: unknown): Record<string, string> => (typeof env === "object" && env !== null ? Object.fromEntries(Object.entries(env).filter(([, v]) => typeof v === "string")) : {});
const strings = (v: unknown): string[] => (typeof v === "string" ? [v] : typeof v === "object" && v !== null ? Object.values(v).flatMap(strings) : []);

/**
 * The fingerprint of a server as it would run now: its entry, and for a stdio server the files
 * and folders its command line names (a server that finds what it runs by name, `npx pkg`, cannot
 * be pinned: FingerprintError); for a remote one, the project files its strings name (a headersHelper).
 */
export async function mcpFingerprint(project: string, server: McpServer, reader: PinReader = new PinReader()): Promise<Fingerprint> {
  const root = projectKey(project);
  if (server.kind === "unknown") throw new FingerprintError("it is neither a stdio server (a command) nor an http, sse or ws one (a url)");
  if (server.kind === "remote") {
    const files = [...new Set(strings(server.entry).flatMap((s) => filesNamed(root, s, CLAUDE_CODE.projectDirVars)))];
    return pinnedFingerprint(mcpKey(server), { mcpServer: server.entry }, { root, files, folders: [] }, PROJECT_HOOK_POLICY, reader);
  }
  const { files, folders, refusals } = commandHookPins(root, { command: mcpCommandLine(server.entry), env: mcpEnv(server.entry.env) }, CLAUDE_CODE.projectDirVars);
  if (refusals.length > 0) throw new FingerprintError(`its command cannot be approved as it stands: ${refusals.join("; ")}; ${MCP_APPROVABLE_FORM}`);
  return pinnedFingerprint(mcpKey(server), { mcpServer: server.entry }, { root, files, folders }, PROJECT_HOOK_POLICY, reader);
}

/** Why each server may not run as it is now (undefined: approved exactly so); `data`: the store as read once. */
export function checkMcpServers(store: ApprovalStore, project: string, servers: readonly McpServer[], data?: StoreData): Promise<Array<HookFailure | undefined>> {
  const reader = new PinReader();
  return Promise.all(servers.map((server) => store.checkPinned(project, { path: mcpKey(server), policy: PROJECT_HOOK_POLICY, noun: "an MCP server (.mcp.json)", refusal: "it is not started (Claude Code is told to deny it by name)", pinned: () => mcpFingerprint(project, server, reader) }, data)));
}

/** How `hookbox trust` and the launcher name a server: its file (relative to the project) and name, what it runs or reaches, and its env keys. */
export function describeMcpServer(project: string, server: McpServer): string {
  const where = relative(projectKey(project), server.file) || server.file;
  const env = typeof server.entry.env === "object" && server.entry.env !== null ? Object.keys(server.entry.env) : [];
  const what = server.kind === "stdio" ? mcpCommandLine(server.entry) : server.kind === "remote" ? `${String(server.entry.type)} ${String(server.entry.url)}` : "an entry of unknown kind";
  return `${where}, MCP server ${server.name}: ${what}${env.length > 0 ? `; env: ${env.join(", ")}` : ""}`;
}

/**
 * The grants a stdio server is proposed (`hookbox trust`): `env:NAME` for each variable of the
 * user's environment its entry names as `${NAME}`, but a secret-looking one, which only
 * `--grant env:<NAME>` gives.
 */
export function mcpProposedGrants(server: McpServer, env: NodeJS.ProcessEnv = process.env): string[] {
  const names = strings(server.entry).flatMap((s) => [...s.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!));
  return [...new Set(names.filter((n) => env[n] !== undefined && !SECRET_NAME.test(n)).map((n) => `env:${n}`))].sort();
}

/** The command Claude Code runs in place of an approved stdio server. */
export type McpWrapper = (name: string) => { command: string; args: string[] };

/**
 * The project's `.mcp.json` as Claude Code reads it on the managed route: its other keys kept, its
 * servers only those approved, a stdio one as `wrap(name)` (no env: the sandbox gives what the
 * approval pinned), a remote one as written.
 */
export function mcpView(document: Record<string, unknown>, approved: readonly McpServer[], wrap: McpWrapper): Record<string, unknown> {
  const servers = Object.fromEntries(approved.map((s) => [s.name, s.kind === "stdio" ? { type: "stdio", ...wrap(s.name) } : s.entry]));
  return { ...document, mcpServers: servers };
}

/**
 * `text` with `${NAME}` and `${NAME:-default}` expanded as Claude Code expands them in `.mcp.json`,
 * but from `env` only (the variables the server's approval grants): any other is its default, else empty.
 */
export function expandGranted(text: string, env: Readonly<Record<string, string | undefined>>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, fallback: string | undefined) => env[name] ?? fallback ?? "");
}
