// Fault injection for /v1 requests: added latency, a share of 500/503/429
// answers, and dropped connections before or after the request is processed.
// Randomness comes from a seeded PRNG (seed 1 unless given), so a test that
// sets the same faults sees the same sequence.
import { validation } from "./errors";
import { isObject } from "./input";

export type FaultStatus = 500 | 503 | 429;

export interface FaultConfig {
  /** Added before the request is handled, in milliseconds (0 to 60000). */
  latencyMs?: number;
  /** Share (0 to 1) of requests answered with one of `statuses`. */
  errorRate?: number;
  /** Statuses to choose from (uniformly); default [503]. */
  statuses?: FaultStatus[];
  /** `Retry-After` of the 429 answer, seconds; default 1. */
  retryAfterSeconds?: number;
  /** Share (0 to 1) of requests whose connection is destroyed before they are processed. */
  dropBeforeRate?: number;
  /** Share (0 to 1) of requests processed (state changed) whose connection is destroyed before the answer. */
  dropAfterRate?: number;
  /** Only requests matching this method, path prefix and/or exact path (paths without query) are affected. */
  match?: { method?: string; pathPrefix?: string; path?: string };
  /** PRNG seed; default 1. */
  seed?: number;
  /** Faults apply to the next `count` matching requests only, then switch off. */
  count?: number;
  /** The first `skip` matching requests pass untouched (a fault at the n-th step of a sequence); default 0. */
  skip?: number;
}

export interface FaultPlan {
  latencyMs: number;
  dropBefore: boolean;
  errorStatus?: FaultStatus;
  retryAfterSeconds: number;
  dropAfter: boolean;
}

/** mulberry32: a small, good-enough seeded PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STATUSES: FaultStatus[] = [500, 503, 429];
/** The settings a fault configuration may hold: the body of `POST /_emulator/faults` (docs/emulator.md lists each). */
export const FAULT_SETTINGS = [
  "latencyMs",
  "errorRate",
  "statuses",
  "retryAfterSeconds",
  "dropBeforeRate",
  "dropAfterRate",
  "match",
  "seed",
  "count",
  "skip",
];

/** Validates a fault configuration from the control API or a test (400 on any bad field). */
export function parseFaults(input: unknown): FaultConfig {
  if (!isObject(input)) throw validation("Faults must be a JSON object");
  for (const k of Object.keys(input))
    if (!FAULT_SETTINGS.includes(k)) throw validation(`Unknown fault setting "${k}" (known: ${FAULT_SETTINGS.join(", ")})`);
  const num = (k: string, min: number, max: number, integer = false): number | undefined => {
    const v = input[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "number" || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
      throw validation(`${k} must be ${integer ? "an integer" : "a number"} from ${min} to ${max}`);
    }
    return v;
  };
  const out: FaultConfig = {
    latencyMs: num("latencyMs", 0, 60_000),
    errorRate: num("errorRate", 0, 1),
    retryAfterSeconds: num("retryAfterSeconds", 0, 86_400, true),
    dropBeforeRate: num("dropBeforeRate", 0, 1),
    dropAfterRate: num("dropAfterRate", 0, 1),
    seed: num("seed", 0, 2 ** 32 - 1, true),
    count: num("count", 0, Number.MAX_SAFE_INTEGER, true),
    skip: num("skip", 0, Number.MAX_SAFE_INTEGER, true),
  };
  if (input.statuses !== undefined && input.statuses !== null) {
    const s = input.statuses;
    if (!Array.isArray(s) || s.length === 0 || s.some((x) => !STATUSES.includes(x as FaultStatus))) {
      throw validation("statuses must be a non-empty array of 500, 503 and 429");
    }
    out.statuses = s as FaultStatus[];
  }
  if (input.match !== undefined && input.match !== null) {
    const m = input.match;
    if (!isObject(m)) throw validation("match must be an object {method?, pathPrefix?, path?}");
    for (const k of Object.keys(m)) if (!["method", "pathPrefix", "path"].includes(k)) throw validation(`Unknown match setting "${k}"`);
    if (m.method !== undefined && typeof m.method !== "string") throw validation("match.method must be a string");
    if (m.pathPrefix !== undefined && typeof m.pathPrefix !== "string") throw validation("match.pathPrefix must be a string");
    if (m.path !== undefined && typeof m.path !== "string") throw validation("match.path must be a string");
    out.match = {};
    if (typeof m.method === "string") out.match.method = m.method.toUpperCase();
    if (typeof m.pathPrefix === "string") out.match.pathPrefix = m.pathPrefix;
    if (typeof m.path === "string") out.match.path = m.path;
  }
  for (const k of Object.keys(out) as Array<keyof FaultConfig>) if (out[k] === undefined) delete out[k];
  return out;
}

export class Faults {
  private config?: FaultConfig;
  private random: () => number = prng(1);
  private remaining?: number;
  private skipping = 0;

  set(input: unknown): FaultConfig {
    const config = parseFaults(input);
    this.config = config;
    this.random = prng(config.seed ?? 1);
    this.remaining = config.count;
    this.skipping = config.skip ?? 0;
    return this.current() as FaultConfig;
  }

  clear(): void {
    this.config = undefined;
    this.remaining = undefined;
  }

  /** The active configuration (with `remaining` when `count` was given), or undefined. */
  current(): (FaultConfig & { remaining?: number }) | undefined {
    if (!this.config) return undefined;
    return this.remaining === undefined ? { ...this.config } : { ...this.config, remaining: this.remaining };
  }

  /** Decides what happens to one request; undefined when no fault applies. */
  plan(method: string, path: string): FaultPlan | undefined {
    const c = this.config;
    if (!c) return undefined;
    if (c.match?.method && c.match.method !== method.toUpperCase()) return undefined;
    if (c.match?.pathPrefix && !path.startsWith(c.match.pathPrefix)) return undefined;
    if (c.match?.path !== undefined && path !== c.match.path) return undefined;
    if (this.skipping > 0) {
      this.skipping--;
      return undefined;
    }
    if (this.remaining !== undefined) {
      if (this.remaining <= 0) return undefined;
      this.remaining--;
    }
    const hit = (rate: number | undefined): boolean => rate !== undefined && rate > 0 && this.random() < rate;
    const plan: FaultPlan = {
      latencyMs: c.latencyMs ?? 0,
      dropBefore: false,
      dropAfter: false,
      retryAfterSeconds: c.retryAfterSeconds ?? 1,
    };
    if (hit(c.dropBeforeRate)) {
      plan.dropBefore = true;
      return plan;
    }
    if (hit(c.errorRate)) {
      const statuses = c.statuses ?? [503];
      plan.errorStatus = statuses.length === 1 ? statuses[0] : statuses[Math.floor(this.random() * statuses.length)];
      return plan;
    }
    plan.dropAfter = hit(c.dropAfterRate);
    return plan;
  }
}
