/**
 * One worker of a hook (a generation: `HookSupervisor` starts a new one at each restart), from its
 * launch to its death: the channel over its endpoint, how it ended (named once, by the host's end
 * of it or by `classifyDeath`), whether callers already heard of that, and when nothing of it is
 * left. Which generation is the hook's current one, and what follows a death, is the supervisor's.
 */
import type { HookFailure } from "../contract/errors.js";
import type { Manifest } from "../contract/protocol.js";
import type { ResolvedSandboxOptions } from "../options/options.js";
import type { SandboxBridge } from "../bridge/bridge.js";
import type { HookEndpoint } from "./endpoint.js";
import type { OutputLines } from "./output.js";
import { HookChannel } from "./channel.js";
import { classifyDeath } from "./death.js";

/** A failure named for the event it reaches. */
export type NamedFailure = (event: string) => HookFailure;

export class Generation {
  readonly channel: HookChannel;
  /** Resolves with its death, named for the load (what a load in progress meets). */
  readonly death: Promise<HookFailure>;
  /** Resolves once nothing of it is left (ports closed), or the host stopped waiting for it. */
  readonly exited: Promise<void>;
  /** How it ended, once it did or the host ended it (the host's reason wins: it is set first). */
  failure: NamedFailure | undefined;
  /** Its end already reached callers as rejected requests (so it is not reported again). */
  seenByRequests = false;

  /**
   * `sent`: its stdout and stderr lines (./hook-log.ts), ended with it. `ended`: the host ended it
   * (a flood, a blocked loop): `failure` is set, pending requests rejected. `died`: it is gone
   * (after its pending requests were rejected, its load told).
   */
  constructor(readonly endpoint: HookEndpoint, hookPath: string, bridge: SandboxBridge, options: ResolvedSandboxOptions,
    sent: Record<"stdout" | "stderr", OutputLines>,
    on: { fault(failure: HookFailure): void; manifest(manifest: Manifest): void; ended(failure: NamedFailure): void; died(): void }) {
    this.channel = new HookChannel(endpoint, hookPath, bridge, {
      maxMessageBytes: options.maxMessageBytes,
      unresponsiveMs: options.unresponsiveMs,
      maxPostsPerSecond: options.maxPostsPerSecond,
      maxPausedMs: options.maxPausedMs,
    }, {
      fault: on.fault,
      manifest: on.manifest,
      end: (failure) => {
        if (this.failure) return;
        this.#close(failure);
        on.ended(failure);
        void endpoint.terminate();
      },
    });
    let died!: (f: HookFailure) => void;
    this.death = new Promise<HookFailure>((resolve) => (died = resolve));
    this.exited = new Promise((resolve) => endpoint.onDeath((end) => {
      this.failure ??= classifyDeath(hookPath, end);
      sent.stdout.end();
      sent.stderr.end();
      this.#close(this.failure);
      died(this.failure("load"));
      // Ports close asynchronously; `dispose()` resolves once nothing of this worker is left.
      if (end.abandoned) resolve();
      else void endpoint.released.then(() => resolve());
      on.died();
    }));
  }

  /** The host ends it for good (dispose): pending requests reject with its end, or with `failure` if it had none. */
  close(failure: NamedFailure): void {
    this.failure ??= failure;
    this.#close(this.failure);
  }

  #close(failure: NamedFailure): void {
    this.failure = failure;
    if (this.channel.close(failure) > 0) this.seenByRequests = true;
  }
}
