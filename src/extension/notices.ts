/**
 * What hookbox refused a module (a program, a host), shown once to the person running the agent,
 * naming the policy field that grants it: the module's own handling of the refusal (a block, a
 * fallback) reaches only the model, and a refusal repeated on every tool call is one line, not one
 * per call. Lines wait until the agent's context is known (a refusal may come at load).
 */
import { terminalText } from "../gates/terminal-text.js";
import type { LoadOptions } from "../runner/loader.js";

type ExecRecord = Parameters<NonNullable<LoadOptions["onExec"]>>[1];
type NetRecord = Parameters<NonNullable<LoadOptions["onNet"]>>[1];

export class Notices {
  readonly #seen = new Set<string>();
  #pending: string[] = [];
  #sink: ((line: string) => void) | undefined;

  /** Show `line` once per `key`; gated as terminal text (it may quote a name the module chose). */
  show(key: string, line: string): void {
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
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
    const grant = where ? `policy: { fsRead: ["<that folder>"] }` : `policy: { exec: { allow: [${JSON.stringify(record.command)}] } }`;
    this.show(`exec:${hookPath}:${where ? "cwd" : record.command}`,
      `hookbox: ${hookPath}: pi.exec("${record.command}") refused by its policy: ${record.refused}. The field that grants it: ${where ? "fsRead" : "exec.allow"} (${grant} in isolate's options).`);
  }

  #net(hookPath: string, record: NetRecord): void {
    if (!record.refused || record.method === "dropped") return;
    this.show(`net:${hookPath}:${record.host}`,
      `hookbox: ${hookPath}: a connection to ${record.host}:${record.port} refused by its policy: ${record.refused}. The field that grants it: network.allow (policy: { network: { allow: [${JSON.stringify(record.host)}] } }, sandbox isolation).`);
  }
}
