/** The environment gate (worker/child-env.mjs): what every child process of the host gets. */
import { afterEach, describe, expect, it } from "vitest";
import { childEnv, fromHostEnv, hostEnvValue, launcherEnv } from "../worker/child-env.mjs";
import { hookEnv, presets } from "../src/policy/policy.js";

afterEach(() => {
  delete (Object.prototype as Record<string, unknown>).HOOKBOX_PLANTED;
});

describe("the environment gate", () => {
  it("builds a null-prototype object of own, valid string entries only", () => {
    const from = Object.assign(Object.create({ INHERITED: "x" }), { A: "1", B: undefined, "C=D": "x", E: "a\0b", F: 2 });
    const env = childEnv(from);
    expect(Object.getPrototypeOf(env)).toBeNull();
    expect({ ...env }).toEqual({ A: "1" });
    expect({ ...childEnv([["X", "1"], ["", "2"]]) }).toEqual({ X: "1" });
  });

  it("a polluted Object.prototype reaches no environment it builds, nor a host variable read through it", () => {
    (Object.prototype as Record<string, unknown>).HOOKBOX_PLANTED = "planted";
    const envs = [childEnv({ A: "1" }), fromHostEnv(() => true), launcherEnv(), hookEnv(presets.trusted), hookEnv(presets.untrusted)];
    for (const env of envs) {
      const names: string[] = [];
      for (const name in env) names.push(name); // as Node's spawn reads it
      expect(names).not.toContain("HOOKBOX_PLANTED");
    }
    expect(hostEnvValue("HOOKBOX_PLANTED")).toBeUndefined();
  });

  it("the launcher's environment is PATH alone: no BASH_ENV, ENV or exported functions of the host reach bash", () => {
    process.env.BASH_ENV = "/tmp/x.sh";
    process.env.ENV = "/tmp/x.sh";
    process.env["BASH_FUNC_exec%%"] = "() { echo hi; }";
    try {
      expect(Object.keys(launcherEnv())).toEqual(["PATH"]);
    } finally {
      delete process.env.BASH_ENV;
      delete process.env.ENV;
      delete process.env["BASH_FUNC_exec%%"];
    }
  });
});
