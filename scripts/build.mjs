// `npm run build`, and the tests' and benches' built copy (test/support/pi-run.ts `builtHookbox`),
// one script so the two are the same build:
//   1. tsc into <dist>/src and <dist>/worker (the .d.ts files are the package's types);
//   2. the sandbox's seccomp filters beside the file that reads them;
//   3. the hook runtime as one file per mode (scripts/bundle-runtime.mjs, into <dist>/worker);
//   4. the host side as a few ES module files (scripts/bundle-host.mjs, into <dist>/host), which the
//      package's exports and bin/hookbox.mjs load.
//
//   node scripts/build.mjs [<dist dir>]        (default: dist)
import { execFileSync } from "node:child_process";
import { cpSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleHost } from "./bundle-host.mjs";
import { bundleRuntime } from "./bundle-runtime.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** @param {string} dist The folder to build into (the package's dist/). */
export async function buildPackage(dist) {
  const out = resolve(dist);
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", join(ROOT, "tsconfig.build.json"), "--outDir", out], { stdio: "inherit" });
  // The sandbox refuses to start without its seccomp filter.
  cpSync(join(ROOT, "src", "isolation", "bubblewrap", "seccomp"), join(out, "src", "isolation", "bubblewrap", "seccomp"), { recursive: true });
  bundleRuntime(join(out, "worker"));
  await bundleHost(out);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildPackage(process.argv[2] ?? join(ROOT, "dist"));
