"use strict";
// Entry of a hook worker thread in the built package on Node: runs the runtime bundle
// (entry-thread.bundle.cjs, scripts/bundle-runtime.mjs) as Node's CommonJS loader would (the same
// wrapper, __filename, require and stack file names), but compiled by this file so that V8 can
// take the code cache the host passed in the boot (src/isolation/code-cache.ts): most of a hook
// thread's start was V8 compiling the runtime's functions again in every thread.
// Why the bytes come in workerData, never from a file: this thread needs no read grant for them,
// and no folder a hook can read or write ever holds what V8 is fed here.
const { readFileSync } = require("node:fs");
const { join } = require("node:path");
const Module = require("node:module");
const { Script } = require("node:vm");
const { workerData } = require("node:worker_threads");

const filename = join(__dirname, "entry-thread.bundle.cjs");
const boot = /** @type {{ codeCache?: unknown }} */ (workerData);
const given = /** @type {import("../src/contract/protocol.js").BootCodeCache | undefined} */ (boot.codeCache);
const script = new Script(Module.wrap(readFileSync(filename, "utf8")), {
  filename,
  ...(given?.bytes ? { cachedData: given.bytes } : {}),
});
// What the runtime reads (worker/entry.mjs, which removes it before any hook code runs): whether
// V8 took the bytes, and, only in the thread the host started to make a cache of its own module,
// how to make one once that module has loaded (functions compiled by then are in it).
boot.codeCache = /** @type {import("../src/contract/protocol.js").RuntimeCodeCache} */ ({
  ...(given?.bytes ? { rejected: script.cachedDataRejected === true } : {}),
  ...(given?.produce ? { produce: () => script.createCachedData() } : {}),
  // The runtime's import() (worker/native-import.mjs). Why from here: a script compiled from a code
  // cache made in another thread has no dynamic import callback on Node 20 ("A dynamic import
  // callback was not specified"), whatever vm.Script was given; this file Node loaded itself.
  importModule: (/** @type {string} */ url) => import(url),
});
const bundle = new Module(filename, module);
bundle.filename = filename;
bundle.paths = /** @type {any} */ (Module)._nodeModulePaths(__dirname);
script.runInThisContext()(bundle.exports, Module.createRequire(filename), bundle, filename, __dirname);
