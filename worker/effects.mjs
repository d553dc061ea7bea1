// What a hook may do to the agent, lowest first. `policy.effects` grants one class, and with it every
// class below: `observe` changes nothing, `restrict` makes the agent do less (a blocked tool call, a
// cancelled switch, a subset of the context), `substitute` makes it do or read something else (an
// edited input, a rewritten result, an added message). Shared by the host's event and member tables
// (src/contract/events.ts, worker/extension-members.mjs) and the policy (src/policy/policy.ts).

export const EFFECTS = Object.freeze(/** @type {const} */ (["observe", "restrict", "substitute"]));

/**
 * Whether a hook granted `grant` may use an effect of class `effect`.
 * @param {string} grant @param {string} effect
 */
export function allows(grant, effect) {
  const asked = EFFECTS.indexOf(/** @type {any} */ (effect));
  return asked >= 0 && asked <= EFFECTS.indexOf(/** @type {any} */ (grant));
}
