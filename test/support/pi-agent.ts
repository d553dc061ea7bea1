/** The real agent for the tests (test/support/pi-run.ts), with each world in a folder removed after the file's tests. */
import { tempDir } from "../helpers/files.js";
import { piWorldIn, type PiWorld } from "./pi-run.js";

export * from "./pi-run.js";

/** A fresh project, HOME and agent dir, removed after the file's tests. */
export function piWorld(): PiWorld {
  return piWorldIn(tempDir("hookbox-pi-"));
}
