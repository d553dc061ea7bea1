// Entry of a hook worker thread: install the thread's link, bound its stdio, then start the runtime.
import { useThread } from "./link-thread.mjs";
import { boundStdio } from "./stdio-bound.mjs";

useThread();
boundStdio();
await import("./entry.mjs");
