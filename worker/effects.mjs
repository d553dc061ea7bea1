// What a hook may do to the agent, lowest first. `policy.effects` grants one class, and with it every
// class below: `observe` changes nothing, `restrict` makes the agent do less (a blocked tool call, a
// cancelled switch, a subset of the context), `annotate` adds context the model reads beside what
// the agent has (the module's own message, text appended to the system prompt, at most
// ANNOTATE_MAX_CHARS), `substitute` makes it do or read something else (an edited input, a
// rewritten result, a message in the user's name). Shared by the host's event and member tables
// (src/contract/events.ts, worker/extension-members.mjs) and the policy (src/policy/policy.ts).

export const EFFECTS = Object.freeze(/** @type {const} */ (["observe", "restrict", "annotate", "substitute"]));

/** How much text one hook may add to what the model reads, per field of one answer (`annotate`); more is a substitute. */
export const ANNOTATE_MAX_CHARS = 4000;

/**
 * Whether a hook granted `grant` may use an effect of class `effect`.
 * @param {string} grant @param {string} effect
 */
export function allows(grant, effect) {
  const asked = EFFECTS.indexOf(/** @type {any} */ (effect));
  return asked >= 0 && asked <= EFFECTS.indexOf(/** @type {any} */ (grant));
}
