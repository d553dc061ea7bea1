/**
 * The `hookbox` command: `check`, `emit` and `replay` over real workers. `main` returns the exit
 * code: 0 ok, 1 a hook failed to load, 2 a usage error (bad flag, bad JSON, unknown event type).
 */
import { readFileSync } from "node:fs";
import { gatedOutput, type Output } from "./output.js";
import { EXIT, UsageError } from "./usage-error.js";
import { LaunchRefused } from "../agents/view-target.js";

export const HELP = `hookbox: try coding-agent hooks without an agent, each hook in its own worker.

Usage:
  hookbox check  <hook…>                                   what each hook registers; load errors
  hookbox emit   <hook…> --event <type> [--payload <json>]   run one event, print result and errors
  hookbox replay <hook…> --events <file.jsonl>             run a recorded stream, print a stats table
  hookbox trust  <project> [--yes | --revoke]              review and approve the project's modules
  hookbox claude [claude's arguments…]                     Claude Code with its hooks behind the wall
  hookbox codex  [codex's arguments…]                      Codex CLI with its hooks behind the wall
  hookbox gemini [gemini's arguments…]                     Gemini CLI with its hooks behind the wall
  hookbox opencode [opencode's arguments…]                 opencode with its plugins behind the wall
  hookbox log    [--why <call id>] [filters]               the wall's decisions, and why a call was blocked
  hookbox <command> --help                                 options and examples of a command
  hookbox --version

Exit codes: 0 ok; 1 a hook failed to load (with --fail-on-error: any HookError); 2 a usage error
(bad flag, bad JSON, a payload of the wrong shape, unknown event).

Examples (examples/ ships in the package: node_modules/hookbox/examples/):
  hookbox check examples/hooks/*.ts
  hookbox emit examples/hooks/confirm-destructive.ts --event tool_call --confirm yes \\
    --payload '{"toolName":"bash","toolCallId":"1","input":{"command":"rm -rf /"}}'
  hookbox replay examples/hooks/confirm-destructive.ts examples/hooks/redact-secrets.ts \\
    --events examples/session.jsonl
`;

type Command = { run: (args: string[], out: Output, signal?: AbortSignal, err?: Output) => Promise<number>; help: string };

/**
 * Each command loaded when it runs: `hookbox claude-hook` starts on every event Claude Code routes
 * (and `claude-mcp` with every approved server), so it must not load every other command first.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  check: async () => { const m = await import("./check.js"); return { run: m.check, help: m.CHECK_HELP }; },
  emit: async () => { const m = await import("./emit.js"); return { run: m.emit, help: m.EMIT_HELP }; },
  replay: async () => { const m = await import("./replay.js"); return { run: m.replay, help: m.REPLAY_HELP }; },
  trust: async () => { const m = await import("./trust.js"); return { run: m.trust, help: m.TRUST_HELP }; },
  claude: async () => { const m = await import("./claude.js"); return { run: m.claude, help: m.CLAUDE_HELP }; },
  // What the settings `hookbox claude` generates run for every event; not for people.
  "claude-hook": async () => { const m = await import("./claude-hook.js"); return { run: m.claudeHook, help: m.CLAUDE_HOOK_HELP }; },
  // What the view of a project's .mcp.json starts in place of an approved server; not for people.
  "claude-mcp": async () => { const m = await import("./claude-hook.js"); return { run: m.claudeMcp, help: m.CLAUDE_HOOK_HELP }; },
  codex: async () => { const m = await import("./codex.js"); return { run: m.codex, help: m.CODEX_HELP }; },
  // What the requirements `hookbox codex` generates run for every event; not for people.
  "codex-hook": async () => { const m = await import("./codex.js"); return { run: m.codexHook, help: m.CODEX_HELP }; },
  gemini: async () => { const m = await import("./gemini.js"); return { run: m.gemini, help: m.GEMINI_HELP }; },
  // What the system settings `hookbox gemini` generates run for every event; not for people.
  "gemini-hook": async () => { const m = await import("./gemini.js"); return { run: m.geminiHook, help: m.GEMINI_HELP }; },
  opencode: async () => { const m = await import("./opencode.js"); return { run: m.opencode, help: m.OPENCODE_HELP }; },
  log: async () => { const m = await import("./log.js"); return { run: m.log, help: m.LOG_HELP }; },
};
/** Commands agents run, not people: left out of the list of commands. */
const INTERNAL = new Set(["claude-hook", "claude-mcp", "codex-hook", "gemini-hook"]);

export interface MainIO {
  stdout: Output;
  stderr: Output;
  /** Ends `replay --watch` when aborted (default: Ctrl-C). */
  signal?: AbortSignal;
}

/** The package version: package.json is two folders up from source, three from `dist/`. */
function version(): string {
  for (const rel of ["../../package.json", "../../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "hookbox") return String(pkg.version);
    } catch {
      // not there: try the next
    }
  }
  return "unknown";
}

/** Run the command line `argv` (without `node` and the script); resolves with the exit code. */
export async function main(argv: string[], given: MainIO = processIO()): Promise<number> {
  // Everything the commands write holds hook text (results, prompts, messages, errors, logs): it
  // passes the terminal-text gate; only the progress bar's own controls do not (render.ts `Output.control`).
  const io = { ...given, stdout: gatedOutput(given.stdout), stderr: gatedOutput(given.stderr) };
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr.write(`hookbox: no command given\n\n${HELP}`);
    return EXIT.usage;
  }
  if (name === "--help" || name === "-h" || name === "help") {
    const topic = name === "help" ? rest[0] : undefined;
    io.stdout.write(topic && Object.hasOwn(COMMANDS, topic) ? (await COMMANDS[topic]!()).help : HELP);
    return EXIT.ok;
  }
  if (name === "--version" || name === "-v") {
    io.stdout.write(`${version()}\n`);
    return EXIT.ok;
  }
  if (!Object.hasOwn(COMMANDS, name)) {
    io.stderr.write(`hookbox: unknown command "${name}" (commands: ${Object.keys(COMMANDS).filter((c) => !INTERNAL.has(c)).join(", ")}; see hookbox --help)\n`);
    return EXIT.usage;
  }
  const command = await COMMANDS[name]!();
  try {
    return await command.run(rest, io.stdout, io.signal, io.stderr);
  } catch (err) {
    // A launcher that refuses to start the agent (a project file leading out of the project) is a usage error too.
    if (err instanceof UsageError || err instanceof LaunchRefused) {
      io.stderr.write(`hookbox ${name}: ${err.message}\n(see hookbox ${name} --help)\n`);
      return EXIT.usage;
    }
    throw err;
  }
}

/** The process's stdout and stderr. */
export function processIO(): MainIO {
  const wrap = (s: NodeJS.WriteStream): Output => ({
    write: (t) => { s.write(t); },
    get isTTY() { return Boolean(s.isTTY); },
    get columns() { return s.columns; },
  });
  return { stdout: wrap(process.stdout), stderr: wrap(process.stderr) };
}
