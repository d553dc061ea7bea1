// `node --import ./records-loads.mjs`: every module URL this process loads (Node's ES module load
// hook), one a line, appended to the file HOOKBOX_LOADS_FILE names (extension-import.test.ts).
import { register } from "node:module";

register(`data:text/javascript,${encodeURIComponent(`
import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  appendFileSync(${JSON.stringify(process.env.HOOKBOX_LOADS_FILE)}, url + "\\n");
  return next(url, context);
}`)}`);
