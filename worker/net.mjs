// Inside the sandbox: the network a hook gets when its policy allows hosts. The sandbox has only
// loopback (no route, no DNS); hookbox binds the host-side proxy's unix socket into it (see
// src/net/proxy.ts). This module bridges a loopback TCP port to that socket, so ordinary clients
// can use it as an HTTP proxy, and points every client it can at the bridge:
// - programs (curl, git, pip, …; through pi.exec) through HTTPS_PROXY / HTTP_PROXY / ALL_PROXY;
// - fetch (Node's built-in undici ignores those variables on Node 20) through a global dispatcher;
// - node:http and node:https requests without their own agent through tunnelling global agents.
// Whatever the proxy refuses (every host:port not in policy.network.allow) fails here.
import http from "node:http";
import https from "node:https";
import net from "node:net";
import tls from "node:tls";

/** The variable the host sets to the socket's path inside the sandbox. */
export const NET_SOCKET_ENV = "HOOKBOX_NET_SOCKET";

/**
 * Listen on 127.0.0.1 (an ephemeral port: capabilities are dropped, ports below 1024 cannot be
 * bound) and pipe each connection to the unix socket at `socketPath`.
 * @param {string} socketPath
 * @returns {Promise<{ port: number, close: () => Promise<void> }>}
 */
export async function startBridge(socketPath) {
  /** @type {Set<net.Socket>} */
  const open = new Set();
  const server = net.createServer((client) => {
    const upstream = net.connect(socketPath);
    for (const s of [client, upstream]) { open.add(s); s.on("close", () => open.delete(s)); }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise((resolve, reject) => { server.once("error", reject); server.listen(0, "127.0.0.1", () => resolve(undefined)); });
  // Why unref: the bridge must not keep the hook's process alive once the hook is done.
  server.unref();
  const address = /** @type {net.AddressInfo} */ (server.address());
  return {
    port: address.port,
    close: () => new Promise((resolve) => { server.close(() => resolve(undefined)); for (const s of open) s.destroy(); }),
  };
}

/**
 * The proxy variables for programs, both spellings (curl reads `http_proxy` in lower case only).
 * @param {number} port
 * @returns {Record<string, string>}
 */
export function proxyEnv(port) {
  const url = `http://127.0.0.1:${port}`;
  /** @type {Record<string, string>} */
  const env = {};
  for (const name of ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"]) { env[name] = url; env[name.toLowerCase()] = url; }
  env.NO_PROXY = env.no_proxy = "";
  return env;
}

/**
 * Open a tunnel to `host:port` through the proxy at 127.0.0.1:`bridgePort` (HTTP CONNECT).
 * @param {number} bridgePort
 * @param {string} host
 * @param {number} port
 * @param {(err: Error | null, socket?: net.Socket) => void} done
 */
export function tunnel(bridgePort, host, port, done) {
  let settled = false;
  /** @param {Error | null} err @param {net.Socket} [s] */
  const settle = (err, s) => { if (!settled) { settled = true; done(err, s); } };
  const authority = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  const socket = net.connect(bridgePort, "127.0.0.1", () => socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`));
  let head = Buffer.alloc(0);
  /** @param {Buffer} chunk */
  const onData = (chunk) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf("\r\n\r\n");
    if (end < 0) {
      if (head.length > 16 * 1024) { socket.destroy(); settle(new Error(`proxy answer for ${authority} too long`)); }
      return;
    }
    socket.off("data", onData);
    const status = head.subarray(0, end).toString("latin1").split("\r\n")[0] ?? "";
    if (!/^HTTP\/1\.[01] 200 /.test(status)) {
      socket.destroy();
      settle(new Error(`hookbox network: ${authority} refused (${status}); allow it in policy.network.allow`));
      return;
    }
    const rest = head.subarray(end + 4);
    if (rest.length) socket.unshift(rest);
    settle(null, socket);
  };
  socket.on("data", onData);
  socket.once("error", (e) => settle(e));
}

/**
 * Agents for node:http and node:https that reach every host through the proxy.
 * @param {number} bridgePort
 */
export function tunnelAgents(bridgePort) {
  /** @typedef {(err: Error | null, stream: import("node:stream").Duplex) => void} OnSocket */
  /** @param {OnSocket | undefined} cb @returns {(err: Error | null, s?: import("node:stream").Duplex) => void} */
  const answer = (cb) => (err, s) => cb?.(err, /** @type {import("node:stream").Duplex} */ (s));
  // Node's Agent takes a socket from createConnection's callback as well as from its return value.
  class HttpTunnelAgent extends http.Agent {
    /** @param {http.ClientRequestArgs} options @param {OnSocket} [cb] */
    createConnection(options, cb) {
      tunnel(bridgePort, options.host ?? "localhost", Number(options.port ?? 80), answer(cb));
      return undefined;
    }
  }
  class HttpsTunnelAgent extends https.Agent {
    /** @param {https.RequestOptions} options @param {OnSocket} [cb] */
    createConnection(options, cb) {
      const reply = answer(cb);
      tunnel(bridgePort, options.host ?? "localhost", Number(options.port ?? 443), (err, socket) => {
        if (err || !socket) return reply(err ?? new Error("no socket"));
        const secure = tls.connect({ .../** @type {tls.ConnectionOptions} */ (options), socket, servername: options.servername ?? options.host ?? undefined });
        secure.once("secureConnect", () => reply(null, secure));
        secure.once("error", (e) => reply(e));
      });
      return undefined;
    }
  }
  return { http: new HttpTunnelAgent({ keepAlive: true }), https: new HttpsTunnelAgent({ keepAlive: true }) };
}

/**
 * Give this process the network of its policy: bridge, variables, fetch's dispatcher and the
 * global agents. Returns the variables (for programs started with their own environment).
 * @param {string} socketPath
 * @returns {Promise<{ port: number, env: Record<string, string>, close: () => Promise<void> }>}
 */
export async function installNetwork(socketPath) {
  const bridge = await startBridge(socketPath);
  const env = proxyEnv(bridge.port);
  Object.assign(process.env, env);
  const { ProxyAgent, setGlobalDispatcher } = await import("undici");
  setGlobalDispatcher(new ProxyAgent(env.HTTPS_PROXY));
  const agents = tunnelAgents(bridge.port);
  http.globalAgent = agents.http;
  https.globalAgent = agents.https;
  return { port: bridge.port, env, close: bridge.close };
}
