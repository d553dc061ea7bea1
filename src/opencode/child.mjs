// One opencode plugin, out of opencode's process: run on Bun (opencode's own runtime, started as
// `BUN_BE_BUN=1 <opencode binary> child.mjs`), as the user or inside hookbox's sandbox. It imports
// the plugin as opencode 1.18.33 does (`export default { id, server }`, else every export is a
// plugin function or a `{ server }` object), calls each with a PluginInput of data, and answers the
// host's calls on stdin/stdout, one JSON line each: `{ id, op: "load", path, input, options }`
// answers the hook names the plugin returned; `{ id, op: "call", hook, input, output }` runs every
// returned hook of that name on (input, output) in order and answers the output as the plugin left
// it, or the message it threw. The host (./unit.ts) validates every answer and applies it by class.
// Plain JS: the host starts it with a path; no hookbox module is imported here.

const write = process.stdout.write.bind(process.stdout);
/** A plugin's own output is diagnostics: stderr, never the channel. @param {...unknown} args */
const toStderr = (...args) => { process.stderr.write(`${args.map((a) => (typeof a === "string" ? a : safeText(a))).join(" ")}\n`); };
for (const name of /** @type {const} */ (["log", "info", "warn", "error", "debug", "trace"])) console[name] = toStderr;
process.stdout.write = /** @type {any} */ ((/** @type {any} */ chunk, /** @type {any[]} */ ...rest) => process.stderr.write(chunk, ...rest));

/** @param {unknown} value */
function safeText(value) {
  try { return JSON.stringify(value); } catch { return String(value); }
}

/** @typedef {{ id: number; op: string; path: string; input: Record<string, any>; options?: unknown; hook: string; output: unknown }} Request */
const send = (/** @type {object} */ message) => write(`${JSON.stringify(message)}\n`);
/** @type {Array<Record<string, Function>>} */
let hooks = [];

/** What the plugin's `client` is here: no opencode server to reach. */
const client = new Proxy({}, {
  get(_target, key) {
    if (typeof key === "symbol" || key === "then") return undefined;
    return new Proxy(() => {}, {
      get: () => undefined,
      apply() { throw new Error(`client.${String(key)} is not available to a plugin run by hookbox opencode`); },
    });
  },
});

/** @param {Request} message */
async function load(message) {
  const mod = await import(message.path);
  const input = {
    ...message.input,
    serverUrl: new URL(message.input.serverUrl),
    client,
    $: /** @type {any} */ (globalThis).Bun?.$,
    experimental_workspace: { register() { throw new Error("experimental_workspace.register is not available to a plugin run by hookbox opencode"); } },
  };
  const servers = [];
  const v1 = mod.default;
  if (v1 && typeof v1 === "object" && typeof v1.server === "function") servers.push(v1.server);
  else {
    for (const [name, value] of Object.entries(mod)) {
      if (typeof value === "function") servers.push(value);
      else if (value && typeof value === "object" && typeof value.server === "function") servers.push(value.server);
      else throw new Error(`Plugin export is not a function: ${name}`);
    }
  }
  for (const server of servers) {
    const result = await server(input, message.options);
    if (result && typeof result === "object") hooks.push(result);
  }
  const names = [...new Set(hooks.flatMap((h) => Object.keys(h)))];
  return { hooks: names };
}

/** @param {Request} message */
async function call(message) {
  const { hook, input, output } = message;
  for (const h of hooks) {
    const fn = h[hook];
    if (typeof fn === "function") await fn.call(h, input, output);
  }
  return output;
}

let buffered = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (/** @type {string} */ chunk) => {
  buffered += chunk;
  let end;
  while ((end = buffered.indexOf("\n")) >= 0) {
    const line = buffered.slice(0, end);
    buffered = buffered.slice(end + 1);
    let message;
    try { message = JSON.parse(line); } catch { continue; }
    const run = message.op === "load" ? load : call;
    run(message).then(
      (value) => send({ id: message.id, ok: true, value }),
      (e) => send({ id: message.id, ok: false, error: e instanceof Error ? e.message : String(e) }),
    );
  }
});
process.stdin.on("end", () => process.exit(0));
