/**
 * The event table (src/contract/events.ts) and what is derived from it: every row's sample is an event its
 * own payload schema accepts, and every schema derived from a row (results, edits) keeps the key
 * gate. That a missing or wrong row does not compile is checked by tsc (`npx tsc --noEmit`).
 */
import { describe, expect, it } from "vitest";
import { EVENTS, EVENT_TYPES, RESULT_EVENTS, signalFields } from "../src/contract/events.js";
import { ruleFor } from "../src/runner/dispatch.js";
import { checkEdits } from "../src/runner/edits.js";
import { payloadProblem } from "../src/cli/payloads.js";
import { parseEvent } from "../src/cli/events.js";
import type { HookResultMap } from "../src/contract/types.js";

/** `{ [key]: { x: 1 } }` with `key` an own property, as JSON.parse makes it. */
const owning = (key: string) => JSON.parse(`{ ${JSON.stringify(key)}: { "x": 1 } }`) as Record<string, unknown>;

describe("the event table", () => {
  it("every row's sample is an event of its type that its payload schema (the CLI's check) accepts", () => {
    for (const type of EVENT_TYPES) {
      const { type: sampleType, ...fields } = EVENTS[type].sample() as unknown as Record<string, unknown>;
      expect(sampleType).toBe(type);
      expect(payloadProblem(type, fields), type).toBeUndefined();
    }
  });

  it("the events with a result are exactly HookResultMap's, each with a rule that is not series", () => {
    const withResult: Record<keyof HookResultMap, true> = {
      session_before_switch: true, session_before_branch: true, session_before_compact: true, "session.compacting": true,
      session_before_tree: true, context: true, before_agent_start: true, tool_call: true, tool_result: true,
      session_before_fork: true, input: true, user_bash: true, message_end: true, before_provider_request: true, resources_discover: true,
    };
    expect([...RESULT_EVENTS].sort()).toEqual(Object.keys(withResult).sort());
    for (const type of RESULT_EVENTS) expect(ruleFor(type).kind, type).not.toBe("series");
  });

  it("the AbortSignal fields are read off the samples: session_before_compact's and session_before_tree's signal", () => {
    expect(EVENT_TYPES.filter((t) => signalFields(t).length > 0)).toEqual(["session_before_compact", "session_before_tree"]);
    expect(signalFields("session_before_tree")).toEqual(["signal"]);
    const { signal: _signal, ...fields } = EVENTS.session_before_tree.sample();
    expect((parseEvent(JSON.stringify(fields)) as { signal?: unknown }).signal).toBeInstanceOf(AbortSignal);
  });
});

describe("the key gate on every schema derived from a row", () => {
  for (const key of ["__proto__", "constructor", "prototype"]) {
    it(`a result holding an own ${key} key is refused by every event's result schema`, () => {
      for (const type of RESULT_EVENTS) {
        const parsed = ruleFor(type).schema!.safeParse(owning(key));
        expect(parsed.success, type).toBe(false);
        expect(parsed.error!.issues[0]!.message, type).toContain(`the key "${key}" is refused`);
      }
    });

    it(`an edit holding an own ${key} key is refused for every field of every event`, () => {
      for (const type of EVENT_TYPES) {
        for (const field of Object.keys(EVENTS[type].payload)) {
          const event = { ...(EVENTS[type].sample() as unknown as Record<string, unknown>), [field]: {} };
          const { valid, refused } = checkEdits({ [field]: owning(key) }, event);
          expect(Object.keys(valid), `${type}.${field}`).toEqual([]);
          expect(refused, `${type}.${field}`).toEqual([{ field, detail: expect.stringContaining(`the key "${key}" is refused`) }]);
        }
      }
    });
  }

  it("before_agent_start's images take image blocks only (the edit schema is the row's payload schema)", () => {
    const event = { type: "before_agent_start", prompt: "p" };
    expect(checkEdits({ images: [{ type: "image", data: "aGk=", mimeType: "image/png" }] }, event).refused).toEqual([]);
    expect(checkEdits({ images: [{ type: "text", text: "not an image" }] }, event).refused).toEqual([{ field: "images", detail: expect.stringMatching(/^0\.type: .*"image"/) }]);
  });
});
