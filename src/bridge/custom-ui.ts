/**
 * The host's side of `ctx.ui.custom(factory)` (worker/custom.mjs): the host UI's `custom()` gets a
 * factory that returns a stand-in for the worker's component, rendered synchronously through the
 * message-renderer path (so bounded by `renderTimeoutMs`, and a slow or broken component degrades
 * to empty lines with a reported `HookError`, never a hung host). The TUI's `requestRender` is the
 * only method of its `tui` a hook can reach; `done(value)` from the worker settles the call. The
 * hook's own factory runs in the worker only when the host UI calls the stand-in factory (pi's RPC
 * UI never does), and only in worker isolation: elsewhere the stand-in throws, saying why, first.
 * Arguments arrive checked against the bridge table (`bridge/methods.ts`).
 */
import { Errors } from "../contract/errors.js";
import type { BridgeSurface } from "./host-bridge.js";
import type { HookMessageRenderer } from "../contract/types.js";

/** pi's `ReadonlyFooterDataProvider`: what a footer factory reads of the agent. */
interface FooterData {
  getGitBranch(): string | null;
  getExtensionStatuses(): ReadonlyMap<string, string>;
  getAvailableProviderCount(): number;
  onBranchChange?(callback: () => void): () => void;
}

/** The number of a key (`custom:<n>`): the module's runtime numbers its calls, headers and footers in order. */
const keyNumber = (key: string) => Number(key.slice(key.indexOf(":") + 1));

/** The `ctx.ui.custom()` calls of one sandbox. */
export class CustomUi {
  readonly #shown = new Map<string, { tui: unknown; done: (value: unknown) => void }>();
  /**
   * The `done` value of the call being shown (`#open`) that came before the host UI called its
   * factory. Why only that one: a value kept for a call not yet made would stay held for the
   * module's life (each up to maxMessageBytes) and answer a dialog no user saw.
   */
  readonly #early = new Map<string, unknown>();
  /** The custom() calls the host is showing (one at a time: a UI wait). */
  readonly #open = new Set<string>();
  /** The highest key the module named in a custom(), setHeader or setFooter call. */
  #highest = 0;
  readonly #hookPath: string;
  readonly #renderer: (key: string) => HookMessageRenderer;
  readonly #render: (op: "make" | "branch", key: string) => { ok: true; v: unknown } | { ok: false };
  /** Stand-in factories waiting on the hook's async factory (its `custom.ready` post), by key. */
  readonly #pending = new Map<string, (made: boolean) => void>();
  readonly #isolation: string;
  /** The keys of the header and footer components shown (`ui.setHeader`, `ui.setFooter`), if any. */
  readonly #slots: { setHeader?: string; setFooter?: string } = {};
  /** The footer data pi's UI gave the footer's stand-in, and its branch subscription. */
  #footer: { key: string; data: FooterData; unsubscribe?: () => void } | undefined;

  /** `renderer` is the hook's renderer of a key, themed by the caller (src/bridge/render-theme.ts). */
  constructor(hookPath: string, renderer: (key: string) => HookMessageRenderer, render: (op: "make" | "branch", key: string) => { ok: true; v: unknown } | { ok: false }, isolation: string) {
    this.#hookPath = hookPath;
    this.#renderer = renderer;
    this.#render = render;
    this.#isolation = isolation;
  }

  /** `custom` `[key, options]`: shown by `surface`'s UI until the worker calls `done`. */
  async show(surface: BridgeSurface, args: unknown[]): Promise<unknown> {
    const [key, options] = args as [string, Record<string, unknown>];
    this.#named(key);
    this.#open.add(key);
    const create = this.#renderer(key);
    // The original's hook UI types `custom(factory)`; the extension UI adds `options` ({ overlay }), passed on.
    const ui = surface.ui() as unknown as { custom(factory: unknown, options?: unknown): Promise<unknown> };
    try {
      return await ui.custom((tui: unknown, theme: unknown, done: (value: unknown) => void) => {
        if (this.#isolation !== "worker") throw new Error(`ctx.ui.custom() needs synchronous rendering, which ${this.#isolation} mode does not have`);
        this.#shown.set(key, { tui, done });
        if (this.#early.has(key)) {
          const value = this.#early.get(key);
          this.#early.delete(key);
          queueMicrotask(() => done(value));
        }
        const unshown = "ctx.ui.custom(): the hook's component could not be shown (see the reported render error)";
        const shown = () => {
          const component = create({ customType: key } as never, { expanded: false }, theme as never);
          if (!component) throw new Error(unshown);
          return component;
        };
        // The hook's factory runs now, in the worker; its throw rejects the hook's call with its own error.
        const made = this.#render("make", key);
        if (!made.ok) throw new Error(unshown);
        if (made.v === "failed") throw new Error("ctx.ui.custom(): the hook's factory threw");
        if (made.v !== "pending") return shown();
        // An async factory: the host UI gets a promise of the component, as it would from the hook in-process.
        return new Promise((resolve, reject) => {
          this.#pending.set(key, (ok) => {
            try {
              if (!ok) throw new Error("ctx.ui.custom(): the hook's factory rejected");
              resolve(shown());
            } catch (err) {
              reject(err);
            }
          });
        });
      }, options);
    } finally {
      this.#open.delete(key);
      this.#shown.delete(key);
      this.#early.delete(key);
      this.#pending.delete(key);
    }
  }

  /**
   * `ui.setHeader` / `ui.setFooter` `[key]`: the agent's header or footer becomes a stand-in for the
   * worker's component under `key` (rendered as a custom component is; its `tui.requestRender`
   * reaches the agent's), or its own again (`null`). A footer's stand-in keeps the footer data pi
   * gives it (read by `footerData`) and runs the worker's branch listeners when pi's branch changes.
   * Worker isolation only: elsewhere the module's call is refused by name, saying why.
   */
  slot(member: "setHeader" | "setFooter", surface: BridgeSurface, args: unknown[]): undefined {
    const [key] = args as [string | null];
    if (key !== null) this.#named(key);
    // Refused by name, as the members that cannot cross are (worker/extension-members.mjs): both are the agent's only.
    if (this.#isolation !== "worker") throw new Error(`ctx.ui.${member} is refused by hookbox/extension: it needs synchronous rendering, which ${this.#isolation} mode does not have`);
    const ui = surface.ui() as unknown as Record<string, ((factory: unknown) => void) | undefined>;
    if (typeof ui[member] !== "function") throw new Error(`ctx.ui.${member}: this host's UI has no ${member === "setHeader" ? "header" : "footer"}`);
    const previous = this.#slots[member];
    if (previous !== undefined) this.#shown.delete(previous);
    if (member === "setFooter") this.#dropFooter();
    this.#slots[member] = key ?? undefined;
    if (key === null) { ui[member](undefined); return undefined; }
    const create = this.#renderer(key);
    ui[member]((tui: unknown, theme: unknown, footerData?: FooterData) => {
      this.#shown.set(key, { tui, done: () => {} });
      if (member === "setFooter" && footerData) {
        this.#dropFooter();
        this.#footer = { key, data: footerData, unsubscribe: footerData.onBranchChange?.(() => { this.#render("branch", key); }) };
      }
      const component = create({ customType: key } as never, { expanded: false }, theme as never);
      // pi draws its own header for a factory that throws; the render failure was reported.
      if (!component) throw new Error(`ctx.ui.${member}: the hook's component could not be shown (see the reported render error)`);
      return component;
    });
    return undefined;
  }

  /** `ui.footerData` `[key, member]`: the footer data pi's UI gave the footer `key` (a branch, the extensions' statuses as entries, a count). */
  footerData(args: unknown[]): unknown {
    const [key, member] = args as [string, "getGitBranch" | "getExtensionStatuses" | "getAvailableProviderCount"];
    const footer = this.#footer?.key === key ? this.#footer.data : undefined;
    if (!footer) throw new Error("ctx.ui.setFooter's footerData: the agent's UI has not shown this footer");
    if (member === "getExtensionStatuses") return [...footer.getExtensionStatuses()];
    return footer[member]();
  }

  #dropFooter(): void {
    this.#footer?.unsubscribe?.();
    this.#footer = undefined;
  }

  /**
   * `custom.done` `[key, value]`: the answer of the call shown under `key`. One for a call the
   * module never made is forged (`protocol_violation`); one for a call that ended is dropped.
   */
  done(args: unknown[]): void {
    const [key, value] = args as [string, unknown];
    const entry = this.#shown.get(key);
    if (entry) entry.done(value);
    else if (this.#open.has(key)) this.#early.set(key, value);
    else if (keyNumber(key) > this.#highest) throw Errors.protocolViolation(this.#hookPath, `ui.custom.done for "${key}", a ctx.ui.custom() call the module never made`);
  }

  /** The module named `key` in a call: answers for it may come from now on. */
  #named(key: string): void {
    this.#highest = Math.max(this.#highest, keyNumber(key));
  }

  /** `custom.ready` `[key, made]`: the hook's async factory settled. */
  ready(args: unknown[]): void {
    const [key, made] = args as [string, boolean];
    const settle = this.#pending.get(key);
    this.#pending.delete(key);
    settle?.(made);
  }

  /** `custom.tui` `[key, "requestRender"]`. */
  requestRender(args: unknown[]): void {
    const tui = this.#shown.get(args[0] as string)?.tui as { requestRender?: () => void } | undefined;
    tui?.requestRender?.();
  }
}
