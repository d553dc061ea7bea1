/**
 * What hookbox refused a module (a program, a host), shown once to the person running the agent,
 * naming the policy field that grants it: the module's own handling of the refusal (a block, a
 * fallback) reaches only the model, and a refusal repeated on every tool call is one line, not one
 * per call. Lines wait until the agent's context is known (a refusal may come at load).
 */
import { terminalText } from "../gates/terminal-text.js";
import type { LoadOptions } from "../runner/loader.js";
import { cut } from "../../worker/describe.mjs";

type ExecRecord = Parameters<NonNullable<LoadOptions["onExec"]>>[1];
type NetRecord = Parameters<NonNullable<LoadOptions["onNet"]>>[1];

/**
 * Distinct notices one module may cause. Why a bound: a refused program or host is a name the
 * module chooses, so a module naming a new one per call would otherwise flood the person's screen
 * and grow the set of what was shown without end.
 */
export const MAX_NOTICES_PER_MODULE = 16;
/** How much of a name the module chose (a program, a host) a notice quotes (the refusal's own text, which quotes it too: twice that). */
const MAX_NAME_CHARS = 200;

export class Notices {
  readonly #seen = new Set<string>();
  readonly #perModule = new Map<string, number>();
  #pending: string[] = [];
  #sink: ((line: string) => void) | undefined;

  /**
   * Show `line` once per module and `kind`, at most MAX_NOTICES_PER_MODULE per module (then one
   * line saying the rest are not shown); gated as terminal text (it may quote a name the module chose).
   */
  show(hookPath: string, kind: string, line: string): void {
    const key = `${hookPath}\0${kind}`;
    if (this.#seen.has(key)) return;
    const shown = this.#perModule.get(hookPath) ?? 0;
    if (shown > MAX_NOTICES_PER_MODULE) return;
    this.#perModule.set(hookPath, shown + 1);
    if (shown === MAX_NOTICES_PER_MODULE) line = `hookbox: ${hookPath}: further refusals of this module are not shown (${MAX_NOTICES_PER_MODULE} were)`;
    else this.#seen.add(key);
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
   * the caller's own callbacks still get every record.
   */
  watch<T extends LoadOptions>(options: T): T {
    const wrap = (own: Pick<LoadOptions, "onExec" | "onNet">) => ({
      onExec: (hookPath: string, record: ExecRecord) => { own.onExec?.(hookPath, record); this.#exec(hookPath, record); },
      onNet: (hookPath: string, record: NetRecord) => { own.onNet?.(hookPath, record); this.#net(hookPath, record); },
    });
    const perHook = options.perHook === undefined ? undefined
      : Object.fromEntries(Object.entries(options.perHook).map(([path, own]) => [path, { ...own, ...(own.onExec || own.onNet ? wrap(own) : {}) }]));
    return { ...options, ...wrap(options), ...(perHook ? { perHook } : {}) };
  }

  #exec(hookPath: string, record: ExecRecord): void {
    if (!record.refused) return;
    const where = /working directory/.test(record.refused);
    const command = cut(record.command, MAX_NAME_CHARS);
    const grant = where ? `policy: { fsRead: ["<that folder>"] }` : `policy: { exec: { allow: [${JSON.stringify(command)}] } }`;
    this.show(hookPath, `exec:${where ? "cwd" : command}`,
      `hookbox: ${hookPath}: pi.exec("${command}") refused by its policy: ${cut(record.refused, 2 * MAX_NAME_CHARS)}. The field that grants it: ${where ? "fsRead" : "exec.allow"} (${grant} in isolate's options).`);
  }

  #net(hookPath: string, record: NetRecord): void {
    if (!record.refused || record.method === "dropped") return;
    const host = cut(record.host, MAX_NAME_CHARS);
    this.show(hookPath, `net:${host}`,
      `hookbox: ${hookPath}: a connection to ${host}:${record.port} refused by its policy: ${cut(record.refused, 2 * MAX_NAME_CHARS)}. The field that grants it: network.allow (policy: { network: { allow: [${JSON.stringify(host)}] } }, sandbox isolation).`);
  }
}
