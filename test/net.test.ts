import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { connect, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { NET_SOCKET_ENV, sandboxNetSpec, startNetProxy, type NetProxy, type NetRecord } from "../src/net/proxy.js";
import { NET_SOCKET_ENV as RUNTIME_NET_SOCKET_ENV } from "../worker/net.mjs";
import { PolicyError } from "../src/policy/policy.js";
import { bwrapUnavailable, sayWhySkipped } from "./support/sandbox.js";

const PROBE = fileURLToPath(new URL("./support/net-probe.mjs", import.meta.url));
const noBwrap = bwrapUnavailable();
sayWhySkipped("the network tests inside bwrap", noBwrap);

const servers: Server[] = [];
let allowedPort = 0;
let otherPort = 0;
let tlsPort = 0;
let certDir = "";
let caFile = "";

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  allowedPort = await listen(createHttpServer((req, res) => res.end(`hello ${req.method} ${req.url}`)));
  otherPort = await listen(createHttpServer((_req, res) => res.end("should never be reached")));
  certDir = mkdtempSync(join(tmpdir(), "hookbox-net-cert-"));
  caFile = join(certDir, "cert.pem");
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
    "-addext", "subjectAltName=DNS:localhost", "-keyout", join(certDir, "key.pem"), "-out", caFile], { stdio: "ignore" });
  tlsPort = await listen(createHttpsServer({ key: readFileSync(join(certDir, "key.pem")), cert: readFileSync(caFile) }, (_req, res) => res.end("hello over tls")));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  rmSync(certDir, { recursive: true, force: true });
});

const proxies: NetProxy[] = [];
afterEach(async () => { await Promise.all(proxies.splice(0).map((p) => p.close())); });

async function proxy(allow: string[]) {
  const records: NetRecord[] = [];
  const p = await startNetProxy(allow, { onNet: (r) => records.push(r) });
  proxies.push(p);
  return { ...p, records };
}

/** Send `text` on the proxy's socket and collect everything until the proxy closes (or `until` appears). */
function raw(socketPath: string, text: string, until?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(socketPath);
    let got = "";
    s.on("connect", () => s.write(text));
    s.on("data", (c) => { got += c; if (until && got.includes(until)) { s.destroy(); resolve(got); } });
    s.on("end", () => resolve(got));
    s.on("close", () => resolve(got));
    s.on("error", reject);
  });
}

describe("the host-side network proxy", () => {
  it("tunnels CONNECT to an allowed host:port and reports it", async () => {
    const p = await proxy([`127.0.0.1:${allowedPort}`]);
    const answer = await raw(p.socketPath, `CONNECT 127.0.0.1:${allowedPort} HTTP/1.1\r\nHost: x\r\n\r\nGET /in HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, "hello GET /in");
    expect(answer).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK/);
    expect(p.records).toEqual([{ host: "127.0.0.1", port: allowedPort, method: "CONNECT" }]);
  });

  it("refuses with 403 every host:port not in the allow-list, by exact match, without connecting", async () => {
    const p = await proxy([`127.0.0.1:${allowedPort}`]);
    for (const target of [`127.0.0.1:${otherPort}`, `localhost:${allowedPort}`, "example.com:443"]) {
      expect(await raw(p.socketPath, `CONNECT ${target} HTTP/1.1\r\nHost: x\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403 Forbidden[\s\S]*is not in policy\.network\.allow/);
    }
    expect(p.records.map((r) => [r.host, r.port, r.refused !== undefined])).toEqual([
      ["127.0.0.1", otherPort, true], ["localhost", allowedPort, true], ["example.com", 443, true]]);
  });

  it("forwards an absolute-form http:// request to an allowed host and refuses the others", async () => {
    const p = await proxy([`127.0.0.1:${allowedPort}`]);
    const ok = await raw(p.socketPath, `GET http://127.0.0.1:${allowedPort}/plain?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect(ok).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*hello GET \/plain\?x=1$/);
    const refused = await raw(p.socketPath, `GET http://127.0.0.1:${otherPort}/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect(refused).toMatch(/^HTTP\/1\.1 403 Forbidden/);
  });

  it("answers 400 to a malformed CONNECT target and 405 to a request that is not a proxy request", async () => {
    const p = await proxy([`127.0.0.1:${allowedPort}`]);
    expect(await raw(p.socketPath, "CONNECT nonsense HTTP/1.1\r\nHost: x\r\n\r\n")).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    expect(await raw(p.socketPath, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")).toMatch(/^HTTP\/1\.1 405/);
  });

  it("answers 502 when an allowed host cannot be reached", async () => {
    const closed = await listen(createHttpServer());
    await new Promise((r) => servers.pop()!.close(r));
    const p = await proxy([`127.0.0.1:${closed}`]);
    expect(await raw(p.socketPath, `CONNECT 127.0.0.1:${closed} HTTP/1.1\r\nHost: x\r\n\r\n`)).toMatch(/^HTTP\/1\.1 502 Bad Gateway[\s\S]*ECONNREFUSED/);
    expect(p.records).toEqual([expect.objectContaining({ port: closed, error: expect.stringContaining("ECONNREFUSED") })]);
  });

  it("refuses to start on a malformed allow entry, and close() removes the socket and ends open tunnels", async () => {
    await expect(startNetProxy(["example.com"])).rejects.toBeInstanceOf(PolicyError);
    const p = await startNetProxy([`127.0.0.1:${allowedPort}`]);
    const tunnel = connect(p.socketPath);
    const ended = new Promise((r) => tunnel.on("close", r));
    tunnel.write(`CONNECT 127.0.0.1:${allowedPort} HTTP/1.1\r\nHost: x\r\n\r\n`);
    await new Promise((r) => tunnel.once("data", r));
    await p.close();
    await ended;
    expect(existsSync(p.socketPath)).toBe(false);
  });
});

type ProbeResult = { ok: boolean; value: string };

/** Run the probe program (optionally inside bwrap) with the proxy's socket, and parse what it printed. */
function probe(command: string[], probes: object[]): Promise<ProbeResult[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, [...command.slice(1), JSON.stringify(probes)], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (err += c));
    child.on("close", (code) => {
      try { resolve(JSON.parse(out)); } catch { reject(new Error(`probe exited ${code}: ${err}${out}`)); }
    });
  });
}

const INSIDE_SOCKET = "/run/hookbox/net.sock";
const NET_EXEC = fileURLToPath(new URL("../worker/net-exec.mjs", import.meta.url));
const REPO = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
/** A network-less sandbox: own user, pid and network namespaces, the host's files read-only, the proxy's socket bound in. */
const bwrap = (socketPath: string, command: string[] = [process.execPath, PROBE, INSIDE_SOCKET]) => ["bwrap", "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
  "--die-with-parent", "--new-session", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run",
  // The checkout again, after the private /tmp: a clone under /tmp would be hidden by it.
  "--ro-bind", REPO, REPO, "--bind", socketPath, INSIDE_SOCKET, "--setenv", NET_SOCKET_ENV, INSIDE_SOCKET, ...command];

/** Run `argv` to its end: its exit code and output. */
function run(argv: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the in-sandbox network (worker/net.mjs)", () => {
  it("the sandbox spec binds the proxy's socket read-write and names it in the variable the runtime reads", async () => {
    const p = await proxy([`127.0.0.1:${allowedPort}`]);
    expect(RUNTIME_NET_SOCKET_ENV).toBe(NET_SOCKET_ENV);
    expect(sandboxNetSpec(p)).toEqual({ extraBinds: [{ src: p.socketPath, dest: "/run/hookbox/net.sock", writable: true }], extraEnv: { HOOKBOX_NET_SOCKET: "/run/hookbox/net.sock" } });
  });

  it("routes fetch, http.get, https.get and curl through the proxy: allowed hosts answer, others are refused", async () => {
    const p = await proxy([`127.0.0.1:${allowedPort}`, `localhost:${tlsPort}`]);
    // On the host the refused server is reachable directly, so a refusal proves the traffic went through the proxy.
    const results = await probe([process.execPath, PROBE, p.socketPath], [
      { kind: "fetch", url: `http://127.0.0.1:${allowedPort}/f` },
      { kind: "fetch", url: `http://127.0.0.1:${otherPort}/` },
      { kind: "http", url: `http://127.0.0.1:${allowedPort}/h` },
      { kind: "http", url: `http://127.0.0.1:${otherPort}/` },
      { kind: "https", url: `https://localhost:${tlsPort}/`, ca: readFileSync(caFile, "utf8") },
      { kind: "curl", url: `http://127.0.0.1:${allowedPort}/c` },
      { kind: "curl", url: `https://localhost:${tlsPort}/`, ca: caFile },
      { kind: "curl", url: `http://127.0.0.1:${otherPort}/` },
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, false, true, false, true, true, true, false]);
    expect(results[0]!.value).toBe("200 hello GET /f");
    expect(results[2]!.value).toBe("200 hello GET /h");
    expect(results[3]!.value).toContain(`127.0.0.1:${otherPort} refused (HTTP/1.1 403 Forbidden)`);
    expect(results[4]!.value).toBe("200 hello over tls");
    expect(results[5]!.value).toBe("200 hello GET /c");
    expect(results[6]!.value).toBe("200 hello over tls");
    expect(results[7]!.value).toMatch(/^exit 22: .*403/);
    expect(p.records.filter((r) => r.refused).map((r) => r.port)).toEqual([otherPort, otherPort, otherPort]);
  });

  it.skipIf(noBwrap)("inside bwrap --unshare-net, only the allowed hosts are reachable, through the proxy; direct TCP and DNS fail", async () => {
    const p = await proxy([`127.0.0.1:${allowedPort}`, `localhost:${tlsPort}`]);
    const results = await probe(bwrap(p.socketPath), [
      { kind: "fetch", url: `http://127.0.0.1:${allowedPort}/inside` },
      { kind: "https", url: `https://localhost:${tlsPort}/`, ca: readFileSync(caFile, "utf8") },
      { kind: "curl", url: `http://127.0.0.1:${allowedPort}/curl` },
      { kind: "fetch", url: `http://127.0.0.1:${otherPort}/` },
      { kind: "fetch", url: "https://example.com/" },
      { kind: "tcp", host: "127.0.0.1", port: allowedPort },
      { kind: "tcp", host: "1.1.1.1", port: 443 },
      { kind: "dns", host: "example.com" },
    ]);
    expect(results.slice(0, 3)).toEqual([
      { ok: true, value: "200 hello GET /inside" },
      { ok: true, value: "200 hello over tls" },
      { ok: true, value: "200 hello GET /curl" },
    ]);
    // The refused ones: the proxy says 403; the sandbox's own loopback has nothing on the host's port; no route; no DNS.
    expect(results.slice(3).map((r) => r.ok)).toEqual([false, false, false, false, false]);
    expect(results[5]!.value).toBe("ECONNREFUSED");
    expect(results[6]!.value).toBe("ENETUNREACH");
    expect(results[7]!.value).toMatch(/^(EAI_AGAIN|ENOTFOUND)$/);
    expect(p.records.filter((r) => r.refused).map((r) => `${r.host}:${r.port}`)).toEqual([`127.0.0.1:${otherPort}`, "example.com:443"]);
  });

  it.skipIf(noBwrap)("a program started through net-exec.mjs in its own bwrap --unshare-net reaches allowed hosts through the proxy and nothing else", async () => {
    const p = await proxy([`127.0.0.1:${allowedPort}`]);
    const curl = (url: string) => run(bwrap(p.socketPath, [process.execPath, NET_EXEC, "curl", "-fsS", "--max-time", "5", url]));
    expect(await curl(`http://127.0.0.1:${allowedPort}/exec`)).toMatchObject({ code: 0, stdout: "hello GET /exec" });
    const refused = await curl(`http://127.0.0.1:${otherPort}/`);
    expect(refused.code).toBe(22);
    expect(refused.stderr).toContain("403");
    expect((await run(bwrap(p.socketPath, [process.execPath, NET_EXEC, "curl", "-fsS", "--max-time", "5", "--noproxy", "*", `http://127.0.0.1:${allowedPort}/`]))).code).toBe(7);
  });
});
