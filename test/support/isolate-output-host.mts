// A host that runs one module through isolate() inside pi's own loader and runner (the installed
// pi 0.73.1) and prints nothing itself: what reaches this process's stderr is what the module's
// output became (test/host-output.test.ts reads it). argv[2]: JSON { module, options } (module: one path, or several for one isolate()). Events:
// session_start, one tool_call, session_shutdown; then it prints "done" on stdout.
import { isolate } from "../../src/extension.js";
import { importPi, installPiDir } from "./pi-run.js";

const { module, options } = JSON.parse(process.argv[2]!) as { module: string | string[]; options: Record<string, unknown> };
const { loader, Runner, SessionManager } = await importPi(installPiDir());
const runtime = loader.createExtensionRuntime();
const extension = await loader.loadExtensionFromFactory(isolate(([] as string[]).concat(module), options as never), process.cwd(), undefined, runtime, "<isolated>");
const runner = new Runner([extension], runtime, process.cwd(), SessionManager.inMemory(process.cwd()), {});
await runner.emit({ type: "session_start", reason: "startup" });
await runner.emitToolCall({ type: "tool_call", toolName: "bash", toolCallId: "call_1", input: { command: "ls" } });
await runner.emit({ type: "session_shutdown", reason: "quit" });
process.stdout.write("done\n");
