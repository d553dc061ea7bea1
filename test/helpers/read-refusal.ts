import { ReadRefusal } from "../../src/policy/read-grants.js";

/** The message of the ReadRefusal `run` throws; any other throw, or none, fails the test. */
export function refusal(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    if (err instanceof ReadRefusal) return err.message;
    throw err;
  }
  throw new Error("no ReadRefusal");
}
