/**
 * The gate in front of the host's model registry (`ctx.modelRegistry`): which of its methods a hook
 * may call, by `policy.modelRegistry`. Why a closed list: the host's registry is the agent's own
 * object, holding API keys (`getApiKey`, `getApiKeyForProvider`) and methods that change the agent's
 * state (`setApiKey`, `refresh`, `registerProvider`, …); a method not named here is refused
 * whatever the host's object has, unless the policy is `"all"` (the original's access). A refusal
 * names the method and the policy value that grants it.
 */
import type { ModelRegistryAccess, Policy } from "../policy/policy.js";

/** Lookups: no keys, nothing that changes the registry. */
const READ: ReadonlySet<string> = new Set(["getAll", "getAvailable", "find", "isUsingOAuth", "getError"]);
/** Methods that answer API keys. */
const KEYS: ReadonlySet<string> = new Set(["getApiKey", "getApiKeyForProvider"]);
/** Fields of a model that can carry credentials (custom providers put auth headers here): left out under `"read"`. */
const CREDENTIAL_FIELDS = ["headers", "apiKey"];

/** The access a policy gives; absent is `"read"`. */
export function registryAccess(policy: Policy): ModelRegistryAccess {
  return policy.modelRegistry ?? "read";
}

/** Why `ctx.modelRegistry.<method>()` is refused under `policy`, or undefined when it may run. */
export function registryRefusal(policy: Policy, method: string): string | undefined {
  const access = registryAccess(policy);
  if (access === "all" || READ.has(method) || (access === "keys" && KEYS.has(method))) return undefined;
  const grant = KEYS.has(method)
    ? `it answers API keys; policy.modelRegistry: "keys" grants it`
    : `it is not a lookup (it may change the host's registry); only policy.modelRegistry: "all" grants it`;
  return `ctx.modelRegistry.${method}() is not allowed for this hook (policy.modelRegistry is "${access}"): ${grant}`;
}

/** What a lookup answers, as the hook may see it: under `"read"` models lose the fields that can carry credentials. */
export function registryAnswer(policy: Policy, value: unknown): unknown {
  if (registryAccess(policy) !== "read") return value;
  if (typeof (value as PromiseLike<unknown> | undefined)?.then === "function") return Promise.resolve(value).then((v) => registryAnswer(policy, v));
  return Array.isArray(value) ? value.map(withoutCredentials) : withoutCredentials(value);
}

function withoutCredentials(model: unknown): unknown {
  if (typeof model !== "object" || model === null || Array.isArray(model)) return model;
  if (!CREDENTIAL_FIELDS.some((f) => Object.hasOwn(model, f))) return model;
  const copy: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(model)) if (!CREDENTIAL_FIELDS.includes(k)) copy[k] = v;
  return copy;
}
