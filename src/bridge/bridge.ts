/**
 * One bridge per sandbox: what a worker may ask of the host, after `isolation/host-calls.ts` checked
 * each call against the table (`methods.ts`). The rows marked `atLoad` (exec, log, transform, host
 * modules) are served from the factory on; every other row needs the runner, which installs its
 * surface with `install()`. Before that such a call is refused with that reason.
 */
import { Errors } from "../contract/errors.js";
import { ScopedContexts, scopedSurface } from "./command-scope.js";
import { CustomUi } from "./custom-ui.js";
import { HostModules } from "./host-modules.js";
import type { Policy } from "../policy/policy.js";
import { outputText, type TerminalTextOptions } from "../gates/terminal-text.js";
import type { HookCommandContext, HookMessageRenderer } from "../contract/types.js";
import { METHOD } from "../../worker/wire.mjs";
import { hostMethods, type BridgeSurface, type HostMethods } from "./host-bridge.js";
import { mediatedExec, type ExecGate } from "./exec-gate.js";
import { innerCall } from "./methods.js";
import type { Defer } from "./agent-gate.js";

/** What the worker may ask of the host, by the way it travels. Arguments arrive checked against the table. */
export interface BridgeHost {
  call(method: string, args: unknown[]): Promise<unknown>;
  /** `hold`, when given, receives the call's effect on the agent (a setter's) to run later, in order; its checks run now. */
  sync(method: string, args: unknown[], hold?: Defer): unknown;
  post(method: string, args: unknown[]): void;
  /** Whether `scope` names a command's context still served (a scoped call may use the command-only methods through it). */
  hasScope?(scope: number): boolean;
}

/** What a sandbox gives its bridge: who it serves and the parts that do not need a runner. */
export interface BridgeBase {
  hookPath: string;
  cwd: string;
  gate: ExecGate;
  /** Where `pi.logger` lines go until the runner installs its surface. */
  onLog(hookPath: string, level: string, line: string): void;
  /** What the hook wrote to its stdout or stderr, sent over the channel (the `output` row): cut into lines by the sandbox. */
  output?(stream: "stdout" | "stderr", text: string): void;
  /** What Node's permission model denied the hook (`permission`, `resource`), whether or not the hook caught it. */
  denied?(permission: string, resource: string): void;
  /** Whether one more log line of this hook may go through (its per-window bound, src/gates/callback-budget.ts). */
  takeLog?(): boolean;
  hostModules: Record<string, object>;
  policy: Policy;
  /** The `transform` row: the host's TypeScript transform, from load on (src/transform/cache.ts). */
  transform(args: unknown[]): Promise<unknown>;
  /** Runs the `setup` callback of `ctx.newSession` in the worker. */
  runSetup(): Promise<void>;
  /** The hook's renderer of `customType`, themed by the caller (ctx.ui.custom() shows it). */
  renderer(customType: string): HookMessageRenderer;
  /** In the worker, synchronously: a ctx.ui.custom() call's factory (`make`), a footer's branch listeners (`branch`); src/isolation/render.ts. */
  customRender(op: "make" | "branch", key: string): { ok: true; v: unknown } | { ok: false };
  isolation: string;
  /** How the hook's text is shown on a terminal (the terminalText option). */
  terminal: TerminalTextOptions;
}

/** The runner's surface and the methods built over it (one pair per command scope too). */
interface Served { surface: BridgeSurface; methods: HostMethods }

export class SandboxBridge implements BridgeHost {
  readonly #base: BridgeBase;
  readonly #modules: HostModules;
  readonly #custom: CustomUi;
  readonly #scopes = new ScopedContexts<Served>();
  /** The `onUpdate` of each isolated tool execution running (hookbox/extension), by the number its updates carry. */
  readonly #updates = new Map<number, (partial: unknown) => void>();
  #nextUpdate = 1;
  #runner: Served | undefined;
  /** Where the synchronous call being served holds its effect on the agent (`sync`'s `hold`). */
  #hold: Defer | undefined;

  constructor(base: BridgeBase) {
    this.#base = base;
    this.#modules = new HostModules(base.hookPath, base.hostModules, base.policy);
    this.#custom = new CustomUi(base.hookPath, base.renderer, base.customRender, base.isolation);
  }

  /** The runner's surface: from now on every row of the table is served. */
  install(surface: BridgeSurface): void {
    this.#runner = this.#over(surface);
  }

  /** Hold `ctx` for a command about to run; its `scoped.*` calls carry the returned number. */
  openScope(ctx: HookCommandContext): number {
    return this.#scopes.open(ctx);
  }

  closeScope(id: number): void {
    this.#scopes.close(id);
  }

  hasScope(scope: number): boolean {
    return this.#scopes.has(scope);
  }

  /** Hold a tool execution's `onUpdate`; the worker's `tool.update` posts carry the returned number. */
  openUpdates(onUpdate: (partial: unknown) => void): number {
    const id = this.#nextUpdate++;
    this.#updates.set(id, onUpdate);
    return id;
  }

  closeUpdates(id: number): void {
    this.#updates.delete(id);
  }

  async call(method: string, args: unknown[]): Promise<unknown> {
    return this.#run(method, args);
  }

  post(method: string, args: unknown[]): void {
    this.#run(method, args);
  }

  sync(method: string, args: unknown[], hold?: Defer): unknown {
    this.#hold = hold;
    try {
      return this.#run(method, args);
    } finally {
      this.#hold = undefined;
    }
  }

  #over(surface: BridgeSurface): Served {
    const { hookPath, runSetup, gate } = this.#base;
    const defer: Defer = (apply) => (this.#hold ? this.#hold(apply) : apply());
    return { surface, methods: hostMethods(surface, hookPath, runSetup, gate, this.#base.terminal, defer) };
  }

  /** One dispatch for the three ways of travel: a scoped call runs its inner method on its scope's surface. */
  #run(method: string, args: unknown[]): unknown {
    const inner = innerCall(method, args);
    if (!inner) throw Errors.protocolViolation(this.#base.hookPath, `a ${method} call must carry a bridge method other than a scoped one`);
    if (inner.method === method) return this.#serve(this.#runner, method, args);
    const runner = this.#need(method);
    const scope = this.#scopes.target(args[0] as number, inner.method, (ctx) => this.#over(scopedSurface(runner.surface, ctx)));
    return this.#serve(scope, inner.method, inner.args);
  }

  #serve(served: Served | undefined, method: string, args: unknown[]): unknown {
    const { hookPath, gate, cwd } = this.#base;
    switch (method) {
      case METHOD.transform: return this.#base.transform(args);
      case METHOD.hostModule: return this.#modules.call(args);
      case METHOD.hostModuleAwait: return this.#modules.take(args);
      case METHOD.customDone: return this.#custom.done(args);
      case METHOD.customTui: return this.#custom.requestRender(args);
      case METHOD.customReady: return this.#custom.ready(args);
      case METHOD.output: return this.#base.output?.(args[0] as "stdout" | "stderr", args[1] as string);
      case METHOD.denied: return this.#base.denied?.(args[0] as string, args[1] as string);
      case METHOD.custom: return this.#custom.show(this.#need(method, served).surface, args);
      case METHOD.setHeader: return this.#custom.slot("setHeader", this.#need(method, served).surface, args);
      case METHOD.setFooter: return this.#custom.slot("setFooter", this.#need(method, served).surface, args);
      case METHOD.footerData: return this.#custom.footerData(args);
      case METHOD.toolUpdate: {
        // An update after its execute settled (or timed out) has no one to reach: dropped, as the agent drops it.
        return this.#updates.get(args[0] as number)?.(args[1]);
      }
    }
    if (!served && method === METHOD.exec) return mediatedExec(hookPath, gate, cwd, args);
    if (method === METHOD.log && this.#base.takeLog?.() === false) return undefined;
    // A log line is hook text bound for wherever the host prints it: as policy.terminal passes it.
    if (!served && method === METHOD.log) return this.#base.onLog(hookPath, args[0] as string, outputText(args[1] as string, this.#base.policy.terminal === "raw", this.#base.terminal));
    return this.#need(method, served).methods(method, args);
  }

  #need(method: string, served = this.#runner): Served {
    if (served) return served;
    throw new Error(`${method} is not available before the hook runner exists`);
  }
}
