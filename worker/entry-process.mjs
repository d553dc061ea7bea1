// Entry of a hook's child process (process and sandbox modes): install the framed link, send its
// stdio over it (worker/stdio-bound.mjs), then start the runtime.
import { useProcess } from "./link-process.mjs";
import { boundStdio } from "./stdio-bound.mjs";

useProcess();
boundStdio();
// Sandbox mode with policy.network.allow: the proxy's socket is bound in; reach it before the hook loads.
// Why no top-level await: the built runtime is this file bundled as CommonJS (scripts/bundle-runtime.mjs).
// A failure is uncaught here as it was awaited: the process ends with it.
const socket = process.env.HOOKBOX_NET_SOCKET;
void (socket ? import("./net.mjs").then((net) => net.installNetwork(socket)) : Promise.resolve()).then(() => import("./entry.mjs"));
