/**
 * What an approved project module may run through `pi.exec`: a project file a program would read
 * as code (a script, a module, a file a loader option names) must be one its approval pinned (the
 * module's own folder, pinned whole, or a file it imports), with the content approved. Why not pin
 * the files its `pi.exec` calls name when it is approved: a name computed at run time could not be
 * pinned, so it would stay the same hole; this rule holds for every name, literal or computed.
 * Every argument is read as a path (whole and after a `=`, as in `--require=x.js`), relative to the
 * program's working directory, a shell's `-c` string as commands (../approval/command-pins.ts), and
 * each variable of the program's environment through which it loads code (`BASH_ENV`,
 * `NODE_OPTIONS`, …: command-pins' `LOADERS`) by the paths its value names: each existing file
 * inside the project must be pinned unchanged. A folder is not judged (a
 * program that searches one, like `PYTHONPATH`, is named by its grant, not by this rule).
 */
import { createHash } from "node:crypto";
import { readFileSync, realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { commandPins, LOADERS } from "../approval/command-pins.js";
import { approvalCommand } from "../approval/project.js";
import type { ApprovedPins } from "../approval/store.js";

const SHELLS = new Set(["bash", "sh", "dash", "zsh", "ksh"]);

const inside = (root: string, path: string) => path === root || path.startsWith(`${root}/`);

/** Why this `pi.exec` is refused (`not_approved`, the file named), or undefined when every project file it names is pinned as it runs. */
export function execPinRefusal(pins: ApprovedPins, cwd: string, command: string, args: readonly string[], env: Readonly<Record<string, string>>): string | undefined {
  let root: string;
  try {
    root = realpathSync(pins.project);
  } catch {
    return undefined;
  }
  // Short, the code first: a record of it is cut at 400 characters, and pi's UI shows the record.
  const refuse = (name: string, why: string) =>
    `pi.exec(${JSON.stringify(command)}) was given ${JSON.stringify(name)} (not_approved): ${why}; a script it runs belongs in the module's own folder (pinned whole), then review and run: ${approvalCommand(pins.project)}`;
  const names = [...(command.includes("/") ? [command] : []), ...args.flatMap((a) => (/^[^=]*=./s.test(a) ? [a, a.slice(a.indexOf("=") + 1)] : [a]))];
  for (const name of names) {
    const why = judge(pins, root, resolve(cwd, name));
    if (why) return refuse(name, why);
  }
  for (const [name, value] of Object.entries(env)) {
    if (!LOADERS.has(name)) continue;
    for (const token of value.split(/[\s:]+/)) {
      const why = token && judge(pins, root, resolve(cwd, token.slice(token.indexOf("=") + 1)));
      if (why) return refuse(`${name}=${value}`, `${token}: ${why}`);
    }
  }
  const program = command.slice(command.lastIndexOf("/") + 1);
  const c = args.indexOf("-c");
  if (SHELLS.has(program) && c >= 0 && args[c + 1] !== undefined) {
    const ran = commandPins(root, args[c + 1]!, undefined, []);
    if (ran.refusals.length > 0) return refuse(args[c + 1]!, `a command whose files are known only when it runs (${ran.refusals[0]})`);
    for (const file of ran.files) {
      const why = judge(pins, root, file);
      if (why) return refuse(file, why);
    }
  }
  return undefined;
}

/** Why the file at `path` may not run (a project file not pinned, or changed), or undefined. */
function judge(pins: ApprovedPins, root: string, path: string): string | undefined {
  let real: string;
  try {
    real = realpathSync(path);
    if (!statSync(real).isFile()) return undefined;
  } catch {
    return undefined;
  }
  if (!inside(root, real)) return undefined;
  const pinned = Object.entries(pins.files).filter(([key]) => key === path || key === real || key.endsWith(` -> ${real}`)).map(([, hash]) => hash);
  if (pinned.length === 0) return "a file of the project its approval did not pin";
  let now: string;
  try {
    now = createHash("sha256").update(readFileSync(real)).digest("hex");
  } catch {
    return "a file of the project that cannot be read to check it";
  }
  return pinned.includes(now) ? undefined : `a file of the project changed since you approved it (${real} differs)`;
}
