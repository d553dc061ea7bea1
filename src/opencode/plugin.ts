/**
 * The one plugin `hookbox opencode` lets opencode import (from its generated OPENCODE_CONFIG_DIR).
 * It runs in opencode's own process, on Bun, and runs every plugin opencode would have loaded
 * (the plan's, in opencode's order) each in its own process (./unit.ts): the user's as the user,
 * the project's only as approved (`hookbox trust`), in the sandbox, with `restrict` effects. It
 * answers opencode with one hook per name any plugin returned, which calls each plugin's in
 * order, as opencode's trigger loop does, with a deadline, and applies what comes back by the
 * hook's row (./hooks.ts, ./apply.ts). A plugin that failed (not approved, did not load, crashed,
 * timed out, answered what its schema refuses) blocks every tool call it would have seen.
 */
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { HookFailure } from "../contract/errors.js";
import { below } from "../gates/inside.js";
import { applyEdits, type Grant } from "./apply.js";
import { isOpencodeHook, NOT_CARRIED, OPENCODE_HOOKS, type OpencodeHook } from "./hooks.js";
import { LOAD_DEADLINE_MS, type OpencodePlan } from "./plan.js";
import { OpencodeUnit } from "./unit.js";
import type { PluginUnit } from "./discovery.js";

type Hooks = Record<string, (input: unknown, output?: Record<string, unknown>) => Promise<void>>;

interface Running {
  unit: PluginUnit;
  name: string;
  grant: Grant;
  process?: OpencodeUnit;
  hooks: Set<OpencodeHook>;
  /** Why it cannot take calls (not approved, load failed): every tool call blocks. */
  failed?: HookFailure;
}

const say = (line: string) => process.stderr.write(`hookbox opencode: ${line}\n`);
const describe = (f: HookFailure) => `${f.message} (${f.code})`;
/** Faults outside tool calls, reported once per plugin, hook and code (a dead plugin would otherwise be named on every bus event). */
const reported = new Set<string>();
const reportOnce = (f: HookFailure) => {
  const key = `${f.hookPath}\0${f.event}\0${f.code}`;
  if (reported.has(key)) return;
  reported.add(key);
  say(describe(f));
};
const shortName = (plan: OpencodePlan, path: string) => below(plan.project, path) || path;

async function start(plan: OpencodePlan, unit: PluginUnit, input: Record<string, unknown>): Promise<Running> {
  const name = shortName(plan, unit.path);
  const running: Running = { unit, name, grant: unit.origin === "project" ? "restrict" : "substitute", hooks: new Set() };
  if (unit.kind === "npm") {
    say(`the npm plugin ${unit.path} (${unit.from}) is not loaded: hookbox opencode runs plugin files only`);
    return running;
  }
  // The launcher checked the approval (the plugin files are hidden in here); a project's plugin without one never starts.
  if (unit.origin === "project" && (unit.refusal || unit.kind !== "file")) {
    running.failed = new HookFailure("not_approved", unit.path, "load", unit.refusal?.message ?? `${name} was not approved`);
    say(describe(running.failed));
    return running;
  }
  const load = unit.load ?? unit.path;
  const child = new OpencodeUnit({ path: unit.path, name, sandboxed: unit.origin === "project", bun: plan.bun, child: plan.child, project: plan.project, reads: [dirname(load)], log: say });
  running.process = child;
  try {
    const loaded = (await child.request("load", "load", { path: load, input, options: unit.options }, LOAD_DEADLINE_MS)) as { hooks?: unknown };
    for (const hook of Array.isArray(loaded?.hooks) ? loaded.hooks : []) {
      if (typeof hook !== "string") continue;
      if (Object.hasOwn(NOT_CARRIED, hook)) say(`${name}'s "${hook}" hook is not run: ${NOT_CARRIED[hook]}`);
      else if (!isOpencodeHook(hook)) say(`${name}'s "${hook.slice(0, 80)}" hook is not one opencode 1.18.33 calls: not run`);
      else if (OPENCODE_HOOKS[hook].offered === "trusted" && running.grant !== "substitute") say(`${name}'s "${hook}" hook is not offered to a project's plugin (a substitute of what every command runs with) (effect_refused)`);
      else running.hooks.add(hook);
    }
  } catch (e) {
    const failure = e instanceof HookFailure ? e : new HookFailure("load_failed", unit.path, "load", String(e));
    running.failed = failure.code === "handler_threw" ? new HookFailure("load_failed", unit.path, "load", `${name} failed to load: ${failure.message}`) : failure;
    say(describe(running.failed));
  }
  return running;
}

/** One hook for opencode: each plugin's in order; a tool.execute.before failure blocks (throws). */
function trigger(plan: OpencodePlan, all: Running[], hook: OpencodeHook) {
  const row = OPENCODE_HOOKS[hook];
  return async (input: unknown, output?: Record<string, unknown>) => {
    for (const r of all) {
      const blocks = row.failure === "block";
      if (r.failed || !r.process) {
        if (blocks && r.failed) throw new Error(`hookbox blocked this tool call: ${describe(r.failed)}`);
        continue;
      }
      if (!r.hooks.has(hook)) continue;
      const call = r.process.request("call", hook, { input, output: output ?? {} }, plan.deadlineMs);
      if (!row.awaited) {
        call.catch((e: unknown) => (e instanceof HookFailure ? reportOnce(e) : say(String(e))));
        continue;
      }
      let edited: unknown;
      try {
        edited = await call;
      } catch (e) {
        const f = e instanceof HookFailure ? e : new HookFailure("crashed", r.unit.path, hook, String(e));
        // A plugin's own throw is its answer: in a tool call it is the block, with its message, as in opencode.
        if (f.code === "handler_threw" && blocks) throw new Error(f.message);
        if (blocks) throw new Error(`hookbox blocked this tool call: ${describe(f)}`);
        reportOnce(f);
        continue;
      }
      if (!output) continue;
      try {
        const { refused } = applyEdits(r.unit.path, hook, r.grant, output, edited);
        if (refused.length > 0 && blocks) throw new Error(`hookbox blocked this tool call: ${refused.map(describe).join(" ")}`);
        for (const f of refused) reportOnce(f);
      } catch (e) {
        if (!(e instanceof HookFailure)) throw e;
        if (blocks) throw new Error(`hookbox blocked this tool call: ${describe(e)}`);
        reportOnce(e);
      }
    }
  };
}

const server = async (input: { project?: unknown; directory?: string; worktree?: string; serverUrl?: URL }): Promise<Hooks> => {
  const planFile = process.env.HOOKBOX_OPENCODE_PLAN;
  if (!planFile) throw new Error("hookbox's opencode plugin runs only under `hookbox opencode` (HOOKBOX_OPENCODE_PLAN is not set)");
  const plan = JSON.parse(readFileSync(planFile, "utf8")) as OpencodePlan;
  const data = { project: input.project, directory: input.directory, worktree: input.worktree, serverUrl: String(input.serverUrl ?? "http://localhost:4096") };
  const all = await Promise.all(plan.plugins.map((unit) => start(plan, unit, data)));
  const end = () => { for (const r of all) r.process?.kill(); };
  process.on("exit", end);
  // opencode's instance finalizer: the plugins' processes end with it (a hanging one would keep opencode's event loop alive).
  const hooks: Hooks = { dispose: async () => end() };
  const failedAny = all.some((r) => r.failed);
  for (const hook of Object.keys(OPENCODE_HOOKS) as OpencodeHook[]) {
    if (all.some((r) => r.hooks.has(hook)) || (hook === "tool.execute.before" && failedAny)) hooks[hook] = trigger(plan, all, hook);
  }
  return hooks;
};

export default { id: "hookbox", server };
