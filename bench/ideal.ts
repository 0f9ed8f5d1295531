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

export function idealCreate(o: IdealOptions): Ideal {
  const n = o.tenants;
  const c = n * o.consumers;
  // `pulumi up` is two deployments, each with a fresh provider host: the preview's Checks resolve the names they
  // can (the business units' ids are still unknown), then the update's Checks do it again.
  const deployments = 2;
  return ideal(
    {
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
    },
    2 + 7,
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
