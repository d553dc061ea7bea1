/**
 * The host side of a sandboxed hook's network: an HTTP proxy on a unix socket (one per hook) that
 * opens only the `host:port` pairs of `policy.network.allow`. The sandbox has no network of its own
 * (`--unshare-net`: loopback only, no DNS), so this socket, bound into it, is the only way out.
 *
 * - `CONNECT host:port` (what curl, undici's ProxyAgent and hookbox's agents send, for https and
 *   http alike): exact match against the allow-list, then a TCP connection made here, on the host
 *   (DNS resolved here), and the bytes piped both ways;
 * - an absolute-form request (`GET http://host:port/path`, what curl sends for http:// through
 *   `HTTP_PROXY`): the same check, then forwarded as one request;
 * - anything else: `403` (not allowed), `400` (malformed) or `405` (other methods), and the
 *   connection closed. Every attempt, allowed or refused, is reported to `onNet`.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CALLBACK_WINDOW_MS, CallbackBudget, NET_RECORDS_PER_WINDOW } from "../gates/callback-budget.js";
import { insideResolved } from "../policy/paths.js";
import { parseAllowEntry } from "../policy/policy.js";

/** One attempt to reach out, as the proxy saw it. */
export interface NetRecord {
  host: string;
  port: number;
  /** `connect` (a tunnel) or the HTTP method of a forwarded request. */
  method: string;
  /** Why it was refused; absent when it was let through. */
  refused?: string;
  /** Set when an allowed connection could not be made (DNS, refused, timeout). */
  error?: string;
  /**
   * Only on the summary record (`method: "dropped"`, empty host, port 0): how many records the
   * hook caused past `NET_RECORDS_PER_WINDOW` in the window that just ended (src/gates/callback-budget.ts).
   */
  dropped?: number;
}

export interface NetProxyOptions {
  /** Every attempt, allowed or refused. */
  onNet?: (record: NetRecord) => void;
  /** Connections open at once; more are refused. Default 64. */
  maxConnections?: number;
  /** How long connecting to an allowed host may take, in ms. Default 10000. */
  connectTimeoutMs?: number;
}

/** A running proxy: bind `socketPath` into the sandbox, `close()` when the hook ends. */
export interface NetProxy {
  /** The unix socket, in a folder only this user can enter. */
  socketPath: string;
  /** Stop listening, end every open connection and remove the socket. Idempotent. */
  close(): Promise<void>;
}

/** `host:port` of a CONNECT target or a URL; undefined when malformed. */
function target(authority: string): { host: string; port: number } | undefined {
  try {
    return parseAllowEntry(authority);
  } catch {
    return undefined;
  }
}

/** Start a proxy that lets through only `allow` (entries `host:port`, validated: throws `PolicyError`). */
export async function startNetProxy(allow: readonly string[], options: NetProxyOptions = {}): Promise<NetProxy> {
  const allowed = new Set(allow.map((entry) => { const t = parseAllowEntry(entry); return `${t.host}:${t.port}`; }));
  const onNet = options.onNet ?? (() => {});
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  // Why a private folder: the socket's own mode is not honoured everywhere; a 0700 folder is.
  const dir = mkdtempSync(join(tmpdir(), SOCKET_DIR_PREFIX));
  const socketPath = join(dir, "proxy.sock");
  const open = new Set<Socket>();

  const check = (method: string, authority: string): { host: string; port: number } | { refused: string; status: number } => {
    const t = target(authority);
    if (!t) {
      onNet({ host: authority.slice(0, 200), port: 0, method, refused: "malformed target" });
      return { refused: "malformed target", status: 400 };
    }
    if (!allowed.has(`${t.host}:${t.port}`)) {
      const refused = `${t.host}:${t.port} is not in policy.network.allow`;
      onNet({ ...t, method, refused });
      return { refused, status: 403 };
    }
    return t;
  };

  const server = createServer({ maxHeaderSize: 16 * 1024 });
  server.maxConnections = options.maxConnections ?? 64;
  server.on("connection", (s: Socket) => { open.add(s); s.on("close", () => open.delete(s)); });

  server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    const t = check("CONNECT", req.url ?? "");
    if ("refused" in t) {
      client.end(`HTTP/1.1 ${t.status} ${t.status === 403 ? "Forbidden" : "Bad Request"}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nhookbox: ${t.refused}\n`);
      return;
    }
    const upstream = connect({ host: t.host, port: t.port, timeout: connectTimeoutMs });
    open.add(upstream);
    let connected = false;
    upstream.once("connect", () => {
      connected = true;
      upstream.setTimeout(0);
      onNet({ ...t, method: "CONNECT" });
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    const fail = (error: string) => {
      if (client.writable && !connected) {
        onNet({ ...t, method: "CONNECT", error });
        client.end(`HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\nhookbox: ${t.host}:${t.port}: ${error}\n`);
      }
      upstream.destroy();
      client.destroy();
    };
    upstream.on("timeout", () => fail("connect timed out"));
    upstream.on("error", (e) => fail(e.message));
    upstream.on("close", () => { open.delete(upstream); client.destroy(); });
    client.on("error", () => upstream.destroy());
    client.on("close", () => upstream.destroy());
  });

  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    let url: URL | undefined;
    try { url = new URL(req.url ?? ""); } catch { /* origin-form: not a proxy request */ }
    if (!url || url.protocol !== "http:") {
      onNet({ host: "", port: 0, method: req.method ?? "", refused: "not a proxy request" });
      res.writeHead(405, { "content-type": "text/plain", connection: "close" }).end("hookbox: only CONNECT and absolute http:// requests\n");
      return;
    }
    const t = check(req.method ?? "GET", `${url.hostname}:${url.port || 80}`);
    if ("refused" in t) {
      res.writeHead(t.status, { "content-type": "text/plain", connection: "close" }).end(`hookbox: ${t.refused}\n`);
      return;
    }
    const headers = { ...req.headers };
    delete headers["proxy-connection"];
    delete headers["proxy-authorization"];
    const out = httpRequest({ host: t.host, port: t.port, method: req.method, path: `${url.pathname}${url.search}`, headers, timeout: connectTimeoutMs }, (upstream) => {
      onNet({ ...t, method: req.method ?? "GET" });
      res.writeHead(upstream.statusCode ?? 502, upstream.headers);
      upstream.pipe(res);
    });
    out.on("timeout", () => out.destroy(new Error("timed out")));
    out.on("error", (e) => {
      onNet({ ...t, method: req.method ?? "GET", error: e.message });
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain", connection: "close" }).end(`hookbox: ${e.message}\n`);
      else res.destroy();
    });
    req.pipe(out);
  });
  server.on("clientError", (_err, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => { server.off("error", reject); resolve(); });
  });

  let closed: Promise<void> | undefined;
  return {
    socketPath,
    close: () => closed ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const s of open) s.destroy();
    }).finally(() => rmSync(dir, { recursive: true, force: true })),
  };
}

const SOCKET_DIR_PREFIX = "hookbox-net-";

/**
 * Every proxy socket folder in the host's temporary folder (this host's and others'), which a
 * sandbox hides under an empty tmpfs when a granted folder (e.g. `fsRead: ["/tmp"]`) would show
 * them, under whatever name (./../isolation/bubblewrap/bwrap.ts masks them where each bind shows
 * them): the sandbox user maps to the host's user, so a 0700 folder alone would not stop a hook
 * from connecting to another hook's proxy (and `onNet` blaming that hook). A hook reaches its own
 * proxy only at SANDBOX_NET_SOCKET.
 */
export function proxySocketDirs(bound: readonly string[]): string[] {
  // Why first: listing the temporary folder at every sandbox start costs; it only matters when a bind shows it
  // (links followed: a granted link to the temporary folder, or to a folder above it, shows it too).
  if (!bound.some((b) => insideResolved(b, tmpdir()))) return [];
  try {
    return readdirSync(tmpdir()).filter((n) => n.startsWith(SOCKET_DIR_PREFIX)).map((n) => join(tmpdir(), n));
  } catch {
    return [];
  }
}

/** Where the proxy's socket appears inside the sandbox. */
export const SANDBOX_NET_SOCKET = "/run/hookbox/net.sock";
/** The variable that tells the hook's runtime where the socket is (the same name as `NET_SOCKET_ENV` in worker/net.mjs, which cannot import this file). */
export const NET_SOCKET_ENV = "HOOKBOX_NET_SOCKET";

/** What a sandbox spec adds for a hook with a network allow-list: the socket bound in, and the variable naming it. */
export interface SandboxNetSpec {
  extraBinds: Array<{ src: string; dest: string; writable: boolean }>;
  extraEnv: Record<string, string>;
}

/**
 * The binds and environment that give a sandboxed hook `proxy`. Read-write: connecting to a unix
 * socket is a write. The runtime calls `installNetwork(process.env.HOOKBOX_NET_SOCKET)` before
 * the hook's module loads.
 */
export function sandboxNetSpec(proxy: NetProxy): SandboxNetSpec {
  return { extraBinds: [{ src: proxy.socketPath, dest: SANDBOX_NET_SOCKET, writable: true }], extraEnv: { [NET_SOCKET_ENV]: SANDBOX_NET_SOCKET } };
}

/** A sandboxed hook's network: its proxy and what its sandbox spec adds. */
export interface HookNetwork extends SandboxNetSpec {
  close(): Promise<void>;
}

/** Start the network of a sandboxed hook whose policy allows hosts; undefined when it allows none (no socket at all). */
export async function startHookNetwork(allow: readonly string[], onNet: (record: NetRecord) => void): Promise<HookNetwork | undefined> {
  if (allow.length === 0) return undefined;
  // One budget for the hook's whole life (its network outlives restarts): its records are bounded per window.
  const budget = new CallbackBudget(NET_RECORDS_PER_WINDOW, CALLBACK_WINDOW_MS, (dropped) => onNet({ host: "", port: 0, method: "dropped", dropped }));
  const proxy = await startNetProxy(allow, { onNet: (record) => { if (budget.take()) onNet(record); } });
  return { ...sandboxNetSpec(proxy), close: proxy.close };
}

/** The argv that runs `command` (already resolved on the host) inside an exec sandbox with the hook's network: a bridge of its own first (see worker/net-exec.mjs), run by the hook's node (`runtime`). */
export function netExecArgv(runtime: string, command: string, args: string[]): { command: string; args: string[] } {
  return { command: runtime, args: [NET_EXEC, command, ...args] };
}
const NET_EXEC = fileURLToPath(new URL("../../worker/net-exec.mjs", import.meta.url));
