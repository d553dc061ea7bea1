/**
 * A worker's budget of messages outside the protocol (the channel's and its host calls'): each
 * violation is counted; the first few are reported one by one, and past the budget the worker is
 * ended as `protocol_violation`, reported once, so a flood costs the host a bounded amount.
 */
import { Errors, type HookFailure } from "../contract/errors.js";
import { LIMITS } from "../../worker/wire.mjs";

export interface ViolationSink {
  /** Report one violation (within the reported few). */
  fault(failure: HookFailure): void;
  /** End the worker with this failure (over the budget). */
  end(failure: (event: string) => HookFailure): void;
}

export class ViolationBudget {
  readonly #hookPath: string;
  readonly #sink: ViolationSink;
  #count = 0;

  constructor(hookPath: string, sink: ViolationSink) {
    this.#hookPath = hookPath;
    this.#sink = sink;
  }

  count(failure: HookFailure): void {
    const n = ++this.#count;
    if (n <= LIMITS.reportedViolations) this.#sink.fault(failure);
    if (n !== LIMITS.maxViolations + 1) return;
    const detail = `more than ${LIMITS.maxViolations} messages outside the protocol (last: ${failure.message.replace(/^.*?which was dropped: /, "")}); its worker was ended`;
    this.#sink.end((event) => Errors.protocolViolation(this.#hookPath, detail, event));
  }
}
