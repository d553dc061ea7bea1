/**
 * What an approved project module may run through `pi.exec`: a project file a program would read
 * as code (a script, a module, a file a loader option names) must be one its approval pinned (the
 * module's own folder, pinned whole, or a file it imports), with the content approved. Why not pin
 * the files its `pi.exec` calls name when it is approved: a name computed at run time could not be
 * pinned, so it would stay the same hole; this rule holds for every name, literal or computed.
 * What runs is read as a command hook's command is (../approval/command-pins.ts `runPins`): the
 * program when it is a path, an interpreter's script and the options that load code, a shell's `-c`
 * string as commands, and what those run in turn; its other arguments may be files it reads or
 * writes (a formatter's), so they are not judged. Each variable of the program's environment through
 * which it loads code (`BASH_ENV`, `NODE_OPTIONS`, …: command-pins' `LOADERS`) is read by the paths its
 * value names. Each existing file inside the project that runs must be pinned unchanged. A folder is not judged (a
 * program that searches one, like `PYTHONPATH`, is named by its grant, not by this rule).
 */
import { createHash } from "node:crypto";
import { readFileSync, realpathSync, statSync } from "node:fs";
import { relative, resolve } from "node:path";
import { LOADERS, loaderWords, runPins } from "../approval/command-pins.js";
import { approvalCommand } from "../approval/project.js";
import { inside } from "../gates/inside.js";
import type { ApprovedPins } from "../contract/approved.js";



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
  // What runs of the project: the program by a path, an interpreter's script, a shell's -c commands
  // (../approval/command-pins.ts, as for a command hook); its other arguments may be files it reads
  // or writes (a formatter's), never judged here.
  // Read both as named and as real: a word may name the project through a link to it, or its real folder.
  const real = (p: string) => { try { return realpathSync(p); } catch { return p; } };
  const views = [...new Map([[resolve(pins.project), resolve(cwd)], [root, real(cwd)]])].map(([r, c]) => runPins(r, c, [command, ...args]));
  const refusal = views.flatMap((v) => v.refusals)[0];
  if (refusal) return refuse(args.join(" "), `a command whose files are known only when it runs (${refusal})`);
  for (const file of new Set(views.flatMap((v) => v.files))) {
    const why = judge(pins, root, file);
    if (why) return refuse(relative(cwd, file) || file, why);
  }
  for (const [name, value] of Object.entries(env)) {
    if (!LOADERS.has(name)) continue;
    for (const token of loaderWords(name, value)) {
      const why = token && judge(pins, root, resolve(cwd, token.slice(token.indexOf("=") + 1)));
      if (why) return refuse(`${name}=${value}`, `${token}: ${why}`);
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
