/**
 * What the routers of `hookbox claude`, `codex` and `gemini`, which run the agents' command hooks
 * themselves, record by default in the audit log (src/observe/audit-log.ts) and as spans. Apart
 * from ./launch.ts, which `isolate()` imports: a command hook's identity and policy
 * (src/approval/command-hook.ts) are the routers' alone, and the agent does not load them at its start.
 */
import type { HookFailure } from "../contract/errors.js";
import { PROJECT_HOOK_POLICY } from "../approval/command-hook.js";
import { hookKey } from "../approval/keys.js";
import { defaultAuditLog } from "./audit-log.js";
import { allowOf } from "./allow.js";
import { Observer, toolOf } from "./observer.js";
import { contentValue, cutText, isOwnWords, type DecisionRecord } from "./record.js";

/** What the recorder reads of a routed hook (src/agents/dialect.ts `RoutedHook`, `RefusedRoutedHook`) and of its answer (`HookAnswer`). */
interface RoutedHook { source: string; file: string; at: string }
type HookAnswer = (
  | { kind: "ok"; output?: object; text?: string }
  | { kind: "block"; reason: string }
  | { kind: "failed"; failure: Pick<HookFailure, "code" | "message"> }
) & { approved?: string };

/**
 * Records of one event an agent's routing hook routes (src/agents/router.ts; `agent`: the row's
 * name in records, `failClosed`: its fail-closed events): `run` wraps each hook's run (all start
 * together) with its deadline, `refused` records the hooks that were not run. Appended to the audit
 * log, and spans when the process has an OpenTelemetry provider.
 */
export function hookRecorder(agent: string, failClosed: ReadonlySet<string>, project: string, event: string, input: Record<string, unknown>): {
  run<A extends HookAnswer>(hook: RoutedHook, limitMs: number, answer: Promise<A>): Promise<A>;
  refused(hooks: readonly (RoutedHook & { reason: string })[]): void;
} {
  const observer = new Observer(project);
  observer.agent = agent;
  // The router's stderr is what the agent reads as the hooks' answer: a log that cannot be written is said by the launcher at its start (launchProblems), not here.
  const audit = defaultAuditLog(process.env, () => {});
  if (audit) observer.listen((r) => audit.log.append(r), { content: audit.content });
  const started = performance.now();
  const tool = toolOf({ toolName: input.tool_name, toolCallId: input.tool_use_id });
  const base = (path: string, untrusted: boolean): DecisionRecord => ({
    v: 1, time: new Date(performance.timeOrigin + started).toISOString(), agent, project, hook: { path: cutText(path, 4000) }, event: cutText(event, 100),
    ...(tool ? { tool } : {}), isolation: untrusted ? "sandbox" : "as-user", ...(untrusted ? { policy: PROJECT_HOOK_POLICY } : {}), outcome: "allowed", blocked: false,
  });
  const failed = (record: DecisionRecord, failure: Pick<HookFailure, "code" | "message">) => {
    record.outcome = failure.code === "effect_refused" || failure.code === "not_approved" ? "refused" : "failed";
    record.code = failure.code;
    record.blocked = failClosed.has(event);
    if (isOwnWords(failure.code)) record.why = cutText(failure.message, 1_900);
    const allow = allowOf(failure, project, agent);
    if (allow) record.allow = allow;
  };
  return {
    async run<A extends HookAnswer>(hook: RoutedHook, limitMs: number, pending: Promise<A>): Promise<A> {
      const answer = await pending;
      const ended = performance.now();
      const record = base(hookKey(hook), hook.source !== "user");
      record.durationMs = Math.round((ended - started) * 1000) / 1000;
      if (answer.approved) record.hook!.hash = answer.approved;
      if (answer.kind === "failed") {
        failed(record, answer.failure);
        if (answer.failure.code === "timeout") record.limitMs = limitMs;
      } else if (answer.kind === "block" || saysNo(answer.output)) {
        record.outcome = "blocked";
        record.blocked = true;
        record.effect = "restrict";
      } else record.effect = "observe";
      if (audit?.content) record.content = { input: contentValue(input), output: contentValue(answer.kind === "ok" ? answer.output ?? answer.text : undefined), ...(answer.kind === "block" ? { reason: cutText(answer.reason, 8_192) } : answer.kind === "failed" ? { reason: cutText(answer.failure.message, 8_192) } : {}) };
      observer.emit(record, performance.timeOrigin + started, performance.timeOrigin + ended);
      return answer;
    },
    refused(hooks) {
      for (const r of hooks) {
        const record = base(hookKey(r), r.source !== "user");
        failed(record, { code: "load_failed", message: `${hookKey(r)} was not run: ${r.reason}` });
        observer.emit(record);
      }
    },
  };
}

/** A hook's JSON answer that says no, in any routed agent's words: a block or deny decision, a denied permission, a stop. */
function saysNo(answer: object | undefined): boolean {
  if (!answer) return false;
  const output = answer as Record<string, unknown>;
  const specific = output.hookSpecificOutput as { permissionDecision?: unknown; decision?: { behavior?: unknown } } | undefined;
  return output.decision === "block" || output.decision === "deny" || output.continue === false || specific?.permissionDecision === "deny" || specific?.decision?.behavior === "deny";
}
