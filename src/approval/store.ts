/**
 * The approvals store: which project modules the user approved, by fingerprint (./fingerprint.ts),
 * kept outside every repository in `$XDG_CONFIG_HOME/hookbox/approvals.json` (else
 * `~/.config/hookbox/`), keyed by the project's real path, so a cloned repository can neither
 * approve itself nor carry an approval to another folder. A store that does not exist approves
 * nothing; one that cannot be read or is not what hookbox writes approves nothing either, and says
 * so (fail closed, named). Written atomically (src/gates/atomic-write.ts: a failed write leaves the old store as it was).
 */
import { mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { writeFileAtomicSync } from "../gates/atomic-write.js";
import { Errors, HookFailure } from "../contract/errors.js";
import type { PolicyOption } from "../policy/policy.js";
import { fingerprint, FingerprintError, type Fingerprint } from "./fingerprint.js";

export { fingerprint, FingerprintError, type Fingerprint } from "./fingerprint.js";
export { PinReader, pinnedFingerprint } from "./pins.js";
export { approvalCommand, projectKey } from "./project.js";
import { approvalCommand, projectKey } from "./project.js";
import { PinReader } from "./pins.js";
import type { Approved } from "../contract/approved.js";

/** Where approvals are kept: `{ dir }` to choose the folder (tests, embedders); the default is the user's config folder. */
export interface ApprovalsOptions {
  dir?: string;
}

const FILE = "approvals.json";
const VERSION = 1;

// `grants`: what the user gave this module beyond its policy (src/policy/grants.ts), each in its one spelling.
const moduleSchema = z.strictObject({ digest: z.string().regex(/^[0-9a-f]{64}$/), policy: z.string(), files: z.record(z.string(), z.string()), grants: z.array(z.string().max(1000)).max(100).optional() });
const storeSchema = z.strictObject({
  version: z.literal(VERSION),
  projects: z.record(z.string(), z.strictObject({ approved: z.string(), modules: z.record(z.string(), moduleSchema) })),
});
export type StoreData = z.infer<typeof storeSchema>;

/** The folder of the approvals store: `dir`, else `$XDG_CONFIG_HOME/hookbox`, else `~/.config/hookbox`. */
export function approvalsDir(options: ApprovalsOptions = {}, env: NodeJS.ProcessEnv = process.env): string {
  if (options.dir) return resolve(options.dir);
  const xdg = env.XDG_CONFIG_HOME;
  // The XDG spec: a relative value is invalid and ignored.
  if (xdg && xdg.startsWith("/")) return join(xdg, "hookbox");
  return join(env.HOME || homedir(), ".config", "hookbox");
}

/** Thrown when the store cannot be read or is not what hookbox writes: nothing in it is trusted. */
export class ApprovalStoreError extends Error {
  override name = "ApprovalStoreError";
}

/** One module to check: its path as discovered and the policy it would run under. */
export interface ProjectModule {
  path: string;
  policy: PolicyOption;
  /** How to pin it when it is not a module (a command hook: src/approval/command-hook.ts); default `fingerprint(path, policy)`. */
  pinned?: () => Fingerprint;
  /** What it is, in messages (default "a module"). */
  noun?: string;
  /** What its refusal does, in messages (default "every tool call is blocked"). */
  refusal?: string;
}

/** The store in one folder. Every read goes to the file: an approval given in another terminal counts at once. */
export class ApprovalStore {
  readonly dir: string;
  readonly file: string;

  constructor(options: ApprovalsOptions = {}) {
    this.dir = approvalsDir(options);
    this.file = join(this.dir, FILE);
  }

  /** The store's content; empty when it does not exist. Throws `ApprovalStoreError` when it cannot be read or is corrupt. */
  read(): StoreData {
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return { version: VERSION, projects: {} };
      throw new ApprovalStoreError(`the approvals store ${this.file} cannot be read (${code ?? String(err)})`);
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new ApprovalStoreError(`the approvals store ${this.file} is corrupt (not JSON: ${(err as Error).message})`);
    }
    const parsed = storeSchema.safeParse(data);
    if (!parsed.success) throw new ApprovalStoreError(`the approvals store ${this.file} is corrupt (not what hookbox writes: ${parsed.error.issues[0]?.message ?? "invalid"})`);
    return parsed.data;
  }

  /**
   * Why `module` may not run in `project` as it is now, as a `not_approved` failure naming the
   * module and the approval command; undefined when the user approved exactly this.
   */
  check(project: string, module: ProjectModule): HookFailure | undefined {
    return failureOf(this.verify(project, module));
  }

  /** `check`, with the approval's digest when it passes: the decision records carry it (`hook.hash`). */
  verify(project: string, module: ProjectModule): HookFailure | Approved {
    const found = this.#approval(project, module);
    if (found instanceof HookFailure) return found;
    let now: Fingerprint;
    try {
      now = module.pinned ? module.pinned() : fingerprint(module.path, module.policy);
    } catch (err) {
      if (err instanceof FingerprintError) return found.refuse(`it cannot be pinned: ${err.message}`);
      throw err;
    }
    return judge(found, now, project);
  }

  /**
   * `verify` for what is pinned asynchronously (`PinReader`, src/approval/pins.ts): a Claude Code
   * hook routed while the router's deadline runs. `data` is the store as read once for the event.
   */
  async verifyPinned(project: string, module: Omit<ProjectModule, "pinned"> & { pinned: () => Promise<Fingerprint> }, data?: StoreData): Promise<HookFailure | Approved> {
    const found = this.#approval(project, module, data);
    if (found instanceof HookFailure) return found;
    let now: Fingerprint;
    try {
      now = await module.pinned();
    } catch (err) {
      if (err instanceof FingerprintError) return found.refuse(`it cannot be pinned: ${err.message}`);
      throw err;
    }
    return judge(found, now);
  }

  /** `check` of `verifyPinned`. */
  async checkPinned(project: string, module: Omit<ProjectModule, "pinned"> & { pinned: () => Promise<Fingerprint> }, data?: StoreData): Promise<HookFailure | undefined> {
    return failureOf(await this.verifyPinned(project, module, data));
  }

  /**
   * The approval of `module`, read before anything is pinned: an unapproved module (or a corrupt
   * store) is refused at the cost of one read of the store, however large the project.
   */
  #approval(project: string, module: ProjectModule | Omit<ProjectModule, "pinned">, given?: StoreData): HookFailure | Approval {
    const command = approvalCommand(project, typeof module.policy === "string" ? module.policy : "custom");
    const refuse = (why: string) => Errors.notApproved(module.path, `it is ${module.noun ?? "a module"} of the project ${project}, and ${why}; ${module.refusal ?? "every tool call is blocked"} until you review it and run: ${command}`);
    let data: StoreData;
    try {
      data = given ?? this.read();
    } catch (err) {
      if (err instanceof ApprovalStoreError) return refuse(`${err.message}, so no approval can be trusted (fix or remove that file)`);
      throw err;
    }
    const approved = data.projects[projectKey(project)]?.modules[module.path];
    if (!approved) return refuse("you have not approved it");
    return { approved, refuse };
  }

  /** The grants approved with `module` of `project` (empty when none, or not approved). Read only after `check` passed. */
  grants(project: string, module: string): string[] {
    return this.read().projects[projectKey(project)]?.modules[module]?.grants ?? [];
  }

  /** Approve exactly `modules` (as they are now) for `project`, with each one's `grants` (by module), replacing its earlier approvals. */
  approve(project: string, modules: readonly Fingerprint[], grants: Readonly<Record<string, readonly string[]>> = {}): void {
    const data = this.read();
    data.projects[projectKey(project)] = {
      approved: new Date().toISOString(),
      modules: Object.fromEntries(modules.map((m) => [m.module, { digest: m.digest, policy: m.policyName, files: m.files, ...(grants[m.module]?.length ? { grants: [...grants[m.module]!] } : {}) }])),
    };
    this.#write(data);
  }

  /** Remove every approval of `project`; true when there was one. */
  revoke(project: string): boolean {
    const data = this.read();
    const key = projectKey(project);
    if (!Object.hasOwn(data.projects, key)) return false;
    delete data.projects[key];
    this.#write(data);
    return true;
  }

  #write(data: StoreData): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    writeFileAtomicSync(this.file, `${JSON.stringify(data, null, 2)}\n`);
  }
}

interface Approval { approved: z.infer<typeof moduleSchema>; refuse: (why: string) => HookFailure }

/**
 * The checks of a project's modules for one event (or one launch): the store read once, an
 * unapproved module refused before anything is pinned, every file hashed once whichever modules
 * name it, within one budget for the project (./pins.ts), stopped by `signal`.
 */
export function verifyPinnedEach(project: string, modules: ReadonlyArray<Omit<ProjectModule, "pinned"> & { pinned: (reader: PinReader) => Promise<Fingerprint> }>,
  options: { approvals?: string; signal?: AbortSignal } = {}): Array<Promise<HookFailure | Approved>> {
  const store = new ApprovalStore(options.approvals ? { dir: options.approvals } : {});
  let data: StoreData | undefined;
  try {
    data = store.read();
  } catch { /* each check reports the corrupt store by name */ }
  const reader = new PinReader(options.signal ? { signal: options.signal } : {});
  return modules.map((m) => store.verifyPinned(project, { ...m, pinned: () => m.pinned(reader) }, data));
}


/** The failure of a verdict, or undefined when it approves. */
export const failureOf = (verdict: HookFailure | Approved | undefined): HookFailure | undefined => (verdict instanceof HookFailure ? verdict : undefined);

function judge({ approved, refuse }: Approval, now: Fingerprint, project?: string): HookFailure | Approved {
  if (approved.digest === now.digest) return { digest: approved.digest, ...(project ? { pinned: { project, files: now.files } } : {}) };
  return refuse(`it changed since you approved it (${difference(approved, now)})`);
}

/** What differs between an approval and now, named by file where a file differs. */
function difference(approved: z.infer<typeof moduleSchema>, now: Fingerprint): string {
  for (const [path, hash] of Object.entries(now.files)) {
    if (!Object.hasOwn(approved.files, path)) return `${path} is new`;
    if (approved.files[path] !== hash) return `${path} differs`;
  }
  for (const path of Object.keys(approved.files)) if (!Object.hasOwn(now.files, path)) return `${path} is gone`;
  if (approved.policy !== now.policyName) return `its policy was ${approved.policy}, now ${now.policyName}`;
  return "its policy differs";
}
