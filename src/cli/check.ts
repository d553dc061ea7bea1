/**
 * `hookbox check <hook…>`: load each hook in its sandbox and print what it registered (events,
 * commands, renderers) and every load error with its code. Exit 1 on any load error.
 */
import type { LoadedHook } from "../runner/hook.js";
import { agentEvents, agentRegistrations, isAgentEvent } from "./agent.js";
import { closestEventTypes } from "./events.js";
import { openHost, settle, type CliHost } from "./host.js";
import { errorLine, type Output } from "./render.js";
import { COMMON_FLAGS, EXIT, POLICY_SECTION, command, hostOptions, readCommand } from "./usage.js";

export const CHECK = command("check", {
  usage: "Usage: hookbox check <hook…> [--agent hooks|pi|omp] [--json]",
  about: `Load each hook in its own worker and print what it registered: event handlers (with how many per
event), slash commands with their descriptions, and message renderers; for pi's and oh-my-pi's
extensions also tools, flags and shortcuts. Under the hook contract an event name that is not in it
(a typo such as "tool_cal") is warned about with the closest known name; under --agent pi or omp a
module the agent would refuse (an event it does not have, a registration hookbox/extension cannot
carry or its policy does not allow) fails to load here too, with the agent's words. Every hook
that fails to load is listed with its error code. Exits 1 if any hook failed to load (or, with
--fail-on-error, had a warning).`,
  sections: [{ title: "Options:", flags: COMMON_FLAGS }, POLICY_SECTION],
  tail: `Examples (examples/ ships in the package):
  hookbox check examples/hooks/notes-command.ts
  hookbox check examples/hooks/*.ts --json
  hookbox check .pi/extensions/guard.ts --agent pi
  hookbox check .xcsh/hooks/*.ts --policy trusted
`,
});
export const CHECK_HELP = CHECK.help;

interface Registered {
  path: string;
  ok: true;
  /** Under pi and oh-my-pi: what the module registered only an agent serves. */
  tools?: Array<{ name: string; description?: string }>;
  flags?: Array<{ name: string; description?: string }>;
  shortcuts?: Array<{ key: string; description?: string }>;
  /** Event names the hook listens to that are not in the contract: its handlers never run. */
  warnings: string[];
  events: Record<string, number>;
  commands: Array<{ name: string; description?: string }>;
  renderers: string[];
}
interface Failed { path: string; ok: false; code: string; error: string }

function registered(hook: LoadedHook, agent: CliHost["agent"]): Registered {
  return {
    ...(agent === "hooks" ? {} : agentRegistrations(hook)),
    path: hook.path,
    ok: true,
    // Under pi and oh-my-pi a module subscribing to an event the agent lacks is refused (src/cli/agent.ts `screen`).
    warnings: [...hook.handlers.keys()].filter((t) => !isAgentEvent(agent, t)).map((t) => {
      const close = closestEventTypes(t, agentEvents(agent));
      const other = isAgentEvent("pi", t) ? " (it is pi's: --agent pi)" : "";
      return `"${t}" is not an event of the hook contract, so its handler never runs${close.length ? `: did you mean ${close.join(", ")}?` : ""}${other}`;
    }),
    events: Object.fromEntries([...hook.handlers].map(([type, handlers]) => [type, handlers.length])),
    commands: [...hook.commands.values()].map((c) => (c.description === undefined ? { name: c.name } : { name: c.name, description: c.description })),
    renderers: [...hook.messageRenderers.keys()],
  };
}

/** Run `check`; returns the exit code. */
export async function check(args: string[], out: Output): Promise<number> {
  const read = readCommand(args, CHECK, out);
  if (read === undefined) return EXIT.ok;
  const { values, paths } = read;
  const options = hostOptions(values);
  const host = await openHost(paths, options);
  try {
    await settle();
    const loaded = new Map(host.runner.getHooks().map((h) => [h.path, registered(h, host.agent)]));
    const failed = new Map(host.loadErrors.map((e): [string, Failed] => [e.path, { path: e.path, ok: false, code: e.code, error: e.error }]));
    const report = paths.map((p) => loaded.get(p) ?? failed.get(p)!);
    const ok = host.loadErrors.length === 0;
    if (values.json) {
      out.write(`${JSON.stringify({ ok, agent: host.agent, ...(host.inferred ? { inferred: host.inferred } : {}), hooks: report }, null, 2)}\n`);
    } else {
      if (host.agent !== "hooks") out.write(`agent: ${host.agent}${host.inferred ? ` (inferred: ${host.inferred}; --agent chooses)` : ""}\n`);
      for (const r of report) out.write(r.ok ? describe(r) : `✗ ${r.path}\n${errorLine({ code: r.code as never, hookPath: r.path, event: "load", error: r.error })}`);
      const n = report.length;
      out.write(`\n${n} hook${n === 1 ? "" : "s"}: ${n - failed.size} loaded, ${failed.size} failed\n`);
    }
    const warned = report.some((r) => r.ok && r.warnings.length > 0);
    return ok && !(options.failOnError && warned) ? EXIT.ok : EXIT.hookErrors;
  } finally {
    await host.dispose();
  }
}

function describe(r: Registered): string {
  const events = Object.entries(r.events).map(([t, n]) => (n === 1 ? t : `${t} ×${n}`));
  const lines = [`✓ ${r.path}`];
  lines.push(`    events:    ${events.length ? events.join(", ") : "-"}`);
  if (r.commands.length === 0) lines.push("    commands:  -");
  r.commands.forEach((c, i) => lines.push(`${i === 0 ? "    commands:  " : "               "}/${c.name}${c.description ? `  ${c.description}` : ""}`));
  lines.push(`    renderers: ${r.renderers.length ? r.renderers.join(", ") : "-"}`);
  const described = (label: string, list: Array<{ name?: string; key?: string; description?: string }> | undefined, prefix = "") => {
    if (list === undefined) return;
    if (list.length === 0) lines.push(`    ${label.padEnd(11)}-`);
    list.forEach((x, i) => lines.push(`${i === 0 ? `    ${label.padEnd(11)}` : "               "}${prefix}${x.name ?? x.key}${x.description ? `  ${x.description}` : ""}`));
  };
  described("tools:", r.tools);
  described("flags:", r.flags, "--");
  described("shortcuts:", r.shortcuts);
  for (const w of r.warnings) lines.push(`    warning:   ${w}`);
  return `${lines.join("\n")}\n`;
}
