// Loads one fixture with isolation "sandbox" and prints the load errors as JSON (run with a PATH
// that has no bwrap by sandbox-attacks.test.ts).
import { loadHooks } from "../../src/index.js";

const { errors } = await loadHooks([new URL("../../fixtures/valid/returns-empty-result.ts", import.meta.url).pathname], process.cwd(), { isolation: "sandbox" });
process.stdout.write(JSON.stringify(errors));
