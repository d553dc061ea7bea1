// Entry of a hook worker thread: install the thread's link, then start the runtime.
import { useThread } from "./link-thread.mjs";

useThread();
await import("./entry.mjs");
