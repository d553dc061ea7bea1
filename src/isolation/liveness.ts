/**
 * Whether a busy worker is still alive: any message it sends counts; a worker silent for half the
 * bound gets a ping, and one silent for the whole bound is ended as `unresponsive`. One interval
 * per worker while it has work (cheaper than a timer per request); the worker's handle is ref'd
 * only then, so an idle hook never keeps the host running.
 */
export interface LivenessHost {
  /** Requests in the pending table. */
  pending(): number;
  /** The event of the oldest pending request, if any. */
  firstEvent(): string | undefined;
  /** Ask the worker for an answer (the channel's flush). */
  ping(): void;
  /** Silent for `silentMs` while busy with `event`. */
  unresponsive(silentMs: number, event: string): void;
}

export class Liveness {
  readonly #endpoint: { ref(): void; unref(): void };
  readonly #unresponsiveMs: number;
  readonly #host: LivenessHost;
  #lastHeard = performance.now();
  #timer: NodeJS.Timeout | undefined;
  #every = 0;
  #pinging = false;
  #busy = false;
  #stopped = false;
  /** Work outside the pending table that still needs checks (the comlink load, a flush, a probe). */
  #held = 0;
  /** While loading: the bound for the load (a cold TypeScript transform blocks the worker a while). */
  #loadBound: number | undefined;
  /** Synchronous calls the host is still working on: the worker is blocked on the host, not silent. */
  #hostWork = 0;
  /** Set after a timeout until the worker shows it is alive: the event that timed out. */
  #probing: string | undefined;

  constructor(endpoint: { ref(): void; unref(): void }, unresponsiveMs: number, host: LivenessHost) {
    this.#endpoint = endpoint;
    this.#unresponsiveMs = unresponsiveMs;
    this.#host = host;
  }

  /** Call whenever the pending table grew from or shrank to empty (`now`: the caller's clock reading, if it has one). */
  update(now?: number): void {
    const busy = this.#held > 0 || this.#host.pending() > 0;
    if (this.#stopped || busy === this.#busy) return;
    this.#busy = busy;
    if (busy) this.#start(now);
    else {
      // The interval stops itself at its next tick.
      this.#pinging = false;
      this.#endpoint.unref();
    }
  }

  /** Check liveness while `work` runs, with its own bound when given (the load). */
  track<T>(work: Promise<T>, bound?: number): Promise<T> {
    if (bound !== undefined) this.#loadBound = bound;
    this.#held++;
    this.update();
    return work.finally(() => {
      if (bound !== undefined) this.#loadBound = undefined;
      this.#held--;
      this.update();
    });
  }

  /** The host serves a synchronous call until `work` settles; the worker counts as heard until then. */
  hostWork(work: Promise<unknown>): void {
    this.#hostWork++;
    const done = () => { this.#hostWork--; this.#lastHeard = performance.now(); };
    work.then(done, done);
  }

  /**
   * After a timeout the worker must still show it is alive: it gets a ping, and any message within
   * the bound clears it. A slow handler leaves the loop free and answers; a synchronous loop does
   * not, and its worker is terminated instead of spinning forever.
   */
  probe(event: string): void {
    if (this.#probing || this.#stopped) return;
    this.#probing = event;
    this.#held++;
    this.update();
    this.#pinging = true;
    this.#lastHeard = performance.now();
    this.#host.ping();
  }

  /** The worker sent something. */
  heard(): void {
    this.#lastHeard = performance.now();
    this.#pinging = false;
    if (this.#probing) {
      this.#probing = undefined;
      this.#held--;
      this.update();
    }
  }

  stop(): void {
    this.#stopped = true;
    this.#busy = false;
    this.#pinging = false;
    this.#endpoint.unref();
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  get #bound(): number {
    return this.#loadBound ?? this.#unresponsiveMs;
  }

  #start(now = performance.now()): void {
    this.#endpoint.ref();
    this.#lastHeard = now;
    const every = Math.max(5, Math.floor(this.#bound / 4));
    if (this.#timer && this.#every === every) return;
    if (this.#timer) clearInterval(this.#timer);
    this.#every = every;
    this.#timer = setInterval(() => this.#check(), every);
    this.#timer.unref();
  }

  #check(): void {
    if (this.#stopped || !this.#busy) {
      if (this.#timer) clearInterval(this.#timer);
      this.#timer = undefined;
      return;
    }
    if (this.#hostWork > 0) this.#lastHeard = performance.now();
    const silent = performance.now() - this.#lastHeard;
    if (silent >= this.#bound) {
      const event = this.#host.firstEvent() ?? this.#probing ?? (this.#loadBound !== undefined ? "load" : "worker");
      this.#host.unresponsive(Math.round(silent), event);
      return;
    }
    if (silent >= this.#bound / 2 && !this.#pinging) {
      this.#pinging = true;
      this.#host.ping();
    }
  }
}
