/** The real agents for the tests (test/support/pi-run.ts), with each world in a folder removed after the file's tests. */
import { tempDir } from "../helpers/files.js";
import { piWorldIn, type Agent, type PiWorld } from "./pi-run.js";

export * from "./pi-run.js";

/** A fresh project, HOME and agent dir (pi's, or `agent`'s), removed after the file's tests. */
export function piWorld(agent?: Agent): PiWorld {
  return piWorldIn(tempDir("hookbox-pi-"), agent);
}
