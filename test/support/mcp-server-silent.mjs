// A stdio MCP server that starts and never answers (a server still starting, for as long as a run
// lasts): it writes when it was started (ms since the epoch) to the file named by argv[2], then
// reads its input and says nothing. test/e2e-claude-mcp-wait.test.ts measures, from that moment,
// how long Claude Code waits for it before the model's first request.
import { writeFileSync } from "node:fs";

writeFileSync(process.argv[2], String(Date.now()));
process.stdin.resume();
