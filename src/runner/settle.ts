/**
 * How one hook run's reply is applied to an emit, synchronously, once it arrived (the runner,
 * ./runner.ts, calls it once per run): its in-place edits checked, held to the hook's
 * policy.effects (./effects.ts) and applied to the caller's event; each handler's result
 * validated, gated and folded by the event's conflict rule (./dispatch.ts); a run whose reply never
 * came, and every fault, reported, a tool call blocked unless the hook fails open.
 */
import { terminalText } from "../gates/terminal-text.js";
import type { ConflictRule } from "./dispatch.js";
import { Errors, isSkip, type HookFailure } from "../contract/errors.js";
import type { HookUnit } from "./hook.js";
import type { EmitReply } from "../contract/protocol.js";
import { gateAgentResult } from "./agent-results.js";
import { describeIssues } from "../contract/schemas.js";
import { applyEdits, checkEdits } from "./edits.js";
import { gateEdits, gateResult, type Refusal } from "./effects.js";
import { ANNOTATE_MAX_CHARS } from "../../worker/effects.mjs";
import type { Effect } from "../policy/policy.js";
import { asThrownInToolCall, blocked, stepFailure } from "./handler-failures.js";
import type { StatsRecorder } from "./stats.js";
import { LIMITS, isMessageList } from "../../worker/wire.mjs";
import { keysAreSafe } from "../gates/safe-keys.js";

/** What an emit has folded so far. */
export interface Fold { acc: unknown }
/** A run of a hook failed (reported): its later handlers are not run in this emit. */
export const FAILED = Symbol("failed");

/** What settling needs of its runner: where a failure is reported, the stats, and the agent the modules run inside. */
export interface SettleHost {
  report(failure: HookFailure): void;
  readonly stats: StatsRecorder;
  agent(): { line: "pi" | "omp"; warn(hookPath: string, kind: string, line: string): void } | undefined;
}

export class Settler {
  readonly #host: SettleHost;

  constructor(host: SettleHost) {
    this.#host = host;
  }

  /** A run whose reply never came: reported; a tool call is blocked unless the hook fails open. */
  failed(unit: HookUnit, failure: HookFailure, toolCall: boolean): { value: unknown } | typeof FAILED {
    if (this.#fail(unit, failure, toolCall)) return { value: blocked(failure) };
    return FAILED;
  }

  /** Apply one run's reply (synchronous): its edits, then each handler's result through the rule. */
  reply(
    unit: HookUnit, rule: ConflictRule, event: Record<string, unknown> & { type: string }, input: Record<string, unknown> & { type: string }, reply: EmitReply,
    state: Fold, toolCall: boolean,
  ): { value: unknown } | undefined {
    const type = event.type;
    if (reply.edits) {
      const applied = this.#applyEdits(unit, type, rule, event, input, reply.edits, state.acc, toolCall);
      state.acc = applied.acc;
      // Why blocked: a hook that edits a tool call's input means to change what the tool runs. An
      // edit its policy does not grant blocks whatever the fault policy: running the agent's own
      // input instead would run what the hook meant to stop (fail closed).
      if (toolCall && applied.overGrant) return { value: blocked(applied.overGrant) };
      // An invalid one fails closed like an invalid result.
      if (toolCall && applied.refused && this.#failClosed(unit)) return { value: blocked(applied.refused) };
    }
    for (const step of reply.steps) {
      if (!step.ok) {
        const failure = stepFailure(unit, type, step.e);
        if (this.#fail(unit, failure, toolCall)) return { value: blocked(failure) };
        continue;
      }
      if (!step.r || rule.kind === "series") continue;
      const result = this.#validate(rule, unit, type, step.r);
      if (!result) {
        if (toolCall && this.#failClosed(unit)) return { value: blocked(Errors.invalidResult(unit.hook.path, type, describeIssues(rule.schema!.safeParse(step.r).error!))) };
        continue;
      }
      // A block reason is text the model and the user read: cut, then through the terminal-text gate (src/gates/terminal-text.ts).
      if (typeof result.reason === "string") result.reason = terminalText(result.reason.slice(0, LIMITS.maxBlockReason), { ...unit.hook.sandbox?.options.terminalText, multiline: true });
      // pi's own result gates (resource paths, a user bash output): src/runner/agent-results.ts.
      const gated = rule.gated ? gateAgentResult(type, result, unit.hook) : result;
      if (typeof gated === "string") {
        this.#host.report(Errors.invalidResult(unit.hook.path, type, gated));
        continue;
      }
      // What the hook's policy.effects grants of it (src/runner/effects.ts); the rest is refused.
      const granted = this.#granted(unit, type, gated, input);
      if (granted === undefined) continue;
      const next = rule.step(state.acc, granted as Record<string, unknown>, input);
      if (next.refused) this.#host.report(Errors.invalidResult(unit.hook.path, type, next.refused));
      state.acc = next.acc;
      if (next.done) return { value: state.acc };
    }
    if (reply.value !== undefined) {
      // The worker's copy is the host's alone: a list of agent messages whose keys pass the key
      // gate is used as is (what the schema accepts, without its copy of a 1 MiB list); anything
      // else is validated and reported.
      let messages: unknown;
      if (isMessageList(reply.value) && keysAreSafe(reply.value)) messages = reply.value;
      else messages = this.#validate(rule, unit, type, { messages: reply.value })?.messages;
      const granted = messages === undefined ? undefined : this.#granted(unit, type, { [rule.key!]: messages }, input);
      if (granted !== undefined) state.acc = (granted as Record<string, unknown>)[rule.key!] ?? state.acc;
    }
    return undefined;
  }

  /**
   * A hook's in-place edits, validated and applied to the caller's event, so the next hook and the
   * caller see them as in the original. In a waterfall whose value a hook already replaced, an
   * edit of `messages` edits that value. The first refused edit is returned (a tool call blocks on it).
   */
  #applyEdits(
    unit: HookUnit, type: string, rule: ConflictRule, event: Record<string, unknown>, received: Record<string, unknown>, edits: Record<string, unknown>,
    acc: unknown, toolCall: boolean,
  ): { acc: unknown; refused?: HookFailure; overGrant?: HookFailure } {
    const checked = checkEdits(edits, event);
    const failures = checked.refused.map((r) => Errors.invalidEdit(unit.hook.path, type, r.field, r.detail));
    for (const failure of failures) this.#host.report(failure);
    // Compared with what the hook received (in a waterfall, the value so far).
    const grant = this.#grant(unit);
    const { valid, refused, annotated } = grant === "substitute" ? { valid: checked.valid, refused: [], annotated: undefined } : gateEdits(type, checked.valid, received, grant);
    if (annotated) this.#annotated(unit, type, annotated.map((f) => `event.${f}`));
    const over = refused.map((r) => this.#refusal(unit, type, `event.${r.field}`, r, grant, toolCall ? "the tool call was blocked" : "the agent's own value was kept"));
    if (toolCall && over.length > 0) return { acc, overGrant: over[0] };
    if (rule.kind === "waterfall" && acc !== undefined && Object.hasOwn(valid, "messages")) {
      acc = valid.messages;
      delete valid.messages;
    }
    applyEdits(event, valid);
    return { acc, refused: failures[0] };
  }

  /**
   * Report a failure; true when the tool call must be blocked. A handler error in `tool_call`
   * propagates to the caller as the original does; every other fault is reported and, in
   * `tool_call`, blocks unless the hook's policy is fail-open.
   */
  #fail(unit: HookUnit, failure: HookFailure, toolCall: boolean): boolean {
    if (toolCall && failure.code === "handler_threw") {
      this.#host.stats.error(failure.hookPath, failure.code);
      throw asThrownInToolCall(failure);
    }
    if (this.#shouldReport(failure)) this.#host.report(failure);
    return toolCall && this.#failClosed(unit);
  }

  #validate(rule: ConflictRule, unit: HookUnit, type: string, value: unknown): Record<string, unknown> | undefined {
    const ignored = this.#host.agent() ? rule.ignoredKeys(this.#host.agent()!.line, value) : [];
    if (ignored.length > 0) value = this.#dropIgnored(unit, type, value as Record<string, unknown>, ignored);
    const parsed = rule.schema!.safeParse(value);
    if (parsed.success) return parsed.data as Record<string, unknown>;
    this.#host.report(Errors.invalidResult(unit.hook.path, type, describeIssues(parsed.error)));
    return undefined;
  }

  /** `result` without the keys the agent ignores; each said once (the rest is validated as before). */
  #dropIgnored(unit: HookUnit, type: string, result: Record<string, unknown>, ignored: string[]): Record<string, unknown> {
    const { line, warn } = this.#host.agent()!;
    const agent = line === "omp" ? "oh-my-pi" : "pi";
    for (const key of ignored) {
      const name = JSON.stringify(key.slice(0, 64));
      warn(unit.hook.path, `ignored:${type}:${key.slice(0, 64)}`,
        `hookbox: ${unit.hook.path}: the result of its ${type} handler has the key ${name}, which ${agent} ignores in its process: dropped, as ${agent} drops it (the rest of the result is used)`);
    }
    return Object.fromEntries(Object.entries(result).filter(([k]) => !ignored.includes(k)));
  }

  /** A disabled hook was reported once, by its sandbox, when it was disabled; skips are not reported again. */
  #shouldReport(failure: HookFailure): boolean {
    return !isSkip(failure.code);
  }

  /** The highest effect `unit` may have on the agent: its policy's; a hand-built in-process hook's is the original's. */
  #grant(unit: HookUnit): Effect {
    return unit.hook.sandbox?.options.policy.effects ?? "substitute";
  }

  /** `result` (valid) as far as the hook's policy.effects grants it, or undefined when nothing of it applies; each refused field is reported. */
  #granted(unit: HookUnit, type: string, result: unknown, received: Record<string, unknown>): unknown {
    const grant = this.#grant(unit);
    // The common grant passes everything: the rules are not even looked up.
    if (grant === "substitute") return result;
    const gated = gateResult(type, result, received, grant);
    for (const r of gated.refused) this.#refusal(unit, type, r.field === "payload" && type === "before_provider_request" ? "the request's payload" : `result.${r.field}`, r, grant, "the agent's own value was kept");
    if (gated.annotated) this.#annotated(unit, type, gated.annotated.map((f) => `result.${f}`));
    return gated.result;
  }

  /**
   * Context a hook under `annotate` added to what the model reads: shown to the person once per
   * module and event inside an agent (the agent's UI or stderr), so what the model reads beside the
   * agent's own is never unsaid.
   */
  #annotated(unit: HookUnit, type: string, fields: string[]): void {
    this.#host.agent()?.warn(unit.hook.path, `annotate:${type}`, `hookbox: ${unit.hook.path} adds context the model reads (effects:annotate): ${fields.join(", ")} during ${type}, at most ${ANNOTATE_MAX_CHARS} characters each; shown once`);
  }

  #refusal(unit: HookUnit, type: string, field: string, r: Refusal, grant: Effect, kept: string): HookFailure {
    const failure = Errors.effectRefused(unit.hook.path, type, field, r.effect, grant, kept);
    this.#host.report(failure);
    return failure;
  }

  #failClosed(unit: HookUnit): boolean {
    return (unit.hook.sandbox?.options.toolCallFailure ?? unit.hook.toolCallFailure) !== "open";
  }
}
