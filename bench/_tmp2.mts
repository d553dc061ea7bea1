import { loadHooks } from "../src/loader.js";
const ex = process.env.HOME + "/.cache/hookbox-agents/pi-0.73.1/node_modules/@mariozechner/pi-coding-agent/examples/extensions/";
for (const f of ["custom-compaction.ts", "notify.ts", "custom-compaction.ts"]) for (const policy of ["trusted", "confined"] as const) {
  const t0 = performance.now();
  const r = await loadHooks([ex + f], "/tmp", { policy });
  const t1 = performance.now();
  console.log(f, policy, (t1 - t0).toFixed(0), "ms", r.errors.length);
  for (const h of r.hooks) await h.dispose?.();
}
process.exit(0);
