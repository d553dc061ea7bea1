import type { Server } from "node:net";

/**
 * A loopback listener a test probes reachability with: a peer that connects and exits (a hook's
 * `exec 3<>/dev/tcp/…`, a killed process) resets the connection, and an accepted socket's error with
 * no listener is an uncaught exception that fails the whole run (vitest exits 1 with every test
 * passed). The reset is the peer's doing, not what the test checks.
 */
export function quietSockets<S extends Server>(server: S): S {
  server.on("connection", (socket) => socket.on("error", () => {}));
  return server;
}
