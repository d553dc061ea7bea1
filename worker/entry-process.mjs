// Entry of a hook's child process (process and sandbox modes): install the framed link, send its
// stdio over it (worker/stdio-bound.mjs), then start the runtime.
import { useProcess } from "./link-process.mjs";
import { boundStdio } from "./stdio-bound.mjs";

useProcess();
boundStdio();
// Sandbox mode with policy.network.allow: the proxy's socket is bound in; reach it before the hook loads.
if (process.env.HOOKBOX_NET_SOCKET) await (await import("./net.mjs")).installNetwork(process.env.HOOKBOX_NET_SOCKET);
await import("./entry.mjs");
