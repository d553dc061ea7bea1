/**
 * How a hook's death is named: its fault code from what the host observed, never from what the
 * hook printed or threw (see EndpointDeath for what each mode can tell).
 */
import { constants } from "node:os";
import { Errors, HookFailure, describeThrown } from "../contract/errors.js";
import { DISPOSE_BOUND_MS, type EndpointDeath } from "./endpoint.js";

/**
 * The fault code of a death, from what the host observed (see EndpointDeath): never from text
 * the hook printed or fields of what it threw. What the hook claimed only adds to the message.
 */
export function classifyDeath(hookPath: string, end: EndpointDeath): (event: string) => HookFailure {
  const { kind, code, signal, claim } = end;
  if (end.violation) {
    const detail = `its channel broke the protocol: ${end.violation}`;
    return () => Errors.protocolViolation(hookPath, detail);
  }
  if (end.outOfMemory) return (event) => Errors.outOfMemory(hookPath, event);
  if (end.abandoned) {
    return (event) => Errors.crashed(hookPath, event, `the ${kind === "worker" ? "worker" : "process"} did not end within ${DISPOSE_BOUND_MS} ms of being terminated (blocked in a system call?); the host stopped waiting for it`);
  }
  if (end.errored) {
    const { error } = end;
    const stack = error instanceof Error ? error.stack : undefined;
    const what = error instanceof Error ? `uncaught ${error.name}: ${error.message}` : `uncaught ${describeThrown(error)}`;
    return (event) => Errors.crashed(hookPath, event, `${what} (an exception or rejection nothing caught, e.g. in a timer)`, stack);
  }
  const who = kind === "worker" ? "worker" : "process";
  // bwrap reports its child's death by signal N as exit status 128 + N.
  const viaSandbox = kind === "sandbox" && code !== null && code > 128 ? signalName(code - 128) : undefined;
  const killedBy = signal ?? viaSandbox;
  const how = killedBy ? `was killed by ${killedBy}` : `exited with code ${code} (process.exit(${code}) or a fatal error)`;
  // Why labelled: the runtime inside the child reports the uncaught exception, but the hook owns that process.
  const said = claim ? `; the hook's runtime reported: uncaught ${claim.message === undefined ? claim.value ?? "?" : `${claim.name ?? "Error"}: ${claim.message}`}` : "";
  return (event) => Errors.crashed(hookPath, event, `the ${who} ${how}${said}`, claim?.stack);
}

function signalName(n: number): string | undefined {
  return Object.entries(constants.signals).find(([, v]) => v === n)?.[0];
}
