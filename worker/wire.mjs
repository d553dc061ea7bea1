// The wire's run-time half, shared by both sides unchanged (plain JS: the worker runs it as is):
// the bridge's method names and how each travels, the bounds every message obeys, the frame
// bounds of the framed channel and the defaults of every size and time option. The host's zod
// schemas (src/contract/protocol.ts, src/bridge/methods.ts) and its option defaults (src/options/options.ts) are
// built from these same constants, and the worker's channel (worker/channel.mjs) only takes a
// method name of the right kind (checked by tsc, see `CallMethod`).

// The frame codec, which needs devalue, is worker/frames.mjs: a worker thread never loads it.

/** Every bridge method a worker may name. Who may call each, and with what, is `src/bridge/methods.ts`. */
export const METHOD = Object.freeze({
  select: "ui.select",
  confirm: "ui.confirm",
  input: "ui.input",
  editor: "ui.editor",
  exec: "exec",
  waitForIdle: "waitForIdle",
  newSession: "newSession",
  setupCall: "setup.call",
  branch: "branch",
  navigateTree: "navigateTree",
  sendMessage: "sendMessage",
  appendEntry: "appendEntry",
  notify: "ui.notify",
  setStatus: "ui.setStatus",
  setEditorText: "ui.setEditorText",
  abortEditor: "ui.abortEditor",
  abort: "abort",
  log: "log",
  /** What Node's permission model denied the module (worker/access.mjs), once per permission and resource. */
  denied: "denied",
  output: "output",
  isIdle: "isIdle",
  hasQueuedMessages: "hasQueuedMessages",
  getEditorText: "ui.getEditorText",
  theme: "theme",
  modelRegistry: "modelRegistry",
  session: "session",
  transform: "transform",
  /** The value of a host method that answered a sync call with a promise (src/bridge/deferred.ts). */
  await: "await",
  custom: "ui.custom",
  customDone: "ui.custom.done",
  customTui: "ui.custom.tui",
  /** An async custom() factory settled: its component is made (true) or the factory failed (false). */
  customReady: "ui.custom.ready",
  /** pi's footer data, read by the footer the module set (`ctx.ui.setFooter`'s factory's third argument). */
  footerData: "ui.footerData",
  hostModule: "hostModule",
  hostModuleAwait: "hostModule.await",
  /** A command context's call reaching the context its caller built (src/bridge/command-scope.ts), one per way of travel. */
  scopedCall: "scoped.call",
  scopedPost: "scoped.post",
  scopedSync: "scoped.sync",
  /** A partial result of an isolated tool's `execute` (its `onUpdate`), for the execution it names. */
  toolUpdate: "tool.update",
  /** `pi.getFlag(name)`: the agent's value of a flag this module registered. */
  getFlag: "flag",
  /** pi's agent members (hookbox/extension): a getter, a setter (the worker blocks: a refusal throws at the call), setModel. */
  agentGet: "agent.get",
  agentSet: "agent.set",
  agentSetModel: "agent.setModel",
  /** `ctx.compact({ onComplete, onError })`: answered when the agent's compaction ends, so the module's callbacks run. */
  agentCompact: "agent.compact",
  /** `pi.events.emit(channel, data)`: for the other modules of the same isolate() (worker/bus.mjs). */
  busEmit: "events.emit",
  /** `ctx.ui.setHeader(factory)` (worker isolation): the header component's key (the worker holds it), or null to restore pi's. */
  setHeader: "ui.setHeader",
  /** `ctx.ui.setFooter(factory)`, as setHeader. */
  setFooter: "ui.setFooter",
});

/**
 * How each method travels: `call` (async, answered), `post` (fire and forget), `sync` (the worker
 * blocks on the answer). The host's table (src/bridge/methods.ts) must agree row by row, and the
 * worker's `call`, `post` and `callSync` take only names of their kind: both checked by tsc.
 */
export const KIND = Object.freeze({
  [METHOD.select]: "call",
  [METHOD.confirm]: "call",
  [METHOD.input]: "call",
  [METHOD.editor]: "call",
  [METHOD.exec]: "call",
  [METHOD.waitForIdle]: "call",
  [METHOD.newSession]: "call",
  [METHOD.setupCall]: "call",
  [METHOD.branch]: "call",
  [METHOD.navigateTree]: "call",
  [METHOD.sendMessage]: "post",
  [METHOD.appendEntry]: "post",
  [METHOD.notify]: "post",
  [METHOD.setStatus]: "post",
  [METHOD.setEditorText]: "post",
  [METHOD.abortEditor]: "post",
  [METHOD.abort]: "post",
  [METHOD.busEmit]: "post",
  [METHOD.setHeader]: "sync",
  [METHOD.setFooter]: "sync",
  [METHOD.log]: "post",
  [METHOD.denied]: "post",
  [METHOD.output]: "post",
  [METHOD.isIdle]: "sync",
  [METHOD.hasQueuedMessages]: "sync",
  [METHOD.getEditorText]: "sync",
  [METHOD.theme]: "sync",
  [METHOD.modelRegistry]: "sync",
  [METHOD.session]: "sync",
  [METHOD.transform]: "sync",
  [METHOD.await]: "call",
  [METHOD.custom]: "call",
  [METHOD.customDone]: "post",
  [METHOD.customTui]: "post",
  [METHOD.customReady]: "post",
  [METHOD.footerData]: "sync",
  [METHOD.hostModule]: "sync",
  [METHOD.hostModuleAwait]: "call",
  [METHOD.scopedCall]: "call",
  [METHOD.scopedPost]: "post",
  [METHOD.scopedSync]: "sync",
  [METHOD.toolUpdate]: "post",
  [METHOD.getFlag]: "sync",
  [METHOD.agentGet]: "sync",
  [METHOD.agentSet]: "sync",
  [METHOD.agentSetModel]: "call",
  [METHOD.agentCompact]: "call",
});

/**
 * pi's members that read the agent (`pi.getSessionName()`, `ctx.getContextUsage()`…), answered as
 * data by the agent's own objects when hookbox runs inside it (src/extension/adapter.ts).
 */
export const AGENT_GETTERS = Object.freeze([
  "getSessionName", "getActiveTools", "getAllTools", "getCommands", "getThinkingLevel", "getContextUsage", "getSystemPrompt", "hasPendingMessages",
  "ui.getAllThemes",
]);
/**
 * pi's members that change the agent or its screen; which ones a policy allows is
 * `policy.agent` (src/bridge/agent-gate.ts). `ui.*` act on the agent's UI.
 */
export const AGENT_SETTERS = Object.freeze([
  "sendUserMessage", "setSessionName", "setLabel", "setActiveTools", "setThinkingLevel", "compact", "shutdown", "ui.setWidget", "ui.setTitle",
  "ui.setWorkingMessage", "ui.setWorkingIndicator", "ui.setWorkingVisible", "ui.setHiddenThinkingLabel", "ui.setTheme",
]);

/** @typedef {(typeof METHOD)[keyof typeof METHOD]} MethodName */
/** @typedef {{ [M in MethodName]: (typeof KIND)[M] extends "call" ? M : never }[MethodName]} CallMethod */
/** @typedef {{ [M in MethodName]: (typeof KIND)[M] extends "post" ? M : never }[MethodName]} PostMethod */
/** @typedef {{ [M in MethodName]: (typeof KIND)[M] extends "sync" ? M : never }[MethodName]} SyncMethod */

/**
 * How a worker runs one hook's handlers for one event, by name: the host sends the name, not the
 * plan (a name crosses the thread cheaper than an object). Which event gets which plan is the
 * host's (src/runner/dispatch.ts); what each does is worker/run.mjs.
 */
export const PLANS = Object.freeze({
  /** Every handler; results are not sent back (series). */
  series: Object.freeze({ discard: true }),
  /** Every handler, every result (last-wins, first-message, one handler called directly). */
  each: Object.freeze({}),
  /** Up to the first result with `block: true` (`emit` of a tool_call). */
  block: Object.freeze({ stop: /** @type {const} */ ("block") }),
  /** The same, and a handler that throws stops the run (`emitToolCall`: the error propagates). */
  blockOrThrow: Object.freeze({ stop: /** @type {const} */ ("block"), stopOnError: true }),
  /** Up to the first result with `cancel: true` (`session_before_*`). */
  cancel: Object.freeze({ stop: /** @type {const} */ ("cancel") }),
  /** Each handler's `messages` feed the next (context). */
  chain: Object.freeze({ chain: /** @type {const} */ ("messages") }),
});

/**
 * Whether `result` ends the run on its bail key (`block`, `cancel`): the key is `true`. The one
 * predicate of a bail, for the worker's loop (worker/run.mjs) and the host (src/runner/dispatch.ts). The contract says `block: true` /
 * `cancel: true`; the original tests truthiness (`if (result.cancel)`) on results nobody validates.
 * Here the key must be a boolean or the result is invalid and not applied, so on a valid result the
 * two agree, and on an invalid one (`{ block: "yes" }`) the worker must not stop the hook's later
 * handlers, since the host will not stop on it either.
 * @param {unknown} result @param {string} key
 */
export function bails(result, key) {
  return typeof result === "object" && result !== null && /** @type {Record<string, unknown>} */ (result)[key] === true;
}

/** The read-only session manager methods a hook may call (`ctx.sessionManager.*`). */
export const SESSION_METHODS = Object.freeze([
  "getCwd", "getSessionDir", "getSessionId", "getSessionFile", "getSessionName", "getArtifactsDir",
  "allocateArtifactPath", "saveArtifact", "getArtifactPath", "getLeafId", "getLeafEntry", "getEntry",
  "getLabel", "getBranch", "getHeader", "getEntries", "getTree", "getUsageStatistics", "putBlob",
]);

/**
 * The names a pi extension registers (hookbox/extension), one pattern each, for both sides: the
 * worker refuses a bad name at load naming it (worker/api.mjs), the host's schemas refuse it on
 * the wire (src/contract/registration-schemas.ts). None lets a control or a space through, and only a key id
 * a quote (`ctrl+'`): these names reach the agent's terminal, its command line and the model's tool list.
 */
export const NAME_PATTERNS = Object.freeze({
  /** OpenAI's and Anthropic's function-name rule. */
  tool: /^[A-Za-z0-9_-]{1,64}$/,
  /** `--name` on the agent's command line. */
  flag: /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/,
  /** `/name` in the agent's editor. */
  command: /^[A-Za-z0-9][A-Za-z0-9:._-]{0,63}$/,
  /** A key id like `ctrl+shift+u`: printable ASCII, no space. */
  key: /^[\x21-\x7e]{1,64}$/,
});

/**
 * Upper bounds of every count, length and depth on the wire (sizes in bytes are the
 * `maxMessageBytes` option). A message over one of them is refused by the host.
 */
export const LIMITS = Object.freeze({
  /**
   * The one depth bound: how deep a value a hook sends (result, details, arguments, an edited
   * field) may nest, below the value itself. Why: every walk the host makes of hook data (size,
   * the key gate, zod) then stays far from the stack's end, and no agent data nests this deep.
   */
  maxDepth: 64,
  /**
   * Levels a message adds above its deepest value: a batch, its list, a reply, the reply's value,
   * its steps and a step (6), and two to spare. A frame nested deeper than `maxDepth` plus these
   * is no message the runtime sends; the framed channel refuses it before any host code walks it.
   */
  envelopeDepth: 8,
  /** Characters of a name: event type, command, renderer type, method, error name or code. */
  maxName: 256,
  /** Characters of an error message or stack, a UI title or a label (longer texts are cut by the worker). */
  maxText: 64 * 1024,
  /** Characters of a path a hook names for the agent (a resource path, a bash result's output file). */
  maxPath: 4096,
  /** Characters of a text a hook gives the agent whole: a system prompt, an input's text, a user bash output. */
  maxPrompt: 1_000_000,
  /** Characters of a tool call's block reason: text the model reads, whoever's hook gave it (longer reasons are cut). */
  maxBlockReason: 1000,
  /** Distinct event types a hook may register handlers for. */
  maxEvents: 256,
  /** Handlers per event type. */
  maxHandlers: 1_000,
  /** Commands and message renderers, each. */
  maxCommands: 256,
  /** Arguments of one bridge call, and options of one `ui.select`. */
  maxArgs: 16,
  maxOptions: 1_000,
  /** Messages in one batch. */
  maxBatch: 10_000,
  /** Lines of one `render(width)` answer on the wire (a forged answer over it is refused whole). */
  maxRenderLines: 10_000,
  /**
   * What the host's UI is given from one `render(width)`: at most this many lines, each at most
   * `renderLineChars` characters; more is cut with a marker and reported (src/isolation/render-guard.ts).
   * The worker sends at most one line and one character over, so the host sees the excess without
   * copying all of it.
   */
  renderLines: 1_000,
  renderLineChars: 4_096,
  /** Characters a rendered line may take per column of the width asked (SGR styling takes characters, no columns); at least 256. */
  renderCharsPerColumn: 8,
  /** Bridge calls of one hook waiting on the host at once; more are refused. */
  maxConcurrentCalls: 64,
  /** UI prompts of one hook waiting behind the one on screen (prompts run one at a time); more are refused. */
  maxQueuedPrompts: 16,
  /** Protocol violations a hook may commit before its worker is ended as `protocol_violation`. */
  maxViolations: 100,
  /** Of those, how many are reported one by one (the end is reported once more). */
  reportedViolations: 10,
  /**
   * How long a hook's jiti waits for the host to transform one file (the host's one transform
   * thread serves every hook in turn, and a cold Babel start under load takes seconds); while the
   * host works on it, the hook is not counted as silent.
   */
  transformTimeoutMs: 60_000,
  /** Rendered components a worker keeps; the host releases its least recently used one past this. */
  maxComponents: 256,
  /** Ids of cancelled requests a worker remembers (a handler that never settles never removes its id). */
  maxCancelled: 10_000,
});

/**
 * Longest line a render for `width` columns gives the UI (src/isolation/render-guard.ts).
 * @param {number} width
 */
export function renderLineChars(width) {
  if (!Number.isFinite(width)) return LIMITS.renderLineChars;
  return Math.min(LIMITS.renderLineChars, Math.max(256, Math.floor(width) * LIMITS.renderCharsPerColumn));
}

/**
 * Defaults of the options that bound sizes and time, one place for both sides: src/options/options.ts
 * (`resolveSandboxOptions`) fills every option from these, and the bridge's schemas and the worker
 * read the same numbers.
 */
export const DEFAULTS = Object.freeze({
  /** `maxMessageBytes`: the largest result, message or argument (also the longest source one transform may send). */
  maxMessageBytes: 16 * 1024 * 1024,
  /** `transformCacheMaxBytes`, and the characters of `transformBudget` per window. */
  transformBytes: 64 * 1024 * 1024,
  /** `transformBudget.ms`: Babel time per window. */
  transformMs: 20_000,
  /** `deadlines.default` and the load's deadline (`deadlines.load`). */
  deadlineMs: 30_000,
  /** `syncTimeoutMs`: how long a synchronous `ctx` call waits for the host. */
  syncTimeoutMs: 5_000,
  /** `maxPostsPerSecond`. */
  maxPostsPerSecond: 5_000,
  unresponsiveMs: 3_000,
  loadUnresponsiveMs: 10_000,
  maxPausedMs: 10 * 60_000,
  maxRestarts: 3,
  restartWindowMs: 5 * 60_000,
  maxLongRestarts: 5,
  longRestartWindowMs: 60 * 60_000,
  renderTimeoutMs: 100,
  renderBudgetMs: 500,
  sandboxMemoryMb: 512,
  /** `policy.exec.timeoutMs`: the deadline of one `pi.exec` run. */
  execTimeoutMs: 30_000,
  /** `policy.exec.maxOutputBytes`: `pi.exec`'s stdout and stderr are each cut to this. */
  execOutputBytes: 1024 * 1024,
  /** `shellHooks.maxOutputBytes`: what a shell hook's stdout and stderr are each cut to. */
  shellOutputBytes: 1024 * 1024,
});

/** Bytes a frame of the framed channel (process and sandbox modes) may carry beyond `maxMessageBytes`: envelopes, batch wrappers. */
export const FRAME_SLACK_BYTES = 1024 * 1024;

/**
 * The largest frame the host accepts and the child writes whole (src/isolation/frames.ts,
 * worker/link-process.mjs). Why 3x: `maxMessageBytes` is checked on an estimate (`measure` below)
 * of 2 bytes a character, and JSON writes up to 6 (a control character or a lone surrogate as
 * `\u00XX`; UTF-8 writes 3 for most of the rest).
 * @param {number} maxMessageBytes
 */
export function maxFrameBytes(maxMessageBytes) {
  return Math.ceil(maxMessageBytes * 3) + FRAME_SLACK_BYTES;
}

/** Bytes of a frame's header: the body's length, 32 bits big-endian. */
export const FRAME_HEADER_BYTES = 4;

/** The deepest frame the host decodes further: the one depth bound and the envelope above it. */
export const MAX_FRAME_DEPTH = LIMITS.maxDepth + LIMITS.envelopeDepth;

/** The frame a hook's child process writes as it dies of an uncaught exception: `{ t: FATAL, e }` (its own claim). */
export const FATAL = "fatal";

/**
 * An agent message as both sides check it: an object with a string `role`, anything else kept as
 * is (the host's schema, src/contract/schemas.ts, and the worker's waterfall, worker/run.mjs).
 * @param {unknown} value @returns {value is { role: string; [key: string]: unknown }}
 */
export function isAgentMessage(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value) && typeof (/** @type {{ role?: unknown }} */ (value)).role === "string";
}

/**
 * A list of agent messages, as the context result's schema accepts it (src/contract/schemas.ts), checked
 * without a copy: the worker's waterfall (worker/run.mjs) and the host's use of its value.
 * A plain loop: this runs on every message of a 1 MiB context.
 * @param {unknown} value @returns {value is { role: string; [key: string]: unknown }[]}
 */
export function isMessageList(value) {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (!isAgentMessage(value[i])) return false;
  return true;
}

/**
 * Walks a value as JSON would and reports the first reason it cannot be one, or its estimated
 * size. Stops once the size passes `maxBytes` (so a huge or exponentially shared value costs at
 * most that much work) and never goes deeper than `maxDepth` (so the walk itself cannot overflow).
 * Strings count 2 bytes a character (V8's worst case), numbers 8, each key its length, each object,
 * array, Set and Map 16 (and what it holds: a Set's members, a Map's keys and values, one level
 * down). Shared references are counted each time, as a copy would hold them.
 * `envelope`: levels of the message above the value (an emit reply holds a result 3 levels down).
 * @param {unknown} value @param {number} maxBytes @param {number} [envelope]
 * @returns {{ bytes: number; issue?: string }}
 */
export function measure(value, maxBytes, envelope = 0) {
  const maxDepth = LIMITS.maxDepth + envelope;
  let bytes = 0;
  /** @type {string | undefined} */
  let issue;
  // The objects above the one being walked, by depth: a short array scan is cheaper than a Set.
  /** @type {object[]} */
  const path = [];
  /** @param {unknown} v @param {number} depth @returns {boolean} false to stop */
  const walk = (v, depth) => {
    switch (typeof v) {
      case "string": bytes += 2 * v.length + 4; break;
      case "number": bytes += 8; break;
      case "boolean": case "undefined": bytes += 1; break;
      case "bigint": issue = "a BigInt is not JSON data"; return false;
      case "object": {
        if (v === null) { bytes += 1; break; }
        for (let i = 0; i < depth; i++) if (path[i] === v) { issue = "the value contains a cycle"; return false; }
        if (depth >= maxDepth) { issue = `the value is nested deeper than ${LIMITS.maxDepth} levels`; return false; }
        bytes += 16;
        path[depth] = v;
        if (Array.isArray(v)) {
          for (let i = 0; i < v.length; i++) if (!walk(v[i], depth + 1)) return false;
        } else if (v instanceof Set) {
          for (const x of v) if (!walk(x, depth + 1)) return false;
        } else if (v instanceof Map) {
          for (const [k, x] of v) if (!walk(k, depth + 1) || !walk(x, depth + 1)) return false;
        } else if (ArrayBuffer.isView(v)) {
          bytes += v.byteLength;
        } else if (v instanceof ArrayBuffer) {
          bytes += v.byteLength;
        } else {
          for (const key in v) {
            bytes += key.length + 4;
            if (!walk(/** @type {Record<string, unknown>} */ (v)[key], depth + 1)) return false;
          }
        }
        break;
      }
      default: bytes += 8;
    }
    return bytes <= maxBytes;
  };
  walk(value, 0);
  return issue === undefined ? { bytes } : { bytes, issue };
}
