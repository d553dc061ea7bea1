// comlink ships its Node adapter as `.mjs` with a `.d.ts` beside it that TypeScript does not pair up.
declare module "comlink/dist/esm/node-adapter.mjs" {
  import type { Endpoint } from "comlink";
  export default function nodeEndpoint(nep: unknown): Endpoint;
}
