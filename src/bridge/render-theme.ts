/**
 * A message renderer styles with the `theme` it was called with, as in the original (a TUI may
 * render a preview in another theme). Rendering is synchronous end to end (the host waits while
 * the worker renders, and answers the renderer's theme calls in place), so the theme of the call
 * in progress is simply held here while it runs.
 */
import { types } from "node:util";
import type { HookMessageRenderer, Theme } from "../contract/types.js";

let current: Theme | undefined;

/** The theme of the render call in progress, if one was given. */
export function renderTheme(): Theme | undefined {
  return current;
}

/**
 * `theme` with its methods as own members, which the bridge looks up (src/bridge/host-bridge.ts):
 * pi's theme is a Proxy over its global theme that has none (a call through it was refused as
 * "not a method the host offers"). Any method of the theme's, never one of Object.prototype's.
 */
function withOwnMethods(theme: Theme | undefined): Theme | undefined {
  if (theme === undefined || theme === null || !types.isProxy(theme)) return theme;
  const method = (name: string | symbol) => {
    if (typeof name !== "string" || name in Object.prototype) return undefined;
    const fn = (theme as unknown as Record<string, unknown>)[name];
    return typeof fn === "function" ? (...args: unknown[]) => fn.apply(theme, args) : undefined;
  };
  return new Proxy({} as Theme, {
    get: (_t, name) => method(name),
    getOwnPropertyDescriptor: (_t, name) => {
      const value = method(name);
      return value === undefined ? undefined : { value, writable: false, enumerable: false, configurable: true };
    },
  });
}

function rendering<T>(theme: Theme | undefined, fn: () => T): T {
  const previous = current;
  current = withOwnMethods(theme) ?? previous;
  try {
    return fn();
  } finally {
    current = previous;
  }
}

/** `renderer`, with each call (and each call on the component it returns) styled by the theme it was given. */
export function withCallerTheme(renderer: HookMessageRenderer): HookMessageRenderer {
  return (message, options, theme) => rendering(theme, () => themed(renderer(message, options, theme), theme));
}

/** `make()` run with `theme` as the render call's theme, and each call on the component it made too (a tool renderer's). */
export function themedComponent<C extends { render(width: number): string[]; handleInput?(data: string): void; invalidate?(): void }>(theme: Theme | undefined, make: () => C | undefined): C | undefined {
  return rendering(theme, () => themed(make(), theme));
}

function themed<C extends { render(width: number): string[]; handleInput?(data: string): void; invalidate?(): void }>(component: C | undefined, theme: Theme | undefined): C | undefined {
  if (!component) return component;
  return {
    ...component,
    render: (width: number) => rendering(theme, () => component.render(width)),
    handleInput: (data: string) => rendering(theme, () => component.handleInput?.(data)),
    invalidate: () => rendering(theme, () => component.invalidate?.()),
  };
}
