// Entry of a hook worker thread: install the thread's link, bound its stdio, then start the runtime.
import { useThread } from "./link-thread.mjs";
import { boundStdio } from "./stdio-bound.mjs";

useThread();
boundStdio();
// Why no top-level await: the built runtime is this file bundled as CommonJS (scripts/bundle-runtime.mjs).
// A failed import is uncaught here as it was awaited: the thread ends with it.
void import("./entry.mjs");
