// fleetStackConfigs: every group's stack config from one read of the base and the secrets, the same configs that
// fleetStackConfig built group by group before (kept below as the reference): plain keys of the base (namespaced,
// base-only keys and ciphertext left out, a key spelt twice taken as the later), the group's tenants sorted, the
// portal password and the group's own node passwords as secrets, keys sorted.
import { strict as assert } from "assert";
import fc from "fast-check";
import {
  BASE_ONLY_KEYS,
  BaseConfig,
  ConfigMap,
  fleetStackConfig,
  fleetStackConfigs,
  FleetConfigOptions,
  isSecure,
  normalizeKey,
  PASSWORD_KEY,
  referencedSecrets,
  TENANTS_KEY,
} from "../../stacks/fleet/config";
import { TenantsConfig } from "../../provider/tenants/model";

/** fleetStackConfig as it was: one group, the whole base and all the secrets read for it. */
function reference(base: BaseConfig, groupTenants: TenantsConfig, opts: FleetConfigOptions = {}): ConfigMap {
  const out: ConfigMap = {};
  for (const [rawKey, v] of Object.entries(base ?? {})) {
    const key = normalizeKey(rawKey);
    if (BASE_ONLY_KEYS.includes(key) || v === null || v === undefined || isSecure(v)) continue;
    out[key] = { value: typeof v === "string" ? v : JSON.stringify(v) };
  }
  const sorted: TenantsConfig = {};
  for (const k of Object.keys(groupTenants ?? {}).sort()) sorted[k] = groupTenants[k];
  out[TENANTS_KEY] = { value: JSON.stringify(sorted) };
  const secrets = new Map(Object.entries(opts.secrets ?? {}).map(([k, v]) => [normalizeKey(k), v]));
  for (const key of [PASSWORD_KEY, ...referencedSecrets(groupTenants)]) {
    const value = secrets.get(key);
    if (value !== undefined) out[key] = { value, secret: true };
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

const secretKey = fc.constantFrom("a1Password", "b1Password", "backup-portal:c1Password", "password", "backup-portal:password");
const baseValue = fc.oneof(
  fc.constantFrom<unknown>("https://p.example", "1000", true, 3, null, { max: 3 }, ["x"]),
  fc.constant({ secure: "v1:abc" }),
);
const baseKey = fc.oneof(
  fc.constantFrom("url", "backup-portal:url", "rootBusinessUnitId", "registry", "backup-portal:kubeconfig", "tenants", "other:key"),
  secretKey,
);
const tenantOf = (secrets: string[]) =>
  Object.fromEntries(
    secrets.map((s, i) => [
      `c${i}`,
      { node: { operatingSystem: "Linux", type: "File server", domain: "STANDARD", cpuCount: 1, passwordSecret: s } },
    ]),
  );
const groups = fc.dictionary(
  fc.constantFrom("g00", "g01", "g02", "r1", "big"),
  fc.dictionary(
    fc.constantFrom("acme", "globex", "initech", "umbrella", "zeta"),
    fc.array(secretKey, { maxLength: 3 }).map((s) => ({ registrationNumber: "1", timeZone: "UTC", consumers: tenantOf(s) })),
  ),
);

describe("fleet: fleetStackConfigs, every group at once", () => {
  it("gives each group the config fleetStackConfig gave it alone", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(baseKey, baseValue), { maxLength: 10 }),
        groups,
        fc.option(fc.dictionary(secretKey, fc.string({ maxLength: 5 })), { nil: undefined }),
        (entries, gs, secrets) => {
          const base = Object.fromEntries(entries) as BaseConfig;
          const opts = secrets === undefined ? {} : { secrets };
          const all = fleetStackConfigs(base, gs as Record<string, TenantsConfig>, opts);
          assert.deepEqual(Object.keys(all), Object.keys(gs));
          for (const [g, ts] of Object.entries(gs)) {
            assert.deepEqual(all[g], reference(base, ts as TenantsConfig, opts));
            assert.deepEqual(fleetStackConfig(base, ts as TenantsConfig, opts), all[g]);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it("no two groups share a value object: a change to one group's config stays there", () => {
    const all = fleetStackConfigs({ url: "https://p.example" }, { g00: {}, g01: {} });
    all.g00["backup-portal:url"].value = "changed";
    assert.equal(all.g01["backup-portal:url"].value, "https://p.example");
  });
});
