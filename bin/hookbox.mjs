#!/usr/bin/env node
// The `hookbox` command. From a checkout (src/ is there and tsx resolves) it runs the TypeScript
// source through tsx's ESM loader, so `npx hookbox` needs no build and never runs a stale dist/;
// from an installed package (no src/) it runs the built dist/. HOOKBOX_CLI=dist forces dist/.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";

const source = new URL("../src/cli/main.ts", import.meta.url);
const built = new URL("../dist/host/cli.js", import.meta.url);

function tsxResolves() {
  try {
    createRequire(import.meta.url).resolve("tsx/esm/api");
    return true;
  } catch {
    return false;
  }
}

let cli;
if (process.env.HOOKBOX_CLI !== "dist" && existsSync(source) && tsxResolves()) {
  const { register } = await import("tsx/esm/api");
  register();
  cli = await import(source.href);
} else if (existsSync(built)) {
  cli = await import(built.href);
} else {
  process.stderr.write("hookbox: dist/ is missing and the TypeScript source cannot be run (tsx not installed); run `npm run build`\n");
  process.exit(2);
}

try {
  process.exitCode = await cli.main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`hookbox: internal error: ${(/** @type {Error} */ (err))?.stack ?? err}\n`);
  process.exitCode = 70;
}
