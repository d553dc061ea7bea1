/**
 * pi's own extension loader and runner (pi 0.73.1, the installed package) for a test file: imported
 * once before its tests, every runner it made shut down after each test. `inPi` loads one factory
 * as pi loads an extension and starts the session.
 */
import { join } from "node:path";
import { afterEach, beforeAll } from "vitest";
import { importPi, installPiDir } from "./pi-agent.js";

type Any = any;

export interface PiLoader {
  /** The installed package's folder (what `isolateDiscovered` is given as `piRoot`). */
  readonly root: string;
  /** `notify`: give pi a UI whose notify collects what pi shows the person (`notified`). */
  inPi(factory: unknown, cwd: string, options?: { notify?: boolean }): Promise<{ runner: Any; errors: string[]; extension: Any; notified: string[] }>;
}

export function piLoader(): PiLoader {
  let loader: Any;
  let Runner: Any;
  let SessionManager: Any;
  let root = "";
  const runners: Any[] = [];
  beforeAll(async () => {
    const dir = installPiDir();
    root = join(dir, "node_modules", "@mariozechner", "pi-coding-agent");
    ({ loader, Runner, SessionManager } = await importPi(dir));
  }, 300_000);
  afterEach(async () => {
    for (const runner of runners.splice(0)) await runner.emit({ type: "session_shutdown", reason: "quit" });
  });
  return {
    get root() { return root; },
    async inPi(factory, cwd, options = {}) {
      const runtime = loader.createExtensionRuntime();
      const extension = await loader.loadExtensionFromFactory(factory, cwd, undefined, runtime, "<discovered>");
      const runner = new Runner([extension], runtime, cwd, SessionManager.inMemory(cwd), {});
      runners.push(runner);
      const errors: string[] = [];
      runner.onError((e: { error: string }) => errors.push(e.error));
      const notified: string[] = [];
      if (options.notify) runner.setUIContext({ notify: (message: string) => { notified.push(message); }, setStatus: () => {}, theme: {} });
      await runner.emit({ type: "session_start", reason: "startup" });
      return { runner, errors, extension, notified };
    },
  };
}
