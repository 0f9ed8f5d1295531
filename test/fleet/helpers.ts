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

const made: string[] = [];

/** A fresh folder under the system's temp folder, removed when the run ends (a root hook: this module loads once). */
export function tmpDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fleet-test-"));
  made.push(dir);
  return dir;
}

after(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
