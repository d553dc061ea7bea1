/** The no-op UI of the contract (print, headless and RPC-less modes), and a plain default theme. */
import type { HookUIContext, Theme } from "../contract/types.js";

const identity = (_style: string, text: string) => text;
const plain = (text: string) => text;

/** A theme that leaves text unstyled: what hooks see when the host gives no UI. */
export const plainTheme: Theme = Object.freeze({ fg: identity, bg: identity, bold: plain, italic: plain, underline: plain });

export function createNoOpUIContext(): HookUIContext {
  return {
    select: async () => undefined,
    confirm: async () => false,
    input: async () => undefined,
    editor: async () => undefined,
    notify: () => {},
    setStatus: () => {},
    setEditorText: () => {},
    getEditorText: () => "",
    custom: async () => undefined as never,
    get theme() { return plainTheme; },
  };
}
