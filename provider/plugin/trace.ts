// An opt-in record of the calls an engine makes: with BACKUPPORTAL_TRACE_FILE naming a file, every call to the
// plugin appends one JSON line once it is answered, {method, urn, id, preview, olds, news, oldInputs, error}, the
// property maps as the engine sent them; the dynamic providers' host appends its calls the same way
// (tracedLifecycle). The conformance test (test/real-engine/conformance.test.ts) compares what the real Pulumi CLI
// and the engine stand-in ask of the provider with it; it also shows what an engine does. Secrets never reach
// the file: a value the engine sent wrapped as a secret is written as "[secret]", and a secret key of the
// resource's table (a node's passwords) or of the provider (password) that came as plain text as
// "[secret sent in plain text]", so the two can still be told apart.
import * as fs from "fs";
import { RESOURCES as TABLES, secretKeys } from "../rules/resources";
import type { UnaryHandler } from "./grpc";
import type { Answer, Call } from "./message-codec";
import type { Lifecycle } from "../dynamic/provider";
import { PACKAGE, SECRET_CONFIG_KEYS, tokenOfName } from "./package";
import { SECRET_SIG, SIG_KEY } from "./values";

export const TRACE_ENV = "BACKUPPORTAL_TRACE_FILE";

/** Which request map is the call's olds and which its news (Create's properties are news, Delete's olds). */
const MAPS: Record<string, { olds?: string; news?: string }> = {
  create: { news: "properties" },
  delete: { olds: "properties" },
  read: { olds: "properties", news: "inputs" },
  configure: { news: "args" },
};

const CONFIG_SECRETS = new Set(SECRET_CONFIG_KEYS.flatMap((k) => [k, `${PACKAGE}:${k}`, `${PACKAGE}:config:${k}`]));

function masked(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(masked);
  if (v && typeof v === "object") {
    if ((v as Record<string, unknown>)[SIG_KEY] === SECRET_SIG) return "[secret]";
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, masked(x)]));
  }
  return v;
}

/** A property map with every secret replaced: wrapped ones, and plain values of the keys that are secret. */
function maskedMap(m: unknown, secret: Set<string>): unknown {
  if (!m || typeof m !== "object") return m;
  const out = masked(m) as Record<string, unknown>;
  for (const k of Object.keys(out)) if (secret.has(k) && out[k] !== null && out[k] !== "[secret]") out[k] = "[secret sent in plain text]";
  return out;
}

/** The secret keys of a call: the provider's for a configuration call, else those of the resource's table. */
function secretKeysOf(method: string, message: any): Set<string> {
  if (/config/i.test(method)) return CONFIG_SECRETS;
  const urnType = String(message?.getUrn?.() ?? "").split("::")[2] ?? "";
  const token = message?.getType?.() || urnType.split("$").pop() || "";
  const spec = TABLES.find((s) => tokenOfName(s.name) === token);
  return new Set(spec ? secretKeys(spec) : []);
}

function line(method: string, call: Call, answer: Answer | undefined, error: unknown): string {
  const { message, maps } = call;
  const secret = secretKeysOf(method, message);
  const names = MAPS[method] ?? { olds: "olds", news: "news" };
  const entry: Record<string, unknown> = { method };
  const urn = message?.getUrn?.();
  if (urn) entry.urn = urn;
  // Create has no id until the plugin answers one.
  const id = method === "create" ? answer?.message?.getId?.() : message?.getId?.();
  if (id) entry.id = id;
  if (message?.getPreview?.()) entry.preview = true;
  if (names.olds && maps[names.olds] !== undefined) entry.olds = maskedMap(maps[names.olds], secret);
  if (names.news && maps[names.news] !== undefined) entry.news = maskedMap(maps[names.news], secret);
  if (maps.oldInputs !== undefined) entry.oldInputs = maskedMap(maps.oldInputs, secret);
  if (error !== undefined) entry.error = error instanceof Error ? error.message : String(error);
  return JSON.stringify(entry) + "\n";
}

/**
 * A dynamic provider's lifecycle (dynamic/provider.ts hostProvider) whose calls are appended to `file` the same
 * way. The dynamic-provider host passes no URN and no type: a line names its resource by the `createKey` in its
 * properties, and the secret keys of every table count.
 */
export function tracedLifecycle(lifecycle: Lifecycle, file = process.env[TRACE_ENV]): Lifecycle {
  if (!file) return lifecycle;
  const secret = new Set(TABLES.flatMap((spec) => secretKeys(spec)));
  /** Runs one call and appends its line (a create's with the id it answered). */
  async function run<R>(method: string, id: string | undefined, olds: unknown, news: unknown, call: () => Promise<R>): Promise<R> {
    const entry: Record<string, unknown> = { method };
    if (id) entry.id = id;
    if (olds !== undefined) entry.olds = maskedMap(olds, secret);
    if (news !== undefined) entry.news = maskedMap(news, secret);
    try {
      const r = await call();
      if (method === "create") entry.id = (r as { id?: string }).id;
      return r;
    } catch (e) {
      entry.error = e instanceof Error ? e.message : String(e);
      throw e;
    } finally {
      fs.appendFileSync(file!, JSON.stringify(entry) + "\n");
    }
  }
  return {
    check: (olds, news) => run("check", undefined, olds, news, () => lifecycle.check(olds, news)),
    diff: (id, olds, news) => run("diff", id, olds, news, () => lifecycle.diff(id, olds, news)),
    create: (inputs) => run("create", undefined, undefined, inputs, () => lifecycle.create(inputs)),
    read: (id, props) => run("read", id, props, undefined, () => lifecycle.read(id, props)),
    update: (id, olds, news) => run("update", id, olds, news, () => lifecycle.update(id, olds, news)),
    delete: (id, props) => run("delete", id, props, undefined, () => lifecycle.delete(id, props)),
  };
}

/** The handlers, each appending its call to `file` once answered; the handlers themselves without a file. */
export function traced(handlers: Record<string, UnaryHandler>, file = process.env[TRACE_ENV]): Record<string, UnaryHandler> {
  if (!file) return handlers;
  const out: Record<string, UnaryHandler> = {};
  for (const [method, handler] of Object.entries(handlers)) {
    out[method] = async (call: Call) => {
      try {
        const answer = (await handler(call)) as Answer;
        fs.appendFileSync(file, line(method, call, answer, undefined));
        return answer;
      } catch (e) {
        fs.appendFileSync(file, line(method, call, undefined, e));
        throw e;
      }
    };
  }
  return out;
}
