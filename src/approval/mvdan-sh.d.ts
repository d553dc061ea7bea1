/** The part of mvdan-sh (the JavaScript build of mvdan/sh's syntax package) src/approval/command-pins.ts uses. */
declare module "mvdan-sh" {
  /** A syntax node: fields as in mvdan/sh's Go types (`Stmts`, `Cmd`, `Args`, `Parts`, `Value`, …); positions have `Offset()`. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  export type ShNode = any;
  export const syntax: {
    NewParser(...options: unknown[]): { Parse(source: string, name: string): ShNode };
    NodeType(node: ShNode): string;
    Walk(node: ShNode, visit: (node: ShNode | null) => boolean): void;
    Variant(lang: unknown): unknown;
    LangBash: unknown;
  };
}
