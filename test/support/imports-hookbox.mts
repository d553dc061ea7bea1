// Forked with IPC and a JSON-looking argv[2] by host-imports.test.ts: imports hookbox (and the
// worker runtime modules the host uses), then reports whether anything changed this process.
const before = { argv: [...process.argv], monitors: process.listenerCount("uncaughtExceptionMonitor"), message: process.listenerCount("message") };
await import("../../src/index.js");
await import("../../src/hooks.js");
const after = { argv: [...process.argv], monitors: process.listenerCount("uncaughtExceptionMonitor"), message: process.listenerCount("message") };
process.send!({ before, after }, () => process.exit(0));
