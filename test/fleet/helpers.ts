import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { BusinessUnitConfig, TenantsConfig } from "../../provider/tenants/model";

export const ROOT = path.resolve(__dirname, "../..");

export function tenant(key: string, extra: Partial<BusinessUnitConfig> = {}): BusinessUnitConfig {
  return { name: `Tenant ${key}`, registrationNumber: `556000-${key.length}`, timeZone: "UTC", ...extra };
}

/** `count` tenants named `<prefix>0000`, `<prefix>0001`, ... */
export function manyTenants(count: number, prefix = "customer-"): TenantsConfig {
  const out: TenantsConfig = {};
  for (let i = 0; i < count; i++) {
    const key = `${prefix}${String(i).padStart(4, "0")}`;
    out[key] = tenant(key);
  }
  return out;
}

/** The group of each tenant. */
export function assignment(groups: Record<string, TenantsConfig>): Map<string, string> {
  const m = new Map<string, string>();
  for (const [g, ts] of Object.entries(groups)) for (const t of Object.keys(ts)) m.set(t, g);
  return m;
}

export function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "fleet-test-"));
}
