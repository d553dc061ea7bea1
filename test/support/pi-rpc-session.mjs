// One scripted session of pi in `--mode rpc` (pi's docs/rpc.md), driven over its stdin/stdout from
// inside the network namespace of pi-netns-run.mjs, the same for every run so two runs compare:
//   get_commands (the extension commands it lists are the session's commands), the prompt (the fake
//   model answers it with tool calls), the `inputs` prompts when given (for a module with an `input`
//   handler: prompts it rewrites or handles, each a step of its own), each command three times, with no, one and two arguments
//   (`ARGUMENTS`), each followed by a second prompt (`AFTER_COMMAND`, which the model answers
//   without tools: work a command left behind, a changed prompt or state, reaches a turn), a
//   compaction, a model cycle, get_state and get_messages, then stdin closes (pi shuts down).
// Every dialog (`extension_ui_request` select / confirm / input / editor) gets one of three
// answers (`dialogAnswer`), in turn by its place among the session's dialogs, so that a command's
// three runs meet all three: answered, dismissed (`cancelled`: escape), and a third, which leaves a
// dialog with a timeout to time out and answers one without otherwise (the last option, false, an
// empty text). After each step the driver waits for the step's response, for the run the step
// started to end, for the agent to be idle (as many agent_end as agent_start, no compaction
// running; where the agent tells extensions of agent_end only after it wrote it, for every
// extension's handler of it to have returned) and then for `quietMs` without output (what a handler
// writes after the end, such as a late notification), at most `stepTimeoutMs` (then a `timeout`
// marker is recorded, naming what the step still waited for). The run's end: pi answers a prompt
// before its run starts, and writes each event of a run only after its extensions' handlers of it
// returned, so once the response is in, the driver asks pi itself (`get_state`, `get_messages`) and
// waits until no run or compaction is under way and every assistant message pi added since the step
// began came in an agent_end line. The questions and their answers are not in the transcript. A
// prompt naming a command (`/…`) is not asked about: pi answers it once the command ran, and every
// question is a command after which pi acts on a shutdown an earlier command requested (the
// session's own next step must be that command); a run such a command starts is settled by its
// agent_start and agent_end lines and the quiet time.
// The transcript is every line pi wrote to stdout, in order, with a marker for each command sent.
// With `steps`, the session is those commands instead (each settled as above), then stdin closes;
// its dialogs are all answered (the first option, true, the text, the prefill), but one with a
// timeout, which is left to time out.
import { spawn } from "node:child_process";

/**
 * Where an agent's `--mode rpc` differs from pi's (docs/rpc.md), by `rpc.protocol` (the Agent's
 * name; pi's when not given). oh-my-pi 18.2.3 (src/modes/rpc/rpc-mode.ts) lists commands with
 * `get_available_commands`, each with the same `name` and `source`; it answers a `prompt` at once,
 * before the agent starts, and a prompt that runs no agent (a command) ends with a `prompt_result`
 * of the prompt's id (`promptEnd`): a prompt step settles once the agent started, or on that
 * record. It writes `agent_end`, then runs extensions' agent_end handlers, unawaited
 * (src/session/agent-session.ts `#emitAgentEndNotification`): what a handler does after (a dialog,
 * a message) comes when the handler gets to it, which for an isolated module on a starved machine
 * can be after any quiet time. The driver loads a last extension (`agentEndPassed`) whose handler
 * sets a status line once every earlier one returned (oh-my-pi runs them in turn), and a step
 * settles only once each agent_end was so passed; those lines are not in the transcript. The
 * session's other commands, its events, responses and dialogs are pi's.
 * @type {Record<string, { listCommands: string; promptEnd?: string; agentEndPassed?: { flag: string; file: string } }>}
 */
export const PROTOCOLS = {
  pi: { listCommands: "get_commands" },
  "oh-my-pi": {
    listCommands: "get_available_commands", promptEnd: "prompt_result",
    // --hook: oh-my-pi loads its -e extensions, then its hooks (src/main.ts), so the differential's legacy hooks come before it too.
    agentEndPassed: { flag: "--hook", file: new URL("./marks-agent-end-passed.ts", import.meta.url).pathname },
  },
};
/** The status line key of ./marks-agent-end-passed.ts. */
const AGENT_END_PASSED = "differential-agent-end-passed";

/** The text an `input` or `editor` dialog (without a prefill) is answered with. */
export const ANSWER_TEXT = "differential";
/** The arguments each command is run with, in turn: none, one, two (most commands stop at a usage line without one). */
export const ARGUMENTS = ["", " differential", " differential second"];
/** The prompt after each command: the model answers it "Done." without tools. */
export const AFTER_COMMAND = "And now?";

/**
 * How the session's `n`th dialog is answered: n % 3 = 0 answered (the first option, true, the text,
 * the prefill), 1 dismissed (`cancelled`, as escape), 2 timed out when it has a timeout, else
 * answered otherwise (the last option, false, an empty text). Keyed by the dialog's place in the
 * session, never by its text (which holds each run's own paths) nor by the step it lands in (a
 * dialog a handler opens late, on a busy machine, may land in the next step in one run only).
 * @param {{ method?: string; options?: unknown; prefill?: unknown; timeout?: unknown }} request
 * @param {number} n
 * @returns {Record<string, unknown> | undefined} the response's fields, or undefined: left unanswered
 */
export function dialogAnswer(request, n) {
  const mode = n % 3;
  const options = Array.isArray(request.options) ? request.options : [];
  if (mode === 1) return { cancelled: true };
  if (mode === 2 && request.timeout !== undefined) return undefined;
  const first = mode === 0;
  switch (request.method) {
    case "select": return { value: first ? options[0] : options.at(-1) };
    case "confirm": return { confirmed: first };
    case "input": return { value: first ? ANSWER_TEXT : "" };
    case "editor": return { value: !first ? "" : typeof request.prefill === "string" && request.prefill !== "" ? request.prefill : ANSWER_TEXT };
    default: return undefined;
  }
}
const DIALOGS = new Set(["select", "confirm", "input", "editor"]);
/** The id prefix of the driver's own `get_state` questions (whether a run is under way), kept out of the transcript. */
const ASKED = "settle-";
/** The fake model server's port on the namespace's loopback (./pi-netns-run.mjs). */
export const MODEL_PORT = 41789;

/**
 * `rpc.askState: false` settles a step as this driver once did, without asking pi whether a run is
 * under way (test/e2e-pi-rpc-driver.test.ts's control: a run whose agent_start comes after the
 * quiet time is still going when the next step is sent).
 * @param {{ program?: string; cli: string; cwd: string; env: Record<string, string>; args: string[]; rpc: { prompt?: string; inputs?: string[]; steps?: Array<Record<string, unknown>>; quietMs?: number; stepTimeoutMs?: number; askState?: boolean; protocol?: keyof typeof PROTOCOLS; skipCommands?: string[] }; timeoutMs: number }} config
 * @returns {Promise<{ code: number | null; signal: string | null; transcript: unknown[]; stderr: string; commands: string[]; timings: Array<[string, number]> }>}
 */
export function runRpcSession(config) {
  const { prompt = "", inputs = [], steps, quietMs = 300, stepTimeoutMs = 20_000, askState = true } = config.rpc;
  const protocol = PROTOCOLS[config.rpc.protocol ?? "pi"];
  const passedFlag = protocol.agentEndPassed ? [protocol.agentEndPassed.flag, protocol.agentEndPassed.file] : [];
  const child = spawn(config.program ?? process.execPath, [config.cli, ...config.args, ...passedFlag], { cwd: config.cwd, env: config.env, stdio: ["pipe", "pipe", "pipe"] });
  /** @type {unknown[]} */
  const transcript = [];
  let stderr = "";
  let buffer = "";
  let lastOutput = performance.now();
  let running = 0;
  /** How many agent runs started, and the ids of the prompts that ended without one (`promptEnd`). */
  let started = 0;
  const ended = new Set();
  let compacting = false;
  /** The assistant messages the agent_end lines carried, in all. */
  let carried = 0;
  /** How many agent_end the agent wrote, and how many of them passed every extension's handler (`agentEndPassed`). */
  let agentEnds = 0;
  let agentEndsPassed = 0;
  /** How many dialogs the session has had (dialogAnswer). */
  let dialogs = 0;
  /** @type {Map<string, (record: any) => void>} */
  const waiting = new Map();
  let exited = false;
  /** @type {(v: { code: number | null; signal: string | null }) => void} */
  let onExit = () => {};
  const exit = new Promise((resolve) => { onExit = resolve; });
  child.on("close", (code, signal) => { exited = true; onExit({ code, signal }); });
  child.stderr.setEncoding("utf8").on("data", (d) => { stderr += d; lastOutput = performance.now(); });
  child.stdin.on("error", () => { /* pi exited before reading everything */ });
  // The whole session's bound: pi is killed, the steps left pass at once.
  const whole = setTimeout(() => { transcript.push({ timeout: "session" }); child.kill("SIGKILL"); }, config.timeoutMs);

  /** @param {Record<string, unknown>} command */
  const send = (command) => {
    if (exited) return;
    child.stdin.write(`${JSON.stringify(command)}\n`);
  };

  /** @param {string} line */
  const onLine = (line) => {
    if (line.endsWith("\r")) line = line.slice(0, -1);
    /** @type {any} */
    let record;
    try { record = JSON.parse(line); } catch { lastOutput = performance.now(); transcript.push({ stdout: line }); return; }
    // The answer to the driver's own question is neither output nor part of the session.
    if (record?.type === "response" && typeof record.id === "string" && record.id.startsWith(ASKED)) { waiting.get(record.id)?.(record); return; }
    lastOutput = performance.now();
    if (protocol.agentEndPassed && record?.type === "extension_ui_request" && record.method === "setStatus" && record.statusKey === AGENT_END_PASSED) { agentEndsPassed++; return; }
    transcript.push(record);
    if (record?.type === "agent_start") { running++; started++; }
    if (protocol.promptEnd !== undefined && record?.type === protocol.promptEnd) ended.add(record.id);
    if (record?.type === "agent_end") {
      running = Math.max(0, running - 1);
      agentEnds++;
      if (Array.isArray(record.messages)) carried += record.messages.filter((/** @type {any} */ m) => m?.role === "assistant").length;
    }
    if (record?.type === "compaction_start") compacting = true;
    if (record?.type === "compaction_end") compacting = false;
    if (record?.type === "response" && typeof record.id === "string") waiting.get(record.id)?.(record);
    if (record?.type === "extension_ui_request" && DIALOGS.has(record.method)) {
      const n = dialogs++;
      // Given steps (a test's own session), every dialog is answered at once, as a person would, but one with a timeout, left to time out.
      const answer = !steps ? dialogAnswer(record, n) : record.timeout === undefined ? dialogAnswer(record, 0) : undefined;
      if (answer) send({ type: "extension_ui_response", id: record.id, ...answer });
    }
  };
  // JSONL: split on \n only (docs/rpc.md: not readline, which splits on U+2028 too).
  child.stdout.setEncoding("utf8").on("data", (d) => {
    buffer += d;
    for (let at = buffer.indexOf("\n"); at >= 0; at = buffer.indexOf("\n")) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 1);
      onLine(line);
    }
  });

  const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));
  let step = 0;
  /** How many get_state questions the driver asked (their ids). */
  let questions = 0;
  /** How long each step took to settle (ms), and pi's exit after the input closed: where a session's time goes. */
  /** @type {Array<[string, number]>} */
  const timings = [];
  /** Sends `command` and waits until it settled (see the head comment); returns its response. */
  const run = async (/** @type {Record<string, unknown>} */ command, bound = stepTimeoutMs, quiet = quietMs) => {
    const id = `step-${++step}`;
    /** @type {any} */
    let response;
    const responded = new Promise((resolve) => waiting.set(id, (r) => { response = r; resolve(r); }));
    const began = performance.now();
    const deadline = began + bound;
    const startedBefore = started;
    // Whether the prompt's own end came (where the agent answers a prompt before it starts and says when one ran none).
    const promptDone = () => command.type !== "prompt" || protocol.promptEnd === undefined || started > startedBefore || ended.has(id);
    /** What the step still waits for, in words (the timeout marker's `waited`). */
    let waited = "its response";
    // Where the agent answers a prompt before its run starts and says nothing when the prompt ran none (pi).
    const checked = askState && protocol.promptEnd === undefined && command.type === "prompt" && !String(command.message ?? "").startsWith("/");
    const idle = () => running === 0 && !compacting && (!protocol.agentEndPassed || agentEndsPassed >= agentEnds);
    /** Asks pi `type` (get_state, get_messages) on the driver's own behalf; its answer's data, or undefined past the step's bound. */
    const ask = async (/** @type {string} */ type) => {
      const asked = `${ASKED}${step}-${++questions}`;
      const answer = new Promise((resolve) => waiting.set(asked, resolve));
      send({ type, id: asked });
      /** @type {any} */
      const got = await Promise.race([answer, exit, sleep(Math.max(0, deadline - performance.now()))]);
      waiting.delete(asked);
      return got?.data;
    };
    const assistants = (/** @type {any} */ data) => (Array.isArray(data?.messages) ? data.messages.filter((/** @type {any} */ m) => m?.role === "assistant").length : undefined);
    // pi's assistant messages when the step began, and those the agent_end lines written since carried.
    const heldBefore = checked ? assistants(await ask("get_messages")) : undefined;
    const carriedBefore = carried;
    transcript.push({ sent: command });
    send({ ...command, id });
    const settled = async () => {
      await Promise.race([responded, exit, sleep(bound)]);
      while (!exited && performance.now() < deadline) {
        if (response === undefined) waited = "its response";
        else if (!promptDone()) waited = `the agent's start or ${protocol.promptEnd}`;
        else if (!idle()) waited = running > 0 ? "agent_end" : compacting ? "compaction_end" : "every extension's agent_end handler";
        else if (checked) {
          // pi answers a prompt before its run starts and writes a run's events only after its extensions'
          // handlers of each returned: the run is over when pi says none is under way and every assistant
          // message it holds since the step began came in an agent_end line.
          const state = await ask("get_state");
          const held = assistants(await ask("get_messages"));
          if (state === undefined || held === undefined || heldBefore === undefined) { waited = "pi's answer to get_state and get_messages"; continue; }
          if (state.isStreaming === true || state.isCompacting === true) waited = "agent_end (get_state: a run or a compaction under way)";
          else if (held - heldBefore > carried - carriedBefore) waited = `agent_end (pi holds ${held - heldBefore - (carried - carriedBefore)} assistant message(s) of this step no agent_end line carried yet)`;
          else if (idle() && performance.now() - lastOutput >= quiet) return true;
          else waited = `${quiet} ms without output after the end`;
        } else if (performance.now() - lastOutput >= quiet) return true;
        else waited = `${quiet} ms without output after the end`;
        await sleep(50);
      }
      return exited;
    };
    if (!(await settled())) transcript.push({ timeout: command.type, waited });
    timings.push([String(command.type), Math.round(performance.now() - began)]);
    waiting.delete(id);
    return response;
  };

  return (async () => {
    // pi reads its input once its start is done (extensions loaded): the first step waits for that too.
    const starting = Math.max(stepTimeoutMs, 60_000);
    /** @type {string[]} */
    let commands = [];
    if (steps) {
      for (const [n, command] of steps.entries()) await run(command, n === 0 ? starting : stepTimeoutMs);
    } else {
      const listed = await run({ type: protocol.listCommands }, starting, 0);
      // The agent's own bundled extensions' commands (`skipCommands`) are not the module's: not run.
      commands = (listed?.data?.commands ?? []).filter((/** @type {any} */ c) => c.source === "extension" && !config.rpc.skipCommands?.includes(c.name)).map((/** @type {any} */ c) => c.name);
      await run({ type: "prompt", message: prompt });
      for (const message of inputs) await run({ type: "prompt", message });
      for (const name of commands) {
        for (const args of ARGUMENTS) {
          await run({ type: "prompt", message: `/${name}${args}` });
          await run({ type: "prompt", message: AFTER_COMMAND });
        }
      }
      await run({ type: "compact" });
      await run({ type: "cycle_model" });
      await run({ type: "get_state" }, stepTimeoutMs, 0);
      await run({ type: "get_messages" }, stepTimeoutMs, 0);
    }
    transcript.push({ sent: { type: "end of input" } });
    child.stdin.end();
    const timer = setTimeout(() => { transcript.push({ timeout: "exit" }); child.kill("SIGKILL"); }, Math.min(stepTimeoutMs, 10_000));
    const closed = performance.now();
    const { code, signal } = await exit;
    timings.push(["exit", Math.round(performance.now() - closed)]);
    clearTimeout(timer);
    clearTimeout(whole);
    if (buffer !== "") onLine(buffer);
    return { code, signal, transcript, stderr, commands, timings };
  })();
}
