// Launcher of a `pi.exec` program inside its own sandbox when the hook's policy allows hosts: each
// sandbox has its own network namespace, so the hook's bridge is out of reach; this one starts a
// bridge to the same proxy socket, sets the proxy variables, and runs the program with them.
// Usage: node net-exec.mjs <program> [args…]; exits with the program's code (128 + n on signal n).
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { NET_SOCKET_ENV, proxyEnv, startBridge } from "./net.mjs";
import { childEnv, hostEnvValue } from "./child-env.mjs";

const [program, ...args] = process.argv.slice(2);
const socketPath = hostEnvValue(NET_SOCKET_ENV);
if (!program || !socketPath) {
  process.stderr.write(`net-exec: usage: node net-exec.mjs <program> [args…] with ${NET_SOCKET_ENV} set\n`);
  process.exit(2);
}
const bridge = await startBridge(socketPath);
const child = spawn(program, args, { stdio: "inherit", env: childEnv([...Object.entries(process.env), ...Object.entries(proxyEnv(bridge.port))]) });
child.on("error", (e) => { process.stderr.write(`net-exec: ${program}: ${e.message}\n`); process.exit(127); });
child.on("exit", (code, signal) => {
  process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0));
});
