/**
 * A message renderer styles with the `theme` it was called with, as in the original (a TUI may
 * render a preview in another theme). Rendering is synchronous end to end (the host waits while
 * the worker renders, and answers the renderer's theme calls in place), so the theme of the call
 * in progress is simply held here while it runs.
 */
import type { HookMessageRenderer, Theme } from "../contract/types.js";

let current: Theme | undefined;

/** The theme of the render call in progress, if one was given. */
export function renderTheme(): Theme | undefined {
  return current;
}

function rendering<T>(theme: Theme | undefined, fn: () => T): T {
  const previous = current;
  current = theme ?? previous;
  try {
    return fn();
  } finally {
    current = previous;
  }
}

/** `renderer`, with each call (and each call on the component it returns) styled by the theme it was given. */
export function withCallerTheme(renderer: HookMessageRenderer): HookMessageRenderer {
  return (message, options, theme) => rendering(theme, () => {
    const component = renderer(message, options, theme);
    if (!component) return component;
    return {
      ...component,
      render: (width: number) => rendering(theme, () => component.render(width)),
      handleInput: (data: string) => rendering(theme, () => component.handleInput?.(data)),
      invalidate: () => rendering(theme, () => component.invalidate?.()),
    };
  });
}
