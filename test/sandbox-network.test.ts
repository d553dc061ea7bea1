import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadHooks, type LoadedHook } from "../src/index.js";
import type { NetRecord } from "../src/net/proxy.js";
import type { SandboxOptions } from "../src/options/options.js";
import { CALLBACK_WINDOW_MS, NET_RECORDS_PER_WINDOW } from "../src/gates/callback-budget.js";
import { host, until } from "./helpers/host.js";
import { sandboxUnavailable, sayWhySkipped } from "./support/sandbox.js";

const HOOK = fileURLToPath(new URL("../fixtures/hostile/reaches-the-network.ts", import.meta.url));
/** The loader's and runner's cwd: the hook's own folder, where its programs may run (a sandboxed pi.exec runs only where its hook may read). */
const CWD = dirname(HOOK);
const FLOOD = fileURLToPath(new URL("../fixtures/hostile/floods-net-records.ts", import.meta.url));
const noSandbox = await sandboxUnavailable();
sayWhySkipped("the sandbox network tests", noSandbox);

const servers: Server[] = [];
let allowed = 0;
let other = 0;
async function listen(): Promise<number> {
  const server = createServer((req, res) => res.end(`hello ${req.url}`));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}
beforeAll(async () => { allowed = await listen(); other = await listen(); });
afterAll(async () => { await Promise.all(servers.map((s) => new Promise((r) => s.close(r)))); });

const hooks: LoadedHook[] = [];
afterEach(async () => { await Promise.all(hooks.splice(0).map((h) => h.sandbox?.dispose())); });

async function start(options: SandboxOptions) {
  const records: NetRecord[] = [];
  const result = await loadHooks([HOOK], CWD, { ...options, onNet: (_path, r) => records.push(r) });
  hooks.push(...result.hooks);
  expect(result.errors).toEqual([]);
  const { runner } = host(result.hooks, { cwd: CWD });
  const reach = async (how: string, url: string) =>
    (await runner.emitToolCall({ type: "tool_call", toolName: "net", toolCallId: "c", input: { how, url } }))!.reason;
  return { reach, records, hook: result.hooks[0]! };
}

describe.skipIf(noSandbox)("the network of a sandboxed hook", () => {
  it("policy.network.allow opens exactly its hosts to fetch, http.get and curl through pi.exec, and reports every attempt", async () => {
    const { reach, records, hook } = await start({ isolation: "sandbox", policy: { network: { allow: [`127.0.0.1:${allowed}`] }, exec: { allow: ["curl"] } } });
    expect(hook.sandbox!.options.isolation).toBe("sandbox");
    expect(await reach("fetch", `http://127.0.0.1:${allowed}/f`)).toBe("200 hello /f");
    expect(await reach("http", `http://127.0.0.1:${allowed}/h`)).toBe("200 hello /h");
    expect(await reach("curl", `http://127.0.0.1:${allowed}/c`)).toBe("200 hello /c");
    expect(await reach("fetch", `http://127.0.0.1:${other}/`)).toMatch(/^error /);
    expect(await reach("http", `http://127.0.0.1:${other}/`)).toContain("refused (HTTP/1.1 403 Forbidden)");
    expect(await reach("curl", `http://127.0.0.1:${other}/`)).toBe("exit 22");
    expect(records.filter((r) => !r.refused).map((r) => r.port)).toEqual([allowed, allowed, allowed]);
    expect(records.filter((r) => r.refused).map((r) => r.port)).toEqual([other, other, other]);
  });

  it("a client that does not go through the proxy (an http agent of its own, a raw net.connect) does not reach even an allowed host: ECONNREFUSED (control: the same host through the global agent answers, above)", async () => {
    const { reach, records } = await start({ isolation: "sandbox", policy: { network: { allow: [`127.0.0.1:${allowed}`] } } });
    expect(await reach("own-agent", `http://127.0.0.1:${allowed}/a`)).toBe("error ECONNREFUSED");
    expect(await reach("net", `http://127.0.0.1:${allowed}/`)).toBe("error ECONNREFUSED");
    expect(await reach("http", `http://127.0.0.1:${allowed}/h`)).toBe("200 hello /h");
    expect(records.map((r) => r.port)).toEqual([allowed]);
  });

  it("a hook flooding its proxy yields at most 100 onNet records per 10 s, then one record saying how many were dropped", async () => {
    const records: NetRecord[] = [];
    const result = await loadHooks([FLOOD], process.cwd(), { policy: { network: { allow: [`127.0.0.1:${allowed}`] } }, onNet: (_path, r) => records.push(r) });
    hooks.push(...result.hooks);
    expect(result.errors).toEqual([]);
    const { runner } = host(result.hooks, { cwd: process.cwd() });
    const started = Date.now();
    const done = await runner.emitToolCall({ type: "tool_call", toolName: "net", toolCallId: "c", input: { url: `http://127.0.0.1:${other}/`, count: 300 } });
    expect(done?.reason).toBe("sent 300");
    expect(Date.now() - started).toBeLessThan(CALLBACK_WINDOW_MS);
    expect(records).toHaveLength(NET_RECORDS_PER_WINDOW);
    expect(records.every((r) => r.port === other && r.refused)).toBe(true);
    await until(() => records.length > NET_RECORDS_PER_WINDOW, CALLBACK_WINDOW_MS + 5_000, "the summary record");
    expect(records.slice(NET_RECORDS_PER_WINDOW)).toEqual([{ host: "", port: 0, method: "dropped", dropped: 200 }]);
  }, 30_000);

  it("policy untrusted gets no network at all: nothing leaves and the proxy never starts", async () => {
    const { reach, records } = await start({ policy: { sandbox: true, exec: { allow: ["curl"] } } });
    expect(await reach("fetch", `http://127.0.0.1:${allowed}/`)).toBe("error ECONNREFUSED");
    expect(await reach("fetch", "https://example.com/")).toMatch(/^error (EAI_AGAIN|ENOTFOUND)$/);
    expect(await reach("curl", `http://127.0.0.1:${allowed}/`)).toBe("exit 7");
    expect(records).toEqual([]);
  });
});
