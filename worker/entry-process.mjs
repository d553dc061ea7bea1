// Entry of a hook's child process (process and sandbox modes): install the framed link, then
// start the runtime.
import { useProcess } from "./link-process.mjs";

useProcess();
await import("./entry.mjs");
