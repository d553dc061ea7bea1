/**
 * What differs between the agents whose command hooks hookbox routes (`hookbox gemini`; Claude Code
 * keeps its own module, src/claude/): one row per agent, read from that agent's pinned version.
 * The router (src/agents/router.ts) and the launchers read rows; they hold no branch per agent.
 */
import type { z } from "zod";

/** One command hook of the user's or the project's settings, as the router runs it. */
export interface AgentHook {
  /** "user": the user's own settings (run as the user); anything else is the project's (approved, sandboxed). */
  source: "user" | "project";
  /** The settings file that defines it. */
  file: string;
  /** Where in that file: `hooks.<event>[i].hooks[j]`. */
  at: string;
  event: string;
  matcher?: string;
  command: string;
  timeoutMs: number;
  /** The name the agent knows it by (its `name`, else its command). */
  name: string;
  /** Variables the definition sets for the hook. */
  env?: Record<string, string>;
}

/** A hook the settings define that hookbox does not run, with the reason (named, never dropped silently). */
export interface RefusedAgentHook { source: AgentHook["source"]; file: string; at: string; event: string; matcher?: string; name: string; reason: string }

/** The answer a field of a project hook's output would have, above `restrict`. */
export interface Substitution { name: string; why: string }

/** How the router's merged verdict is written back to the agent: its exit status, stdout and stderr. */
export interface AgentReply { code: number; stdout: string; stderr: string }

export interface Dialect<Output = Record<string, unknown>> {
  /** The agent's name in messages ("Gemini CLI"). */
  agent: string;
  /** Its program on PATH and the hookbox subcommand that launches it. */
  program: string;
  /** Its npm package, whose version is read at start. */
  packageName: string;
  /** The versions whose hook contract this row was read from; any other is refused at start. */
  versions: readonly string[];
  /** A hook's `timeout` in milliseconds per unit (1 for ms, 1000 for seconds), and the deadline of one without. */
  timeoutUnitMs: number;
  defaultTimeoutMs: number;
  /** Every hook event the agent has. */
  events: readonly string[];
  /** Events whose matcher tests an input field, and how (a regular expression, or the exact string). */
  matchers: Readonly<Record<string, { field: string; regex: boolean }>>;
  /** Events where a failed hook blocks (fail closed). */
  failClosed: ReadonlySet<string>;
  /** Events where saying no stops something; elsewhere it makes the agent go on or feeds the model text. */
  blockStops: ReadonlySet<string>;
  /** The JSON a hook may print, as the agent defines it (strict: an unknown field is refused, named). */
  output: z.ZodType<Output>;
  /** The first field of a project hook's output above `restrict` (it may block, deny, stop, with a reason). */
  substitution(event: string, output: Output): Substitution | undefined;
  /** How the agent reads a hook's exit status other than 0: "block" (a deny with stderr as the reason). */
  exitBlocks: ReadonlySet<number>;
  /** Variables the agent gives every hook the project folder in. */
  projectDirVars: readonly string[];
  /** Merge the hooks' JSON answers into one, by the agent's rules. */
  merge(outputs: Output[], join: (values: Array<string | undefined>, reasons?: boolean) => string | undefined): Output;
  /** Write a verdict: blocked with a reason, or the merged answer (and failures that did not block). */
  reply(verdict: { blocked: string } | { output?: Output; warnings: string[] }): AgentReply;
}
