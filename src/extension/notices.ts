/**
 * What hookbox refused a module (a program, a host, an effect; for a project's module a write the
 * permission model denied too), shown once to the person running the agent, naming the policy
 * field that grants it, or for a project's module (isolateDiscovered) ending with the exact
 * `npx hookbox trust <project> --grant …` line: the module's own handling of the refusal (a block,
 * a fallback) reaches only the model, and a refusal repeated on every tool call is one line, not
 * one per call. Lines wait until the agent's context is known (a refusal may come at load).
 */
import { below } from "../gates/inside.js";
import { terminalText } from "../gates/terminal-text.js";
import type { LoadOptions } from "../runner/loader.js";
import { cut } from "../../worker/describe.mjs";
import { deniedLine } from "../../worker/access.mjs";
import { parseGrant } from "../policy/grants.js";

type ExecRecord = Parameters<NonNullable<LoadOptions["onExec"]>>[1];
type NetRecord = Parameters<NonNullable<LoadOptions["onNet"]>>[1];
type DeniedRecord = Parameters<NonNullable<LoadOptions["onDenied"]>>[1];

/** The `write:<folder>` grant that opens `resource` (its first folder below the project), or undefined when none may. */
function writeGrant(project: string, resource: string): string | undefined {
  const parts = below(project, resource)?.split("/") ?? [];
  const first = parts[0];
  if (!first) return undefined;
  // A file of the project's own folder is no folder to grant (a name with a dot is taken for a file).
  if (parts.length === 1 && first.includes(".")) return undefined;
  try {
    return parseGrant(`write:${first}`, project).text;
  } catch {
    return undefined;
  }
}

/**
 * Distinct notices one module may cause. Why a bound: a refused program or host is a name the
 * module chooses, so a module naming a new one per call would otherwise flood the person's screen
 * and grow the set of what was shown without end.
 */
export const MAX_NOTICES_PER_MODULE = 16;
/** How much of a name the module chose (a program, a host) a notice quotes (the refusal's own text, which quotes it too: twice that). */
const MAX_NAME_CHARS = 200;

/**
 * A project's modules, whose approval grants what their policy lacks (isolateDiscovered): the
 * project's real path, the modules, and the exact command that gives them a grant
 * (`npx hookbox trust <project> --grant …`).
 */
export interface ProjectGrants {
  project: string;
  modules: ReadonlySet<string>;
  command(grant: string): string;
  /** Keep `grant` as one `hookPath` was seen to need (`hookbox trust` proposes it). */
  record?(hookPath: string, grant: string): void;
}

export class Notices {
  readonly #grants: ProjectGrants | undefined;
  constructor(grants?: ProjectGrants) {
    this.#grants = grants;
  }

  #grantLine(hookPath: string, grant: string): string | undefined {
    if (!this.#grants?.modules.has(hookPath)) return undefined;
    try { this.#grants.record?.(hookPath, grant); } catch { /* a store that cannot be written: the line still says it */ }
    return this.#grants.command(grant);
  }

  /**
   * `line`, a refusal the grant `grant` would allow, ending with the command that gives it where
   * the module is a project's (its approval grants, not its options); else with `otherwise`.
   */
  #granting(hookPath: string, line: string, grant: string | undefined, otherwise: string): string {
    const command = grant === undefined ? undefined : this.#grantLine(hookPath, grant);
    return command === undefined ? `${line} ${otherwise}`.trimEnd() : `${line} Approve the module with the grant ${grant}: ${command}`;
  }

  /**
   * An `effect_refused` fault, once per module and event; a project's module's ends with the command
   * that grants an annotation, or says that no grant gives it the effect (a substitute).
   */
  effect(hookPath: string, event: string, line: string): void {
    const effect = /policy\.effects: "(\w+)" grants it/.exec(line)?.[1];
    this.show(hookPath, `${event}:effect_refused`, () => (!this.#grants?.modules.has(hookPath) ? line
      : effect === "annotate" ? this.#granting(hookPath, line, "effects:annotate", "")
      : `${line} No grant gives a project's module ${effect === undefined ? "this effect" : `a ${effect} effect`}.`));
  }

  readonly #seen = new Set<string>();
  readonly #perModule = new Map<string, number>();
  #pending: string[] = [];
  #sink: ((line: string) => void) | undefined;

  /**
   * Show `line` once per module and `kind`, at most MAX_NOTICES_PER_MODULE per module (then one
   * line saying the rest are not shown); gated as terminal text (it may quote a name the module chose).
   * A function is called only when the line is shown: a module repeating a refusal (or forging
   * reports) costs no more work, such as the grant's record in needs.json.
   */
  show(hookPath: string, kind: string, line: string | (() => string)): void {
    const key = `${hookPath}\0${kind}`;
    if (this.#seen.has(key)) return;
    const shown = this.#perModule.get(hookPath) ?? 0;
    if (shown > MAX_NOTICES_PER_MODULE) return;
    this.#perModule.set(hookPath, shown + 1);
    if (shown === MAX_NOTICES_PER_MODULE) line = `hookbox: ${hookPath}: further refusals of this module are not shown (${MAX_NOTICES_PER_MODULE} were)`;
    else this.#seen.add(key);
    if (typeof line === "function") line = line();
    const gated = terminalText(line, { colors: false });
    if (this.#sink) this.#sink(gated);
    else this.#pending.push(gated);
  }

  attach(sink: (line: string) => void): void {
    this.#sink = sink;
    for (const line of this.#pending.splice(0)) sink(line);
  }

  /**
   * `options` with `onExec` and `onNet` (shared and per module) also showing each refusal once;
   * the caller's own callbacks still get every record. A project's module's denials (`onDenied`)
   * are shown here too, naming the grant (else they are lines of the module's log).
   */
  watch<T extends LoadOptions>(options: T): T {
    const wrap = (own: Pick<LoadOptions, "onExec" | "onNet">) => ({
      onExec: (hookPath: string, record: ExecRecord) => { own.onExec?.(hookPath, record); this.#exec(hookPath, record); },
      onNet: (hookPath: string, record: NetRecord) => { own.onNet?.(hookPath, record); this.#net(hookPath, record); },
    });
    const denied = (own: Pick<LoadOptions, "onDenied">) => ({
      onDenied: (hookPath: string, record: DeniedRecord) => { own.onDenied?.(hookPath, record); this.#denied(hookPath, record); },
    });
    const perHook = options.perHook === undefined ? undefined
      : Object.fromEntries(Object.entries(options.perHook).map(([path, own]) => [path, {
        ...own, ...(own.onExec || own.onNet ? wrap(own) : {}), ...(this.#grants?.modules.has(path) ? denied(own) : {}),
      }]));
    return { ...options, ...wrap(options), ...(perHook ? { perHook } : {}) };
  }

  #denied(hookPath: string, record: DeniedRecord): void {
    const line = deniedLine(record.permission, record.resource);
    const grant = record.permission === "FileSystemWrite" ? writeGrant(this.#grants!.project, record.resource) : undefined;
    const cutAt = line.indexOf(" The field that grants it:");
    this.show(hookPath, grant ?? `denied:${record.permission}:${record.resource}`, () => (grant
      ? this.#granting(hookPath, `hookbox: ${hookPath}: ${line.slice("hookbox: ".length, cutAt)}`, grant, "")
      : `hookbox: ${hookPath}: ${line.slice("hookbox: ".length)}`));
  }

  #exec(hookPath: string, record: ExecRecord): void {
    if (!record.refused) return;
    // A project file its approval did not pin (src/bridge/exec-pins.ts): no grant allows it, approving it again does; the record names how.
    if (record.refused.includes("(not_approved)")) {
      this.show(hookPath, "exec:not_approved", () => `hookbox: ${hookPath}: ${record.refused}`);
      return;
    }
    const where = /working directory/.test(record.refused);
    const command = cut(record.command, MAX_NAME_CHARS);
    const grant = where ? `policy: { fsRead: ["<that folder>"] }` : `policy: { exec: { allow: [${JSON.stringify(command)}] } }`;
    const program = !where && /^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(record.command) ? `exec:${record.command}` : undefined;
    const refused = cut(record.refused, 2 * MAX_NAME_CHARS);
    this.show(hookPath, `exec:${where ? "cwd" : command}`, () => this.#granting(hookPath,
      `hookbox: ${hookPath}: pi.exec("${command}") refused by its policy: ${refused}.`, program,
      `The field that grants it: ${where ? "fsRead" : "exec.allow"} (${grant} in isolate's options).`));
  }

  #net(hookPath: string, record: NetRecord): void {
    if (!record.refused || record.method === "dropped") return;
    const host = cut(record.host, MAX_NAME_CHARS);
    const grant = /^[a-z0-9.-]+$/i.test(record.host) ? `network:${record.host.toLowerCase()}:${record.port}` : undefined;
    const refused = cut(record.refused, 2 * MAX_NAME_CHARS);
    this.show(hookPath, `net:${host}`, () => this.#granting(hookPath,
      `hookbox: ${hookPath}: a connection to ${host}:${record.port} refused by its policy: ${refused}.`, grant,
      `The field that grants it: network.allow (policy: { network: { allow: [${JSON.stringify(host)}] } }, sandbox isolation).`));
  }
}
