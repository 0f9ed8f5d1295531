// The fewest requests the portal API allows for each phase of the benchmark's
// workload, by endpoint, and the wall time they need at a latency and
// parallelism (docs/benchmark.md, "The ideal"). Shared by the benchmark and the
// test that keeps the providers at that minimum.
import type { RequestLogEntry } from "../emulator";

export interface IdealOptions {
  tenants: number;
  consumers: number;
  passwords: boolean;
  /** ms per request */
  latency: number;
  /** operations at once */
  parallel: number;
}

/** Requests by endpoint ("METHOD /path/{id}/..."), the dependency depth in requests, and what they need at L ms and P at once. */
export interface Ideal {
  byEndpoint: Record<string, number>;
  total: number;
  depth: number;
  wallMs: number;
}

export const TOKEN = "POST /v1/oauth";
const B = "/v1/bunits/{id}";
const C = `${B}/consumers/{id}`;

/** A logged request as an endpoint: ids replaced by {id}, query dropped. */
export function endpoint(r: Pick<RequestLogEntry, "method" | "path">): string {
  const path = r.path.split("?")[0].replace(/\/\d+(?=\/|$)/g, "/{id}");
  return `${r.method} ${path}`;
}

/** Requests per endpoint of a request log. */
export function countByEndpoint(log: Array<Pick<RequestLogEntry, "method" | "path">>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of log) {
    const ep = endpoint(r);
    out[ep] = (out[ep] ?? 0) + 1;
  }
  return out;
}

export function ideal(byEndpoint: Record<string, number>, depth: number, o: IdealOptions): Ideal {
  const clean = Object.fromEntries(Object.entries(byEndpoint).filter(([, n]) => n > 0));
  const total = Object.values(clean).reduce((a, b) => a + b, 0);
  return { byEndpoint: clean, total, depth, wallMs: Math.max((total * o.latency) / o.parallel, depth * o.latency) };
}

/**
 * The stack program's name check (provider/resources/name-check.ts), per deployment in which the tenants' names
 * changed (every deployment of a create: the state has no check yet): validateNames' reads that the resources' own
 * Checks in the same provider host do not make, the root business unit and its default server's domains and client
 * option sets. Its token and its other lists (time zones, operating systems, node types) are the ones the Checks read
 * anyway, read once per host. A deployment whose names the state holds checked reads nothing for it.
 */
export function nameCheckReads(deployments: number): Record<string, number> {
  return {
    [`GET ${B}`]: deployments,
    [`GET ${B}/defaultserver/domains`]: deployments,
    [`GET ${B}/defaultserver/clientoptionsets`]: deployments,
  };
}

/** Requests by endpoint, summed. */
function plus(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
}

/**
 * The create: the resources' own requests, and with `nameCheck` (the stacks/ program, the dynamic path on the CLI)
 * the name check's reads too, as its own line (nameCheckReads).
 */
export function idealCreate(o: IdealOptions, opts: { nameCheck?: boolean } = {}): Ideal {
  const n = o.tenants;
  const c = n * o.consumers;
  // `pulumi up` is two deployments, each with a fresh provider host: the preview's Checks resolve the names they
  // can (the business units' ids are still unknown), then the update's Checks do it again.
  const deployments = 2;
  // The name check's reads; in each deployment the root's read comes before its lists, and the tenants wait for it.
  const names = opts.nameCheck ? nameCheckReads(deployments) : {};
  return ideal(
    plus(names, {
      [TOKEN]: deployments,
      // Reference data, read once per deployment (time zones for the business units; OS and node types for the nodes)...
      "GET /v1/timezones": deployments,
      "GET /v1/nodeoperatingsystems": deployments,
      "GET /v1/nodetypes": deployments,
      // ...and once per business unit: its default server (spec 000 lists `server` among a node's create fields,
      // and the real portal's only other client sends it), and that server's domains and option sets (names → ids).
      [`GET ${B}/defaultserver`]: n,
      [`GET ${B}/defaultserver/domains`]: n,
      [`GET ${B}/defaultserver/clientoptionsets`]: n,
      [`POST ${B}/bunits`]: n,
      [`POST ${B}/consumers`]: c,
      [`POST ${C}/node`]: c,
      [`POST ${C}/node/password`]: o.passwords ? c : 0,
      [`GET ${C}/node/activate`]: c,
      // Without a declared password the portal chooses one at activation; the node's read hands it back (the
      // published Go client reads it the same way), kept as the secret output generatedPassword.
      [`GET ${C}/node`]: o.passwords ? 0 : c,
      // preview: token → reference data; then the update: token → time zones → business unit → consumer → node →
      // password (or, without one, the read of the chosen password after) → activation
    }),
    2 + 7 + (opts.nameCheck ? deployments : 0),
    o,
  );
}

export function idealRefresh(o: IdealOptions): Ideal {
  const n = o.tenants;
  const c = n * o.consumers;
  return ideal({ [TOKEN]: 1, [`GET ${B}`]: n, [`GET ${C}`]: c, [`GET ${C}/node`]: c }, 2, o);
}

export function idealDestroy(o: IdealOptions): Ideal {
  const n = o.tenants;
  const c = n * o.consumers;
  // A node's DELETE removes its consumer (spec 000); the consumer's Delete then sends nothing (dynamic/removed.ts).
  return ideal({ [TOKEN]: 1, [`DELETE ${C}/node`]: c, [`DELETE ${B}`]: n }, 3, o);
}
