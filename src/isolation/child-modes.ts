/**
 * What only process and sandbox isolation use, loaded when the first such module starts
 * (src/isolation/launch.ts): the child process endpoint with its framed channel, bubblewrap and
 * its seccomp filter and memory groups, and a sandbox's network proxy. Why apart: an agent whose
 * modules run in worker threads (the default) evaluates none of it at its start.
 */
export { processEndpoint } from "./process-endpoint.js";
export { execProgram, sandboxLauncher } from "./bubblewrap/bwrap.js";
export { execSandboxSpec, hookSandboxSpec } from "./bubblewrap/sandbox-spec.js";
export { netExecArgv, startHookNetwork } from "../net/proxy.js";
