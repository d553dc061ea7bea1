// Test support: a program that installs hookbox's in-sandbox network (worker/net.mjs) on the socket
// given in argv[2], then tries each way out listed in argv[3] (JSON) and prints what each gave.
// Run by test/net.test.ts on the host and inside a real `bwrap --unshare-net`.
import { execFile } from "node:child_process";
import { lookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { installNetwork } from "../../worker/net.mjs";

const [socketPath, probesJson] = process.argv.slice(2);
/** @type {Array<{ kind: "fetch" | "http" | "https" | "curl" | "tcp" | "dns", url?: string, host?: string, port?: number, ca?: string }>} */
const probes = JSON.parse(probesJson ?? "[]");
await installNetwork(/** @type {string} */ (socketPath));

/** @param {string} url @param {typeof http | typeof https} mod @param {string} [ca] */
const get = (url, mod, ca) => new Promise((resolve, reject) => {
  const req = mod.get(url, ca ? { ca } : {}, (res) => {
    let body = "";
    res.on("data", (c) => (body += c));
    res.on("end", () => resolve(`${res.statusCode} ${body}`));
  });
  req.on("error", reject);
  req.setTimeout(5000, () => req.destroy(new Error("timed out")));
});

/** @param {(typeof probes)[number]} p @returns {Promise<string>} */
async function run(p) {
  switch (p.kind) {
    case "fetch": { const r = await fetch(String(p.url), { signal: AbortSignal.timeout(5000) }); return `${r.status} ${await r.text()}`; }
    case "http": return /** @type {string} */ (await get(String(p.url), http));
    case "https": return /** @type {string} */ (await get(String(p.url), https, p.ca));
    case "curl": return await new Promise((resolve, reject) => execFile("curl", ["-fsS", "--max-time", "5", ...(p.ca ? ["--cacert", p.ca] : []), String(p.url)], (err, stdout, stderr) =>
      err ? reject(new Error(`exit ${/** @type {any} */ (err).code}: ${stderr.trim()}`)) : resolve(`200 ${stdout}`)));
    case "tcp": return await new Promise((resolve, reject) => {
      const s = net.connect(Number(p.port), String(p.host), () => { s.destroy(); resolve("connected"); });
      s.on("error", reject);
      s.setTimeout(3000, () => s.destroy(new Error("timed out")));
    });
    case "dns": return (await lookup(String(p.host))).address;
  }
}

const results = [];
for (const p of probes) {
  try {
    results.push({ ok: true, value: await run(p) });
  } catch (e) {
    const err = /** @type {any} */ (e);
    results.push({ ok: false, value: String(err?.cause?.message ?? err?.code ?? err?.message ?? err) });
  }
}
process.stdout.write(JSON.stringify(results));
process.exit(0);
