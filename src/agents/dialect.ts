/**
 * What differs between the agents whose command hooks hookbox routes, one row per agent, read from
 * that agent's pinned version: Claude Code (src/claude/dialect.ts), Codex CLI (./codex.ts), Gemini
 * CLI (./gemini.ts). The router (./router.ts) reads a `Dialect` row and holds no branch per agent.
 * Codex's and Gemini's hooks are plain command hooks (`CommandDialect`): their rows are data, and
 * the routing members come from ./command-hooks.ts. Claude Code's row routes with Claude Code's own
 * rules: its matching and `if` rules, its reading of a hook's end, its grants and recording layer.
 */
import type { z } from "zod";
import type { HookFailure } from "../contract/errors.js";
import type { Fingerprint, PinReader } from "../approval/store.js";
import type { Plan } from "./plan.js";

/** What the router reads of a hook, whichever agent defines it. */
export interface RoutedHook {
  /** "user": the user's own settings (run as the user); anything else is the project's (approved, sandboxed). */
  source: string;
  /** The settings file that defines it, and where in it (`hooks.<event>[i].hooks[j]`). */
  file: string;
  at: string;
  event: string;
  matcher?: string;
  command: string;
  /** Runs once per session (Claude Code's `once`; the other agents have no such field). */
  once?: true;
}

/** A hook the settings define that hookbox does not run, with the reason (named, never dropped silently). */
export interface RefusedRoutedHook { source: string; file: string; at: string; event: string; matcher?: string; reason: string }

/** What a launcher hands every routing run (./plan.ts, where the plans of the three launchers are written and checked). */
export type RoutePlan<Hook extends RoutedHook = RoutedHook> = Plan<Hook, RefusedRoutedHook>;

/** One hook's end as the router reads it; `notices`: what the sandbox refused a hook that still answered; `approved`: the digest of the approval it ran under. */
export type HookAnswer<Output> = (
  | { kind: "ok"; output?: Output; text?: string }
  | { kind: "block"; reason: string }
  | { kind: "failed"; failure: HookFailure }
) & { notices?: string[]; approved?: string };

/** How the router's merged verdict is written back to the agent: its exit status, stdout and stderr. */
export interface AgentReply { code: number; stdout: string; stderr: string }

/** The router's row of one agent. */
export interface Dialect<Output = Record<string, unknown>, Hook extends RoutedHook = RoutedHook, Plan extends RoutePlan<Hook> = RoutePlan<Hook>> {
  /** The agent's name in messages ("Gemini CLI"). */
  agent: string;
  /** Its name in decision records (`agent`: "claude", "codex", "gemini"). */
  recordAs: string;
  /** The hookbox command that launches it (`hookbox codex`); its routing hook runs `hookbox <launcher>-hook <plan> <sha256>` (./routing-hook.ts). */
  launcher: string;
  /** Every hook event the agent has. */
  events: readonly string[];
  /** Events where a failed hook blocks (fail closed). */
  failClosed: ReadonlySet<string>;
  /** Variables the agent gives every hook the project folder in (an approval's parse knows them: src/approval/command-pins.ts). */
  projectDirVars: readonly string[];
  /** How to write a project hook's command that can be approved, in the agent's own terms: said when one cannot be approved as it stands. */
  approvableForm: string;
  /** The hooks (or refused hooks) of `event` the agent's matching selects for this input. */
  select<S extends RefusedRoutedHook | Hook>(hooks: readonly S[], event: string, input: Record<string, unknown>): S[];
  /** A hook's deadline in milliseconds. */
  timeoutMs(hook: Hook): number;
  /** How messages name a hook. */
  label(hook: Hook | RefusedRoutedHook): string;
  /** What an approval of a project's hook pins (`hookbox trust`); throws a FingerprintError when it cannot be approved as it stands. */
  fingerprint(project: string, hook: Hook, reader?: PinReader): Promise<Fingerprint>;
  /** Run one of the user's hooks, as the user. */
  runUser(plan: Plan, hook: Hook, event: string, raw: string, signal: AbortSignal): Promise<HookAnswer<Output>>;
  /** Run one of the project's hooks, once approved: sandboxed, held to `restrict` (and its grants, where the agent has them). */
  runProject(plan: Plan, hook: Hook, event: string, input: Record<string, unknown>, raw: string, signal: AbortSignal): Promise<HookAnswer<Output>>;
  /** One answer for the agent from every hook's, and the refused hooks' reasons, by the agent's rules. */
  answer(event: string, answers: HookAnswer<Output>[], refused: string[]): AgentReply;
  /** The answer as the routing process writes it (where the agent reads a block better in another form than `answer`'s). */
  written(event: string, reply: AgentReply): AgentReply;
  /** The answer when the router itself failed (`message` says why): blocked on a fail-closed event, elsewhere a warning. */
  routerFailed(event: string, message: string): AgentReply;
}

/** One command hook of the user's or the project's settings of a command-hook agent (Codex CLI, Gemini CLI). */
export interface AgentHook extends RoutedHook {
  source: "user" | "project";
  timeoutMs: number;
  /** The name the agent knows it by (its `name`, else its command). */
  name: string;
  /** Variables the definition sets for the hook. */
  env?: Record<string, string>;
}

/** A hook of such an agent's settings that hookbox does not run. */
export interface RefusedAgentHook extends RefusedRoutedHook { source: AgentHook["source"]; name: string }

/** What the launchers of command-hook agents hand the router. */
export type AgentPlan = RoutePlan<AgentHook> & { refused: RefusedAgentHook[] };

/** The answer a field of a project hook's output would have, above `restrict`. */
export interface Substitution { name: string; why: string }

/** The row of a command-hook agent: its data, read by ./command-hooks.ts's routing members and by the launchers. */
export interface CommandDialect<Output = Record<string, unknown>> extends Dialect<Output, AgentHook, AgentPlan> {
  /** Its program on PATH. */
  program: string;
  /** Its npm package, whose version is read at start. */
  packageName: string;
  /** The versions whose hook contract this row was read from; any other is refused at start. */
  versions: readonly string[];
  /** A hook's `timeout` in milliseconds per unit (1 for ms, 1000 for seconds), and the deadline of one without. */
  timeoutUnitMs: number;
  defaultTimeoutMs: number;
  /** Events whose matcher tests an input field, and how (a regular expression, or the exact string). */
  matchers: Readonly<Record<string, { field: string; regex: boolean }>>;
  /** Events where saying no stops something; elsewhere it makes the agent go on or feeds the model text. */
  blockStops: ReadonlySet<string>;
  /** The JSON a hook may print, as the agent defines it (strict: an unknown field is refused, named). */
  output: z.ZodType<Output>;
  /** Where the agent takes a narrower answer on some events (a field another event takes makes it discard the whole answer): that event's schema. */
  eventOutput?: Readonly<Partial<Record<string, z.ZodType<Output>>>>;
  /** The first field of a project hook's output above `restrict` (it may block, deny, stop, with a reason). */
  substitution(event: string, output: Output): Substitution | undefined;
  /** How the agent reads a hook's exit status other than 0: "block" (a deny with stderr as the reason). */
  exitBlocks: ReadonlySet<number>;
  /** Merge the hooks' JSON answers into one, by the agent's rules. */
  merge(outputs: Output[], join: (values: Array<string | undefined>, reasons?: boolean) => string | undefined): Output;
  /** Write a verdict: blocked with a reason, or the merged answer (and failures that did not block). */
  reply(verdict: { blocked: string } | { output?: Output; warnings: string[] }): AgentReply;
}
