/** Importing hookbox runs no worker code in the host: no argv edits, no listeners, whatever the host is. */
import { fork } from "node:child_process";
import { expect, it } from "vitest";

it("importing hookbox in a forked host whose argv[2] looks like a boot record changes nothing in that host", async () => {
  const child = fork("test/support/imports-hookbox.mts", ['{"hookPath":"not a boot"}'], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const [report] = await new Promise<unknown[]>((resolve) => child.once("message", (m) => resolve([m])));
  const { before, after } = report as { before: unknown; after: unknown };
  expect(after).toEqual(before);
});
