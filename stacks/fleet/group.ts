// Splits `backup-portal:tenants` into groups, one Pulumi stack per group.
//
// A tenant's group must never change by accident. Resources belong to the stack
// that created them: a tenant that leaves stack A for stack B is deleted by A's
// next `up` (its business unit, consumers and nodes, on the portal) and created
// anew by B's, with new ids. So the assignment is a function of the tenant's
// own key only (for a renamed tenant, the oldest key in its `aliases`): adding
// or removing another tenant moves nothing. See docs/gitops.md ("Why a tenant
// must not change stacks by accident") for moving one on purpose.
import { createHash } from "crypto";
import { BusinessUnitConfig, TenantsConfig } from "../../provider/tenants/model";

export type GroupBy = "key-prefix" | "explicit";

export interface GroupOptions {
  /**
   * "key-prefix": the group is derived from the tenant's key alone. With `size: N`, a stable hash
   * of the key picks one of N buckets named g00, g01, ...; a renamed tenant is hashed by its oldest
   * alias (the first of `aliases`), the key it was first grouped under. Without `size`, the group is
   * the key's prefix up to its first "-", "_" or "." (keys such as `reseller1-acme` group by
   * reseller), and a key whose aliases have another prefix is refused.
   * "explicit": `groups` lists the tenants of every group, each by its key or by an alias (one
   * tenant under two names in two groups is refused).
   */
  groupBy: GroupBy;
  /** Number of hash buckets for "key-prefix". Choose it once: changing it moves tenants. */
  size?: number;
  /** Group name → tenant keys, for "explicit". Every tenant must be in exactly one group. */
  groups?: Record<string, string[]>;
}

/** Group names become part of stack names: letters, digits, "-", "_", "." (at most 63). */
export const GROUP_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

export const MAX_BUCKETS = 1000;

export class FleetConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(
      `the fleet grouping has ${problems.length} problem${problems.length === 1 ? "" : "s"}; no stack was touched:\n${problems.join("\n")}`,
    );
    this.name = "FleetConfigError";
  }
}

const MASK64 = (1n << 64n) - 1n;

/**
 * Jump consistent hash (Lamping & Veach, 2014): maps a 64-bit key to one of `buckets` buckets.
 * Growing from N to N+1 buckets moves only about 1/(N+1) of the keys, all into the new bucket.
 */
export function jumpHash(key: bigint, buckets: number): number {
  let b = -1n;
  let j = 0n;
  let k = key & MASK64;
  const n = BigInt(buckets);
  while (j < n) {
    b = j;
    k = (k * 2862933555777941757n + 1n) & MASK64;
    j = BigInt(Math.floor(Number(b + 1n) * (2147483648 / Number((k >> 33n) + 1n))));
  }
  return Number(b);
}

/** The bucket of a tenant key: sha256 of the key (UTF-8), first 8 bytes, jump hash. */
export function tenantBucket(tenantKey: string, buckets: number): number {
  const digest = createHash("sha256").update(tenantKey, "utf8").digest();
  return jumpHash(digest.readBigUInt64BE(0), buckets);
}

/** g00, g01, ... g99, g100: names of existing buckets never change when more are added. */
export function bucketName(index: number): string {
  return `g${String(index).padStart(2, "0")}`;
}

/** The prefix of a key up to its first "-", "_" or "." (the whole key if it has none). */
export function keyPrefix(key: string): string {
  return key.split(/[-_.]/)[0] || key;
}

/** The earlier keys a tenant declares in `aliases`, oldest first (as listed). */
function aliasesOf(cfg: BusinessUnitConfig | undefined): string[] {
  const list = cfg && typeof cfg === "object" ? (cfg as { aliases?: unknown }).aliases : undefined;
  return Array.isArray(list) ? list.filter((a): a is string => typeof a === "string" && a !== "") : [];
}

/**
 * The key a tenant is hashed by: its oldest alias (the first in `aliases`) when it has one, else its
 * key. An alias works only within one stack, so a rename must not change the tenant's group: the
 * group stays the one of the key it was first grouped under.
 */
export function groupingKey(key: string, cfg: BusinessUnitConfig | undefined): string {
  return aliasesOf(cfg)[0] ?? key;
}

/** Why a tenant must not be renamed across groups, and the fix. */
function renameFix(aliasGroup: string, keyGroup: string): string {
  return (
    `an alias only works within one stack: the stack of group "${aliasGroup}" would delete the tenant and the stack of group "${keyGroup}" ` +
    "create it anew (new ids). Keep the old key (a new display name goes in `name`), or move the tenant on purpose, its state first with " +
    '`pulumi state move` (docs/gitops.md, "Renaming a tenant in the fleet")'
  );
}

function sortedTenants(tenants: TenantsConfig, keys: string[]): TenantsConfig {
  const out: TenantsConfig = {};
  for (const k of [...keys].sort()) out[k] = tenants[k];
  return out;
}

function sortedGroups(assign: Map<string, string[]>, tenants: TenantsConfig): Record<string, TenantsConfig> {
  const out: Record<string, TenantsConfig> = {};
  for (const name of [...assign.keys()].sort()) out[name] = sortedTenants(tenants, assign.get(name)!);
  return out;
}

/**
 * Splits the tenants into groups (group name → the group's tenants). Pure and deterministic: the
 * same input gives the same output, groups and tenants sorted by name. With hash buckets every
 * bucket is returned, empty ones too: a bucket whose last tenant was removed must still run, so
 * that its stack deletes that tenant. Throws FleetConfigError listing every problem.
 */
export function groupTenants(tenants: TenantsConfig, opts: GroupOptions): Record<string, TenantsConfig> {
  const keys = Object.keys(tenants ?? {});
  const problems: string[] = [];
  const assign = new Map<string, string[]>();
  const put = (group: string, key: string) => {
    if (!assign.has(group)) assign.set(group, []);
    assign.get(group)!.push(key);
  };

  if (opts.groupBy === "key-prefix") {
    if (opts.groups !== undefined) problems.push(`groups: only used with groupBy "explicit"; remove it or set groupBy: "explicit"`);
    if (opts.size !== undefined) {
      if (!Number.isInteger(opts.size) || opts.size < 1 || opts.size > MAX_BUCKETS) {
        problems.push(`size: must be an integer from 1 to ${MAX_BUCKETS} (the number of stacks), got ${JSON.stringify(opts.size)}`);
      } else {
        for (let i = 0; i < opts.size; i++) assign.set(bucketName(i), []);
        for (const k of keys) put(bucketName(tenantBucket(groupingKey(k, tenants[k]), opts.size)), k);
      }
    } else {
      for (const k of keys) {
        const p = keyPrefix(k);
        if (!GROUP_NAME_PATTERN.test(p)) {
          problems.push(`tenants.${k}: its prefix "${p}" cannot name a stack; use keys that start with a letter or digit`);
          continue;
        }
        const elsewhere = aliasesOf(tenants[k]).filter((a) => keyPrefix(a) !== p);
        for (const a of elsewhere) {
          problems.push(
            `tenants.${k}: its key puts it in group "${p}", its alias "${a}" in group "${keyPrefix(a)}"; ${renameFix(keyPrefix(a), p)}`,
          );
        }
        if (!elsewhere.length) put(p, k);
      }
    }
  } else if (opts.groupBy === "explicit") {
    if (opts.size !== undefined) problems.push(`size: only used with groupBy "key-prefix"; remove it`);
    const groups = opts.groups;
    if (!groups || typeof groups !== "object" || Array.isArray(groups)) {
      problems.push(`groups: required with groupBy "explicit": a map from group name to the list of its tenant keys`);
    } else {
      // A group may list a tenant by an alias (an assignment written before the rename).
      const aliasOwner = new Map<string, string>();
      for (const k of keys) {
        for (const a of aliasesOf(tenants[k])) if (!Object.prototype.hasOwnProperty.call(tenants, a)) aliasOwner.set(a, k);
      }
      const seen = new Map<string, string>();
      const listedAs = new Map<string, string>();
      for (const [name, list] of Object.entries(groups)) {
        if (!GROUP_NAME_PATTERN.test(name)) {
          problems.push(
            `groups.${name}: a group name becomes part of a stack name; use letters, digits, "-", "_" and "." (at most 63), starting with a letter or digit`,
          );
          continue;
        }
        assign.set(name, []);
        if (!Array.isArray(list)) {
          problems.push(`groups.${name}: must be a list of tenant keys, got ${typeof list}`);
          continue;
        }
        list.forEach((listed, i) => {
          const at = `groups.${name}[${i}]`;
          const known = typeof listed === "string" && Object.prototype.hasOwnProperty.call(tenants, listed);
          const key = typeof listed === "string" && !known ? (aliasOwner.get(listed) ?? listed) : listed;
          const other = typeof key === "string" ? seen.get(key) : undefined;
          const before = typeof key === "string" ? listedAs.get(key) : undefined;
          if (typeof key !== "string") problems.push(`${at}: must be a tenant key (a string)`);
          else if (!known && key === listed) problems.push(`${at}: unknown tenant key "${key}"; it is not in backup-portal:tenants`);
          else if (other === name && before !== listed)
            return; // its key and an alias, in the same group
          else if (other === name) problems.push(`${at}: tenant "${key}" is listed twice in group "${name}"`);
          else if (other !== undefined && before !== listed) {
            const [aliasGroup, keyGroup] = listed === key ? [other, name] : [name, other];
            problems.push(
              `${at}: tenant "${key}" is in group "${other}" as "${before}" and in group "${name}" as "${listed}"; ${renameFix(aliasGroup, keyGroup)}`,
            );
          } else if (other !== undefined) {
            problems.push(
              `${at}: tenant "${key}" is in groups "${other}" and "${name}"; a tenant belongs to exactly one stack, or two stacks would manage (and fight over) it`,
            );
          } else {
            seen.set(key, name);
            listedAs.set(key, listed);
            put(name, key);
          }
        });
      }
      const missing = keys.filter((k) => !seen.has(k));
      if (missing.length) {
        problems.push(
          `groups: ${missing.length} tenant${missing.length === 1 ? " is" : "s are"} in no group: ${missing.join(", ")}; add each to one group (a tenant in no stack is managed by none)`,
        );
      }
    }
  } else {
    problems.push(`groupBy: must be "key-prefix" or "explicit", got ${JSON.stringify((opts as { groupBy: unknown }).groupBy)}`);
  }

  // Each group has a stack file, stacks/Pulumi.<stack>-<group>.yaml: on a case-insensitive
  // filesystem (macOS, Windows) two names that differ only in case are one file.
  const byLowerCase = new Map<string, string>();
  for (const name of [...assign.keys()].sort()) {
    const other = byLowerCase.get(name.toLowerCase());
    if (other === undefined) byLowerCase.set(name.toLowerCase(), name);
    else {
      problems.push(
        `groups "${other}" and "${name}" differ only in case: their stack files (Pulumi.<stack>-${other}.yaml, Pulumi.<stack>-${name}.yaml) ` +
          `are one file on a case-insensitive filesystem (macOS, Windows), where each group would overwrite the other's config; ` +
          (opts.groupBy === "explicit"
            ? "rename one of the groups"
            : "spell the prefix of those tenant keys one way, or group with --assign"),
      );
    }
  }

  if (problems.length) throw new FleetConfigError(problems);
  return sortedGroups(assign, tenants);
}

export interface TenantMove {
  tenant: string;
  from: string;
  to: string;
}

/**
 * Tenants whose group differs between two groupings (e.g. before and after changing `size` or the
 * explicit assignment). Each move deletes the tenant in `from` and recreates it in `to` unless it is
 * moved in state first; see docs/gitops.md.
 */
export function movedTenants(before: Record<string, TenantsConfig>, after: Record<string, TenantsConfig>): TenantMove[] {
  const where = (g: Record<string, TenantsConfig>) => {
    const m = new Map<string, string>();
    for (const [group, ts] of Object.entries(g)) for (const t of Object.keys(ts)) m.set(t, group);
    return m;
  };
  const a = where(before);
  const b = where(after);
  const moves: TenantMove[] = [];
  for (const [tenant, from] of a) {
    const to = b.get(tenant);
    if (to !== undefined && to !== from) moves.push({ tenant, from, to });
  }
  return moves.sort((x, y) => x.tenant.localeCompare(y.tenant));
}
