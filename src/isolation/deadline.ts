/**
 * A deadline that measures only the hook's own time: it is paused while the hook waits on a UI
 * prompt and resumed when the answer goes back. The paused time itself is bounded
 * (`maxPausedMs`), so waiting on the host cannot keep a request pending forever.
 *
 * Every deadline of the host shares one timer, armed for the earliest: a request that settles
 * before its deadline (nearly all of them) costs an array push, not a timer start and stop.
 */
export class PausableDeadline {
  #remaining: number;
  #pauseLeft: number;
  #startedAt = 0;
  #pausedAt = 0;
  #paused = 0;
  #armed = true;
  /** When it expires (performance.now() time) while it counts down, else Infinity; whether that is the pause bound. */
  due = Infinity;
  /** Whether it is in `live` (module-internal). */
  listed = false;
  #dueIsPause = false;
  /** Dropped when cleared: a cleared deadline may wait in `live` for a sweep, and must not keep its request's data alive. */
  #onExpire: ((paused: boolean) => void) | undefined;

  /** `onExpire(true)`: the request waited on the host for more than `maxPausedMs` in all. */
  /** `now`: the caller's `performance.now()`, when it has one (a request reads the clock once). */
  constructor(ms: number, onExpire: (paused: boolean) => void, maxPausedMs = Infinity, now?: number) {
    this.#remaining = ms;
    this.#pauseLeft = maxPausedMs;
    this.#onExpire = onExpire;
    // A request without a deadline has nothing to pause.
    this.#armed = Number.isFinite(ms);
    this.#arm(now);
  }

  pause(): void {
    if (this.#paused++ > 0 || !this.#armed) return;
    const now = performance.now();
    this.#remaining -= now - this.#startedAt;
    this.#pausedAt = now;
    if (Number.isFinite(this.#pauseLeft)) this.#set(now + this.#pauseLeft, true);
    else this.#unset();
  }

  resume(): void {
    if (this.#paused === 0 || --this.#paused > 0 || !this.#armed) return;
    this.#pauseLeft -= performance.now() - this.#pausedAt;
    this.#arm();
  }

  clear(): void {
    this.#onExpire = undefined;
    this.#unset();
    this.#remaining = Infinity;
    this.#armed = false;
  }

  /** Called by the shared timer once `due` has come. */
  expire(): void {
    const paused = this.#dueIsPause;
    this.#unset();
    this.#onExpire?.(paused);
  }

  #arm(now = performance.now()): void {
    if (!Number.isFinite(this.#remaining)) { this.#unset(); return; }
    this.#startedAt = now;
    this.#set(this.#startedAt + this.#remaining, false);
  }

  #set(due: number, paused: boolean): void {
    if (this.due === Infinity) counting++;
    this.due = due;
    this.#dueIsPause = paused;
    if (!this.listed) {
      this.listed = true;
      live.push(this);
    }
    schedule(due);
  }

  #unset(): void {
    if (this.due === Infinity) return;
    this.due = Infinity;
    counting--;
    if (live.length > 64 && live.length > 4 * counting) sweep();
  }
}

/**
 * Every deadline counting down, and stopped ones not yet swept out. Why not a Set: a request
 * adds and removes its deadline within microseconds, and a small Set rehashes on that churn; a
 * stopped deadline only sets `due` to Infinity, and the array is swept once it is mostly stopped.
 */
const live: PausableDeadline[] = [];
/** How many deadlines in `live` count down. */
let counting = 0;

function sweep(): void {
  let kept = 0;
  for (const d of live) {
    if (d.due !== Infinity) live[kept++] = d;
    else d.listed = false;
  }
  live.length = kept;
}
let timer: NodeJS.Timeout | undefined;
let timerAt = Infinity;
/** A timer fires on the event loop's millisecond clock, which may be up to this far behind `performance.now()`. */
const SLACK_MS = 1;

/** Make sure the shared timer fires by `due`. A timer armed for later is moved; an earlier one stays. */
function schedule(due: number): void {
  if (timer !== undefined && timerAt <= due) return;
  if (timer !== undefined) clearTimeout(timer);
  timerAt = due;
  timer = setTimeout(fire, Math.max(0, due - performance.now()));
  timer.unref();
}

/** Expire every deadline that is due (earliest first), and arm the timer for the next one. */
function fire(): void {
  timer = undefined;
  timerAt = Infinity;
  const now = performance.now() + SLACK_MS;
  const due: PausableDeadline[] = [];
  let next = Infinity;
  for (const d of live) {
    if (d.due <= now) due.push(d);
    else if (d.due < next) next = d.due;
  }
  sweep();
  if (next !== Infinity) schedule(next);
  due.sort((a, b) => a.due - b.due);
  for (const d of due) {
    // One expiry that throws must not keep the others from expiring; it still surfaces as uncaught.
    try {
      if (d.due <= now) d.expire();
    } catch (err) {
      queueMicrotask(() => { throw err; });
    }
  }
}
