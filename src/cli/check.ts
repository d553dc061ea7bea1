/**
 * `hookbox check <hook…>`: load each hook in its sandbox and print what it registered (events,
 * commands, renderers) and every load error with its code. Exit 1 on any load error.
 */
import type { LoadedHook } from "../runner/hook.js";
import { closestEventTypes, isEventType } from "./events.js";
import { openHost, settle } from "./host.js";
import { errorLine, type Output } from "./render.js";
import { COMMON_HELP, EXIT, hostOptions, readCommand } from "./usage.js";

export const CHECK_HELP = `Usage: hookbox check <hook…> [--json]

Load each hook in its own worker and print what it registered: event handlers (with how many per
event), slash commands with their descriptions, and message renderers. An event name that is not
in the contract (a typo such as "tool_cal") is warned about with the closest known name. Every hook
that fails to load is listed with its error code. Exits 1 if any hook failed to load (or, with
--fail-on-error, had a warning).

${COMMON_HELP}

Examples (examples/ ships in the package):
  hookbox check examples/hooks/notes-command.ts
  hookbox check examples/hooks/*.ts --json
  hookbox check .xcsh/hooks/*.ts --policy trusted
`;

interface Registered {
  path: string;
  ok: true;
  /** Event names the hook listens to that are not in the contract: its handlers never run. */
  warnings: string[];
  events: Record<string, number>;
  commands: Array<{ name: string; description?: string }>;
  renderers: string[];
}
interface Failed { path: string; ok: false; code: string; error: string }

function registered(hook: LoadedHook): Registered {
  return {
    path: hook.path,
    ok: true,
    warnings: [...hook.handlers.keys()].filter((t) => !isEventType(t)).map((t) => {
      const close = closestEventTypes(t);
      return `"${t}" is not an event of the hook contract, so its handler never runs${close.length ? `: did you mean ${close.join(", ")}?` : ""}`;
    }),
    events: Object.fromEntries([...hook.handlers].map(([type, handlers]) => [type, handlers.length])),
    commands: [...hook.commands.values()].map((c) => (c.description === undefined ? { name: c.name } : { name: c.name, description: c.description })),
    renderers: [...hook.messageRenderers.keys()],
  };
}

/** Run `check`; returns the exit code. */
export async function check(args: string[], out: Output): Promise<number> {
  const command = readCommand(args, {}, CHECK_HELP, out);
  if (command === undefined) return EXIT.ok;
  const { values, paths } = command;
  const options = hostOptions(values);
  const host = await openHost(paths, options);
  try {
    await settle();
    const loaded = new Map(host.runner.getHooks().map((h) => [h.path, registered(h)]));
    const failed = new Map(host.loadErrors.map((e): [string, Failed] => [e.path, { path: e.path, ok: false, code: e.code, error: e.error }]));
    const report = paths.map((p) => loaded.get(p) ?? failed.get(p)!);
    const ok = host.loadErrors.length === 0;
    if (values.json) {
      out.write(`${JSON.stringify({ ok, hooks: report }, null, 2)}\n`);
    } else {
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
  for (const w of r.warnings) lines.push(`    warning:   ${w}`);
  return `${lines.join("\n")}\n`;
}
