/**
 * What the sandbox refused each project hook at run time, kept beside the approvals
 * (`needs.json` in the approvals folder, the user's own): so each refusal is reported once per hook
 * and grant, and `hookbox trust` proposes the grants a hook was seen to need. Also how many times a
 * Stop hook kept the agent going in a session (`effects:continue` is bounded). Parallel runs may
 * lose one another's update (read, change, rename): a refusal is then reported twice, never lost.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { writeFileAtomicSync } from "../gates/atomic-write.js";
import { approvalsDir, projectKey, type ApprovalsOptions } from "./store.js";

const FILE = "needs.json";
const MAX_SESSIONS = 200;
const MAX_PER_HOOK = 100;
const schema = z.strictObject({
  version: z.literal(1),
  projects: z.record(z.string(), z.record(z.string(), z.array(z.string().max(1000)).max(MAX_PER_HOOK))),
  continues: z.record(z.string(), z.number().int().min(0)),
});
type Needs = z.infer<typeof schema>;

export class NeedsStore {
  readonly file: string;
  constructor(options: ApprovalsOptions = {}) {
    this.file = join(approvalsDir(options), FILE);
  }

  #read(): Needs {
    try {
      const parsed = schema.safeParse(JSON.parse(readFileSync(this.file, "utf8")));
      if (parsed.success) return parsed.data;
    } catch { /* missing or unreadable: nothing seen yet */ }
    return { version: 1, projects: {}, continues: {} };
  }

  #write(data: Needs): void {
    mkdirSync(join(this.file, ".."), { recursive: true, mode: 0o700 });
    writeFileAtomicSync(this.file, `${JSON.stringify(data)}\n`);
  }

  /** The grants `hook` of `project` was seen to need. */
  seen(project: string, hook: string): string[] {
    return this.#read().projects[projectKey(project)]?.[hook] ?? [];
  }

  /** Record `grants` as needed by `hook`; returns those not recorded before (the ones to report). */
  record(project: string, hook: string, grants: readonly string[]): string[] {
    if (grants.length === 0) return [];
    const data = this.#read();
    const key = projectKey(project);
    const known = (data.projects[key] ??= {})[hook] ??= [];
    // Bounded as the schema bounds it: past it, nothing more is recorded or reported for this hook.
    const fresh = [...new Set(grants)].filter((g) => !known.includes(g)).slice(0, Math.max(0, MAX_PER_HOOK - known.length));
    if (fresh.length === 0) return [];
    known.push(...fresh);
    this.#write(data);
    return fresh;
  }

  /** Count one more time `hook` kept session `session` going; returns the count before this one. */
  continued(session: string, hook: string): number {
    const data = this.#read();
    const key = `${session}\n${hook}`;
    const before = data.continues[key] ?? 0;
    data.continues[key] = before + 1;
    const keys = Object.keys(data.continues);
    for (const old of keys.slice(0, Math.max(0, keys.length - MAX_SESSIONS))) delete data.continues[old];
    this.#write(data);
    return before;
  }
}
