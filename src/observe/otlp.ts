/**
 * OTLP export from a launcher (`hookbox claude`'s router): when the standard
 * `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set, hookbox registers
 * a tracer provider that exports its spans over OTLP/HTTP with JSON, through the SDK packages the
 * user installed beside hookbox or in the project (`@opentelemetry/api`,
 * `@opentelemetry/sdk-trace-base`, `@opentelemetry/exporter-trace-otlp-http`); hookbox ships none.
 * Missing packages or another protocol: nothing is exported, and `hookbox claude` says why once at
 * its start (the router's own stderr is what Claude Code reads as a hook's answer).
 */
import { createRequire } from "node:module";
import { join } from "node:path";

export const OTLP_PACKAGES = ["@opentelemetry/api", "@opentelemetry/sdk-trace-base", "@opentelemetry/exporter-trace-otlp-http"] as const;

/** The OTLP variables of `env` (and OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES), for a launcher to hand to its router: Claude Code passes no OTEL_* variable to a hook. */
export function otlpEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && (e[0].startsWith("OTEL_EXPORTER_OTLP_") || e[0] === "OTEL_SERVICE_NAME" || e[0] === "OTEL_RESOURCE_ATTRIBUTES")));
}

/** Whether `env` asks for OTLP export of traces. */
export const otlpAsked = (env: NodeJS.ProcessEnv): boolean => Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);

/** Why OTLP export that `env` asks for cannot happen (another protocol, a package missing), or undefined. */
export function otlpProblem(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!otlpAsked(env)) return undefined;
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || "http/json";
  if (protocol !== "http/json") return `OTEL_EXPORTER_OTLP_PROTOCOL is "${protocol}"; hookbox exports its spans over "http/json" only, so none are exported`;
  const loaded = load(env);
  if (typeof loaded === "string") return `OTEL_EXPORTER_OTLP_* is set but ${loaded} cannot be loaded, so no spans are exported: npm install ${OTLP_PACKAGES.join(" ")} (beside hookbox or in the project)`;
  return undefined;
}

/**
 * Run `body` with an OTLP exporting tracer provider registered when `env` asks for one it can
 * build (`otlpProblem` says why not; the launcher says it once, where the user reads it), and
 * flush what it exported before returning.
 */
export async function withOtlp<T>(body: () => Promise<T>, env: NodeJS.ProcessEnv = process.env): Promise<T> {
  if (otlpProblem(env) !== undefined || !otlpAsked(env)) return body();
  const [api, sdk, otlp] = load(env) as [any, any, any];
  // The exporter reads its endpoint and headers from process.env when built: a router handed them in its plan puts them there (its process is one event's).
  for (const [name, value] of Object.entries(otlpEnv(env))) process.env[name] ??= value;
  const provider = new sdk.BasicTracerProvider({ spanProcessors: [new sdk.BatchSpanProcessor(new otlp.OTLPTraceExporter())] });
  api.trace.setGlobalTracerProvider(provider);
  try {
    return await body();
  } finally {
    try {
      await provider.shutdown();
    } catch {
      // A receiver that is down loses these spans; the hook's answer does not wait on it.
    }
    api.trace.disable();
  }
}

/** The three packages, from hookbox's folder, else the project's; the name of the first that is missing. */
function load(env: NodeJS.ProcessEnv): [any, any, any] | string {
  const from = [createRequire(import.meta.url), createRequire(join(env.PWD || process.cwd(), "package.json"))];
  const out: any[] = [];
  for (const name of OTLP_PACKAGES) {
    let found: unknown;
    for (const req of from) {
      try {
        found = req(name);
        break;
      } catch {
        // not there: the next place
      }
    }
    if (found === undefined) return name;
    out.push(found);
  }
  return out as [any, any, any];
}
